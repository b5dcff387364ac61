#pragma once
// Note [Profiler hook]: the per-operator events of torchlite.profiler. Every generated operator
// entry (`ops::<op>::call`, Operators.cpp) is
//   profiler::RecordScope event(TL_UNLIKELY(profiler::is_enabled()) ? begin_operator(...) : -1);
//   return body(...);
// with begin_operator cold and out of line, so that each operator's body is inlined once and
// with no profiler running an operator pays one load of a global counter and one
// predictable branch. A running profiler belongs to the thread that started it (as PyTorch's
// does by default): RecordScope records only on that thread, into that thread's session, so
// sessions need no lock; other threads see the counter set, find no session of their own and
// record nothing. Events nest: each remembers the event open around it on its thread (an
// operator called from another operator's kernel, the operators an autograd Node runs, those
// inside a record_function block). The autograd engine records two events per Node it applies,
// named as PyTorch names them: "autograd::engine::evaluate_function: <Node>" around the Node's
// "<Node>" (which carries the Node's sequence number, the forward operator's).
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::profiler {

// Shape and type of one operator argument: a tensor's sizes and dtype (C++ name, "float"), the
// sizes of each tensor of a list, or no shape for other arguments (type "Scalar", "ScalarList",
// "" for an absent optional).
struct InputInfo {
  std::string type;
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> list_sizes;
  bool is_list = false;
};

enum class EventKind : int8_t { Operator, BackwardNode, UserScope };

struct Event {
  std::string name;
  EventKind kind = EventKind::Operator;
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = -1;   // -1 while open
  uint64_t thread_id = 0;
  int64_t sequence_nr = -1;  // the autograd Node's (forward operators that record one, Nodes)
  int64_t parent = -1;       // index of the enclosing event in the session, -1 at top level
  std::vector<InputInfo> inputs;  // with record_shapes
  std::vector<std::string> stack;  // with with_stack: "file(line): function", innermost first
};

struct Config {
  bool record_shapes = false;
  bool with_stack = false;
};

// The Python call stack of the current thread, innermost frame first (empty where the thread
// does not hold the GIL). The Python module sets it once, at import, before any session runs
// (the profiler itself knows no Python).
using StackProvider = std::function<std::vector<std::string>()>;
void set_stack_provider(StackProvider provider);

// Number of sessions running in the process (Note [Profiler hook]).
extern std::atomic<int> g_num_sessions;
inline bool is_enabled() { return g_num_sessions.load(std::memory_order_relaxed) != 0; }

// Starts recording on this thread; a RuntimeError if this thread already records.
void enable(const Config& config);
// Stops recording on this thread and returns the events, ordered by start; a RuntimeError if
// it was not recording. Events still open (a record_function left open) end now.
std::vector<Event> disable();
bool is_enabled_on_this_thread();

uint64_t current_thread_id();

// Opens an event on this thread's session, if any; returns its handle (-1: none recorded).
int64_t begin(std::string name, EventKind kind, int64_t sequence_nr);
void end(int64_t handle);
// Whether the running session records shapes (RecordScope fills inputs only then).
bool records_shapes();
void set_inputs(int64_t handle, std::vector<InputInfo> inputs);

InputInfo input_info(const Tensor& t);
InputInfo input_info(const std::optional<Tensor>& t);
InputInfo input_info(TensorList ts);
InputInfo input_info(const std::vector<std::optional<Tensor>>& ts);
template <typename T>
InputInfo input_info(const T&) {
  return InputInfo{"Scalar", {}, {}, false};
}
template <typename T>
InputInfo input_info(ArrayRef<T>) {
  return InputInfo{"ScalarList", {}, {}, false};
}
template <typename T>
InputInfo input_info(const std::optional<T>& v) {
  return v ? input_info(*v) : InputInfo{};
}

// The sequence number the next autograd Node will get, for a forward operator that records
// history under grad mode; -1 otherwise.
int64_t forward_sequence_nr(bool differentiable);

// RAII: one event around a scope. The operator form adopts the handle begin_operator returned
// (-1: no event), so that the operator's generated call holds one scope on both of its paths.
class RecordScope {
 public:
  RecordScope(std::string name, EventKind kind, int64_t sequence_nr = -1)
      : handle_(begin(std::move(name), kind, sequence_nr)) {}
  explicit RecordScope(int64_t handle) : handle_(handle) {}
  ~RecordScope() {
    if (TL_UNLIKELY(handle_ >= 0)) end(handle_);
  }
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;

 private:
  int64_t handle_;
};

// Opens an operator's event and records its arguments' shapes when the session asks for them;
// -1 when this thread records nothing. Called only while a profiler runs.
template <typename... Args>
TL_COLD int64_t begin_operator(const char* op_name, bool differentiable, const Args&... args) {
  const int64_t handle = begin(op_name, EventKind::Operator, forward_sequence_nr(differentiable));
  if (handle >= 0 && records_shapes()) set_inputs(handle, {input_info(args)...});
  return handle;
}

}  // namespace tl::profiler
