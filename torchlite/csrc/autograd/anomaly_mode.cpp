#include "torchlite/csrc/autograd/anomaly_mode.h"

#include <atomic>

namespace tl::autograd {

namespace {
std::atomic<bool> enabled{false};
std::atomic<bool> check_nan{true};
}  // namespace

bool AnomalyMode::is_enabled() { return enabled.load(std::memory_order_relaxed); }

bool AnomalyMode::should_check_nan() { return check_nan.load(std::memory_order_relaxed); }

void AnomalyMode::set_enabled(bool e, bool nan) {
  enabled = e;
  check_nan = nan;
}

AnomalyHandlers& anomaly_handlers() {
  static AnomalyHandlers handlers;
  return handlers;
}

void record_node_creation(const std::shared_ptr<Node>& node) {
  if (AnomalyMode::is_enabled() && anomaly_handlers().record_creation) anomaly_handlers().record_creation(node);
}

}  // namespace tl::autograd
