// Note [Profiler hook] (profiler.h): sessions, events and the argument descriptions.
#include "torchlite/csrc/profiler/profiler.h"

#include <chrono>
#include <memory>
#include <sys/syscall.h>
#include <unistd.h>

#include "torchlite/csrc/autograd/function.h"
#include "torchlite/csrc/autograd/grad_mode.h"

namespace tl::profiler {

std::atomic<int> g_num_sessions{0};

namespace {

struct Session {
  Config config;
  uint64_t serial;  // tells a handle of this session from one of an earlier session
  std::vector<Event> events;
  std::vector<int64_t> open;  // indices of the events not yet ended, innermost last
};

thread_local std::unique_ptr<Session> tls_session;

StackProvider stack_provider;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A handle is the session's serial in the high half and the event's index in the low half.
int64_t make_handle(const Session& s, size_t index) {
  return static_cast<int64_t>(((s.serial & 0x7fffffff) << 32) | static_cast<uint64_t>(index));
}

// The event a handle names in this thread's session, or null (a session since stopped).
Event* find(Session& s, int64_t handle) {
  if (handle < 0 || static_cast<uint64_t>(handle >> 32) != (s.serial & 0x7fffffff)) return nullptr;
  const size_t index = static_cast<size_t>(handle & 0xffffffff);
  return index < s.events.size() ? &s.events[index] : nullptr;
}

// PyTorch's names of the C++ element types ("Input type" in its traces).
const char* type_name(ScalarType t) {
  static const char* names[] = {"bool",     "unsigned char", "signed char", "short int",
                                "int",      "long int",      "c10::Half",   "c10::BFloat16",
                                "float",    "double",        "c10::complex<float>", "c10::complex<double>"};
  return names[static_cast<int>(t)];
}

}  // namespace

void set_stack_provider(StackProvider provider) { stack_provider = std::move(provider); }

uint64_t current_thread_id() {
  thread_local const uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));  // the id threading.get_native_id gives
  return tid;
}

void enable(const Config& config) {
  static std::atomic<uint64_t> serials{1};
  TL_CHECK(!tls_session, "profiler: this thread is already profiling (one profiler at a time per thread)");
  tls_session = std::make_unique<Session>(Session{config, serials.fetch_add(1), {}, {}});
  g_num_sessions.fetch_add(1, std::memory_order_relaxed);
}

std::vector<Event> disable() {
  TL_CHECK(tls_session, "profiler: this thread is not profiling");
  std::unique_ptr<Session> s = std::move(tls_session);
  g_num_sessions.fetch_sub(1, std::memory_order_relaxed);
  const int64_t t = now_ns();
  for (int64_t i : s->open) s->events[i].end_ns = t;
  return std::move(s->events);
}

bool is_enabled_on_this_thread() { return tls_session != nullptr; }

int64_t begin(std::string name, EventKind kind, int64_t sequence_nr) {
  Session* s = tls_session.get();
  if (s == nullptr) return -1;
  Event e;
  e.name = std::move(name);
  e.kind = kind;
  e.thread_id = current_thread_id();
  e.sequence_nr = sequence_nr;
  e.parent = s->open.empty() ? -1 : s->open.back();
  if (s->config.with_stack && kind == EventKind::Operator && stack_provider) e.stack = stack_provider();
  const size_t index = s->events.size();
  s->open.push_back(static_cast<int64_t>(index));
  e.start_ns = now_ns();  // last, so that the bookkeeping above is not timed
  s->events.push_back(std::move(e));
  return make_handle(*s, index);
}

void end(int64_t handle) {
  const int64_t t = now_ns();
  Session* s = tls_session.get();
  if (s == nullptr) return;
  Event* e = find(*s, handle);
  if (e == nullptr || e->end_ns >= 0) return;
  e->end_ns = t;
  // Usually the innermost open event; a Python record_function may end out of order.
  const int64_t index = handle & 0xffffffff;
  for (size_t i = s->open.size(); i-- > 0;) {
    if (s->open[i] == index) {
      s->open.erase(s->open.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
}

bool records_shapes() { return tls_session && tls_session->config.record_shapes; }

void set_inputs(int64_t handle, std::vector<InputInfo> inputs) {
  if (Event* e = tls_session ? find(*tls_session, handle) : nullptr) e->inputs = std::move(inputs);
}

InputInfo input_info(const Tensor& t) {
  if (!t.defined()) return InputInfo{};
  return InputInfo{type_name(t.dtype()), t.sizes().vec(), {}, false};
}

InputInfo input_info(const std::optional<Tensor>& t) { return t ? input_info(*t) : InputInfo{}; }

InputInfo input_info(TensorList ts) {
  InputInfo info{"TensorList", {}, {}, true};
  for (const Tensor& t : ts) info.list_sizes.push_back(t.defined() ? t.sizes().vec() : std::vector<int64_t>{});
  return info;
}

InputInfo input_info(const std::vector<std::optional<Tensor>>& ts) {
  InputInfo info{"GenericList", {}, {}, true};
  for (const auto& t : ts) info.list_sizes.push_back(t && t->defined() ? t->sizes().vec() : std::vector<int64_t>{});
  return info;
}

int64_t forward_sequence_nr(bool differentiable) {
  return differentiable && autograd::GradMode::is_enabled() ? static_cast<int64_t>(autograd::peek_sequence_nr()) : -1;
}

}  // namespace tl::profiler
