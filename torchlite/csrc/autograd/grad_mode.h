#pragma once
// Thread-local autograd switches: grad mode (torch.no_grad / enable_grad) and inference mode.
// Note [Autograd fast path]: an operator's `call` first scans its tensor inputs for
// requires_grad (a pointer test per input) and only then reads grad mode, so calls on tensors
// that never required grad touch no thread-local state at all.

namespace tl::autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

struct InferenceMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// RAII: sets grad mode for a scope and restores the previous value.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

}  // namespace tl::autograd
