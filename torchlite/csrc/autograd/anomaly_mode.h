#pragma once
// Anomaly detection (torchlite.autograd.detect_anomaly): every Node remembers where the forward
// pass created it; when a Node's backward fails, the engine reports that place, and with
// check_nan it fails on a gradient that holds NaN. The switch is process-wide, as in PyTorch.
#include <memory>

namespace tl::autograd {

struct Node;

struct AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan);
};

// What anomaly mode does with a Node lives in the Python bindings (the forward traceback is
// Python's): record where `node` was created; warn with it when `node`'s backward failed.
struct AnomalyHandlers {
  void (*record_creation)(const std::shared_ptr<Node>& node) = nullptr;
  void (*report_failure)(const Node& node) = nullptr;
};
AnomalyHandlers& anomaly_handlers();

// Records the creation site of `node` when anomaly mode is on.
void record_node_creation(const std::shared_ptr<Node>& node);

}  // namespace tl::autograd
