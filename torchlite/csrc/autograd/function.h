#pragma once
// Note [Autograd graph]: the backward graph is made of Nodes. A tensor produced by a
// differentiable op holds its Node (grad_fn) and its output index (output_nr); the Node holds
// an Edge to the Node of each differentiable input (that input's grad_fn, or the
// AccumulateGrad of a leaf), and the values its formula needs (SavedVariable). Nodes point
// only backwards (to inputs), and saved outputs are stored without their grad_fn, so a graph
// never owns itself: it is freed when the last tensor referring to it goes away.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autograd {

struct Node;
using variable_list = std::vector<Tensor>;

struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  Edge() = default;
  Edge(std::shared_ptr<Node> f, uint32_t nr) : function(std::move(f)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
};
using edge_list = std::vector<Edge>;

// Shape, dtype and device of one input of a Node (= one output of the forward op): used to
// check and convert the gradients flowing in and to build zeros for missing ones.
struct InputMetadata {
  std::vector<int64_t> sizes;
  ScalarType dtype = ScalarType::Float;
  Device device{DeviceType::CPU};
  bool defined = false;
  Tensor zeros() const;
};

uint64_t next_sequence_nr();
// The number the next Node will get (the profiler's forward events carry it).
uint64_t peek_sequence_nr();

struct Node : std::enable_shared_from_this<Node> {
  using TensorHook = std::function<Tensor(const Tensor&)>;  // undefined result: keep the grad
  using PreHook = std::function<variable_list(const variable_list&)>;  // empty result: keep
  using PostHook = std::function<variable_list(const variable_list&, const variable_list&)>;

  Node() : sequence_nr_(next_sequence_nr()) {}
  explicit Node(edge_list&& next) : sequence_nr_(next_sequence_nr()), next_edges_(std::move(next)) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Gradients w.r.t. the forward outputs in, gradients w.r.t. the forward inputs out
  // (one per next edge).
  virtual variable_list apply(variable_list&& grads) = 0;
  virtual std::string name() const = 0;
  // Frees saved tensors after a backward pass without retain_graph.
  virtual void release_variables() {}

  const edge_list& next_edges() const { return next_edges_; }
  void set_next_edges(edge_list&& e) { next_edges_ = std::move(e); }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  size_t num_outputs() const { return next_edges_.size(); }

  uint32_t add_input_metadata(const Tensor& t);
  uint32_t add_input_metadata_undefined();
  size_t num_inputs() const { return input_metadata_.size(); }
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }

  uint64_t sequence_nr() const { return sequence_nr_; }
  void set_sequence_nr(uint64_t s) { sequence_nr_ = s; }

  // Whether the gradient for next edge i is wanted in the running backward pass.
  bool should_compute_output(size_t i) const;
  bool should_compute_output(std::initializer_list<std::pair<size_t, size_t>> ranges) const;

  // Hooks. Each add returns an id for removal.
  int add_tensor_pre_hook(uint32_t input_nr, TensorHook h);
  void set_retains_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> h);
  int add_pre_hook(PreHook h);
  int add_post_hook(PostHook h);
  bool remove_hook(int id);
  bool has_post_hooks() const { return !post_hooks_.empty(); }
  // Runs tensor hooks, retain_grad hooks and pre hooks on the incoming gradients.
  virtual void run_pre_hooks(variable_list& grads);
  variable_list run_post_hooks(variable_list&& outputs, const variable_list& inputs);

 protected:
  uint64_t sequence_nr_;
  edge_list next_edges_;
  std::vector<InputMetadata> input_metadata_;
  std::vector<std::pair<int, std::pair<uint32_t, TensorHook>>> tensor_pre_hooks_;
  std::vector<std::pair<uint32_t, std::function<void(const Tensor&)>>> retains_grad_hooks_;
  std::vector<std::pair<int, PreHook>> pre_hooks_;
  std::vector<std::pair<int, PostHook>> post_hooks_;
};

int next_hook_id();

// Index ranges of the gradients a Node returns, one range per differentiable input.
struct IndexRangeGenerator {
  std::pair<size_t, size_t> range(size_t n) {
    size_t b = i_;
    i_ += n;
    return {b, i_};
  }
  size_t size() const { return i_; }

 private:
  size_t i_ = 0;
};

inline void copy_range(variable_list& out, std::pair<size_t, size_t> r, const Tensor& t) { out[r.first] = t; }
inline void copy_range(variable_list& out, std::pair<size_t, size_t> r, const variable_list& ts) {
  for (size_t i = 0; i < ts.size() && r.first + i < r.second; ++i) out[r.first + i] = ts[i];
}

// The root of a backward pass: hands the given gradients to the output tensors' nodes.
struct GraphRoot final : Node {
  GraphRoot(edge_list&& roots, variable_list grads) : Node(std::move(roots)), grads_(std::move(grads)) {
    sequence_nr_ = UINT64_MAX;
  }
  variable_list apply(variable_list&&) override { return grads_; }
  std::string name() const override { return "GraphRoot"; }

 private:
  variable_list grads_;
};

// Backward of an op with no formula in derivatives.yaml: fails only if a backward pass
// reaches it.
struct NotImplemented final : Node {
  explicit NotImplemented(std::string op) : op_(std::move(op)) {}
  variable_list apply(variable_list&&) override;
  std::string name() const override { return "NotImplemented"; }

 private:
  std::string op_;
};

// A node whose backward must not be run (outputs of ops under a non-differentiable path).
struct Error final : Node {
  Error(std::string msg, edge_list&& next) : Node(std::move(next)), msg_(std::move(msg)) {}
  variable_list apply(variable_list&&) override;
  std::string name() const override { return "Error"; }

 private:
  std::string msg_;
};

// The sink of a leaf tensor that requires grad: adds the incoming gradient into `.grad`.
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  void run_pre_hooks(variable_list& grads) override;
  const Tensor& variable() const { return variable_; }

  // Adds `new_grad` into `variable.grad` following PyTorch's rules (steal, clone or add).
  static void accumulate(const Tensor& variable, Tensor new_grad);

  // torch.autograd.enforce_grad_layout_policy: a new .grad gets the strides of its variable
  // when that is dense and non-overlapping, else contiguous ones (on by default).
  static bool layout_enforced();
  static void set_layout_enforced(bool enabled);

 private:
  Tensor variable_;
};

// Note [In-place on a view]: when an in-place op modifies a view of a tensor in the graph,
// the base's history becomes a CopySlices node: it hands the slice of the base's gradient
// that the view covers to the in-place op's node `fn`, writes fn's gradient for the view's
// old value back into that slice, and passes fn's other gradients through.
struct CopySlices final : Node {
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

 private:
  std::vector<int64_t> base_sizes_, base_strides_, view_sizes_, view_strides_;
  int64_t view_offset_ = 0;  // relative to the base's storage offset
  std::shared_ptr<Node> fn_;
};

}  // namespace tl::autograd
