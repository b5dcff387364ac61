#include "torchlite/csrc/autograd/engine.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <queue>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "aten/core/Tensor.h"
#include "generated/ops/add.h"
#include "generated/ops/any.h"
#include "generated/ops/empty.h"
#include "generated/ops/fill.h"
#include "generated/ops/isnan.h"
#include "generated/ops/real.h"
#include "generated/ops/to.h"
#include "torchlite/csrc/autograd/anomaly_mode.h"
#include "torchlite/csrc/autograd/functions_manual.h"
#include "torchlite/csrc/autograd/variable.h"
#include "torchlite/csrc/profiler/profiler.h"

namespace tl::autograd {

namespace {

int64_t next_task_id() {
  static std::atomic<int64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

struct ExecInfo {
  bool needed = false;  // must run apply()
  std::vector<std::pair<uint32_t, size_t>> captures;  // (input_nr, index in the result)
};

struct GraphTask {
  int64_t id = next_task_id();
  bool keep_graph = false;
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, variable_list> not_ready;
  std::unordered_map<Node*, ExecInfo> exec_info;  // empty: run every node
  variable_list captured;
};

thread_local GraphTask* current_task = nullptr;

struct ReadyItem {
  std::shared_ptr<Node> fn;
  variable_list inputs;
};
struct CompareReady {
  bool operator()(const ReadyItem& a, const ReadyItem& b) const {
    return a.fn->sequence_nr() < b.fn->sequence_nr();
  }
};

std::string size_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// Checks a gradient against the metadata of the input it flows into; reduces broadcast
// gradients and converts dtypes as PyTorch's validate_outputs does.
Tensor validate_grad(Tensor g, const Edge& e, const Node& producer, size_t index) {
  const InputMetadata& m = e.function->input_metadata(e.input_nr);
  if (!m.defined || !g.defined()) return g;
  if (!g.sizes().equals(m.sizes)) {
    TL_CHECK(is_expandable_to(m.sizes, g.sizes()), "Function ", producer.name(),
             " returned an invalid gradient at index ", index, " - got ", size_str(g.sizes()),
             " but expected shape compatible with ", size_str(m.sizes));
    g = sum_to(g, m.sizes);
  }
  // A real input gets the real part of a complex gradient (PyTorch's handle_r_to_c).
  if (is_complex(g.dtype()) && !is_complex(m.dtype)) g = tl::real(g);
  if (g.dtype() != m.dtype) g = g.to(m.dtype);
  TL_CHECK(g.device() == m.device, "Function ", producer.name(), " returned an invalid gradient at index ", index,
           " - expected device ", m.device, " but got ", g.device());
  return g;
}

// Anomaly mode with check_nan: a gradient holding NaN fails at the node that computed it.
void check_no_nan(const Node& fn, const variable_list& outputs) {
  NoGradGuard no_grad;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !(is_floating_point(g.dtype()) || is_complex(g.dtype()))) continue;
    TL_CHECK(!tl::isnan(g).any().item().to<bool>(), "Function '", fn.name(), "' returned nan values in its ", i,
             "th output.");
  }
}

class TaskScope {
 public:
  explicit TaskScope(GraphTask* t) : prev_(current_task) { current_task = t; }
  ~TaskScope() { current_task = prev_; }

 private:
  GraphTask* prev_;
};

void compute_exec_info(GraphTask& task, Node* root, const edge_list& outputs) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k].is_valid()) task.exec_info[outputs[k].function.get()].captures.push_back({outputs[k].input_nr, k});
  }
  // Topological order from the root (Kahn), then decide bottom-up which nodes lead to a
  // captured edge.
  std::unordered_map<Node*, int> deps = task.dependencies;
  std::vector<Node*> topo{root};
  for (size_t i = 0; i < topo.size(); ++i) {
    for (const Edge& e : topo[i]->next_edges()) {
      if (e.is_valid() && --deps[e.function.get()] == 0) topo.push_back(e.function.get());
    }
  }
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    Node* n = *it;
    bool needed = false;
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      auto f = task.exec_info.find(e.function.get());
      if (f != task.exec_info.end() && (f->second.needed || !f->second.captures.empty())) {
        needed = true;
        break;
      }
    }
    if (needed) task.exec_info[n].needed = true;
  }
  task.exec_info[root].needed = true;
}

void evaluate(GraphTask& task, const std::shared_ptr<Node>& fn, variable_list&& inputs,
              std::priority_queue<ReadyItem, std::vector<ReadyItem>, CompareReady>& ready) {
  // A node the pass does not need runs nothing, not even its hooks (as in PyTorch).
  auto info = task.exec_info.find(fn.get());
  if (!task.exec_info.empty() && info == task.exec_info.end()) return;
  // Note [Profiler hook]: PyTorch's two events per Node. The root a pass starts from is not one
  // of the graph's Nodes; AccumulateGrad carries no sequence number (UINT64_MAX), as in PyTorch.
  std::optional<profiler::RecordScope> evaluate_event;
  int64_t profiled_sequence_nr = -1;
  if (TL_UNLIKELY(profiler::is_enabled()) && dynamic_cast<const GraphRoot*>(fn.get()) == nullptr) {
    if (fn->sequence_nr() != UINT64_MAX) profiled_sequence_nr = static_cast<int64_t>(fn->sequence_nr());
    evaluate_event.emplace("autograd::engine::evaluate_function: " + fn->name(), profiler::EventKind::BackwardNode,
                           profiled_sequence_nr);
  }
  fn->run_pre_hooks(inputs);
  if (!task.exec_info.empty()) {
    for (auto [input_nr, k] : info->second.captures) {
      if (input_nr < inputs.size()) task.captured[k] = inputs[input_nr];
    }
    if (!info->second.needed) return;
  }
  variable_list outputs;
  try {
    std::optional<profiler::RecordScope> apply_event;
    if (evaluate_event) apply_event.emplace(fn->name(), profiler::EventKind::BackwardNode, profiled_sequence_nr);
    if (fn->has_post_hooks()) {
      variable_list kept = inputs;
      outputs = fn->run_post_hooks(fn->apply(std::move(inputs)), kept);
    } else {
      outputs = fn->apply(std::move(inputs));
    }
    if (AnomalyMode::is_enabled() && AnomalyMode::should_check_nan()) check_no_nan(*fn, outputs);
  } catch (...) {
    if (AnomalyMode::is_enabled() && anomaly_handlers().report_failure) anomaly_handlers().report_failure(*fn);
    throw;
  }
  if (!task.keep_graph) fn->release_variables();
  const edge_list& edges = fn->next_edges();
  TL_CHECK(outputs.size() == edges.size(), "Function ", fn->name(), " returned an incorrect number of gradients (expected ",
           edges.size(), ", got ", outputs.size(), ")");
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge& e = edges[i];
    if (!e.is_valid()) continue;
    Node* next = e.function.get();
    Tensor g = validate_grad(std::move(outputs[i]), e, *fn, i);
    auto& buffer = task.not_ready[next];
    size_t n = std::max<size_t>(next->num_inputs(), e.input_nr + 1);
    if (buffer.size() < n) buffer.resize(n);
    if (g.defined()) {
      Tensor& slot = buffer[e.input_nr];
      slot = slot.defined() ? tl::add(slot, g) : std::move(g);
    }
    if (--task.dependencies[next] == 0) {
      ready.push(ReadyItem{e.function, std::move(buffer)});
      task.not_ready.erase(next);
    }
  }
}

}  // namespace

int64_t current_graph_task_id() { return current_task != nullptr ? current_task->id : -1; }

bool is_checkpoint_valid() { return current_task == nullptr || current_task->exec_info.empty(); }

bool will_execute_node(const Node* node) {
  GraphTask* t = current_task;
  TL_CHECK(t != nullptr, "_get_should_execute_nodes should only be called during the backward pass");
  if (t->exec_info.empty()) return t->dependencies.count(const_cast<Node*>(node)) > 0;
  auto it = t->exec_info.find(const_cast<Node*>(node));
  return it != t->exec_info.end() && (it->second.needed || !it->second.captures.empty());
}

bool task_should_compute(const Edge& e) {
  GraphTask* t = current_task;
  if (t == nullptr || t->exec_info.empty()) return true;
  auto it = t->exec_info.find(e.function.get());
  return it != t->exec_info.end() && (it->second.needed || !it->second.captures.empty());
}

variable_list execute(const edge_list& roots, const variable_list& grads, bool keep_graph, bool create_graph,
                      const edge_list& outputs) {
  auto root = std::make_shared<GraphRoot>(edge_list(roots), grads);
  GraphTask task;
  task.keep_graph = keep_graph;
  // Dependencies: the number of edges into each node reachable from the root.
  std::vector<Node*> stack{root.get()};
  std::unordered_set<Node*> seen{root.get()};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      Node* m = e.function.get();
      ++task.dependencies[m];
      if (seen.insert(m).second) stack.push_back(m);
    }
  }
  if (!outputs.empty()) {
    task.captured.resize(outputs.size());
    compute_exec_info(task, root.get(), outputs);
  }
  TaskScope scope(&task);
  AutoGradMode mode(create_graph);
  std::priority_queue<ReadyItem, std::vector<ReadyItem>, CompareReady> ready;
  ready.push(ReadyItem{root, {}});
  while (!ready.empty()) {
    ReadyItem item = ready.top();
    ready.pop();
    evaluate(task, item.fn, std::move(item.inputs), ready);
  }
  return std::move(task.captured);
}

variable_list run_backward(const variable_list& tensors, const variable_list& grad_tensors, bool keep_graph,
                           bool create_graph, const edge_list& inputs, bool allow_unused,
                           const variable_list& accumulate_into) {
  edge_list roots;
  variable_list grads;
  TL_CHECK(grad_tensors.empty() || grad_tensors.size() == tensors.size(), "grad_tensors should have the same length ",
           "as tensors: got ", grad_tensors.size(), " and ", tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    Edge e = gradient_edge(t);
    TL_CHECK(e.is_valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = i < grad_tensors.size() ? grad_tensors[i] : Tensor();
    if (!g.defined()) {
      TL_CHECK(t.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = empty_tensor(t.sizes(), t.options());
      g.fill_(1);
    } else {
      TL_CHECK(g.sizes().equals(t.sizes()), "Mismatch in shape: grad_output[", i, "] has a shape of torch.Size(",
               size_str(g.sizes()), ") and output[", i, "] has a shape of torch.Size(", size_str(t.sizes()), ").");
    }
    roots.push_back(std::move(e));
    grads.push_back(std::move(g));
  }
  variable_list result = execute(roots, grads, keep_graph, create_graph, inputs);
  if (inputs.empty()) return {};
  if (!accumulate_into.empty()) {
    AutoGradMode mode(create_graph);
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (result[k].defined() && accumulate_into[k].defined()) {
        AccumulateGrad::accumulate(accumulate_into[k], result[k]);
      }
    }
    return {};
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    TL_CHECK(allow_unused || result[k].defined(), "One of the differentiated Tensors appears to not have been used in "
             "the graph. Set allow_unused=True if this is the desired behavior.");
  }
  return result;
}

}  // namespace tl::autograd
