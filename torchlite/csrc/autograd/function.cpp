#include "torchlite/csrc/autograd/function.h"

#include <atomic>

#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/add.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/fill.h"
#include "torchlite/csrc/autograd/engine.h"
#include "torchlite/csrc/autograd/variable.h"

namespace tl::autograd {

namespace {
std::atomic<uint64_t> sequence_counter{0};
}  // namespace

uint64_t next_sequence_nr() { return sequence_counter.fetch_add(1, std::memory_order_relaxed); }
uint64_t peek_sequence_nr() { return sequence_counter.load(std::memory_order_relaxed); }

int next_hook_id() {
  static std::atomic<int> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

Tensor InputMetadata::zeros() const {
  Tensor z = empty_tensor(sizes, TensorOptions(dtype, device));
  z.fill_(0);
  return z;
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  InputMetadata m;
  m.sizes = t.sizes().vec();
  m.dtype = t.dtype();
  m.device = t.device();
  m.defined = true;
  input_metadata_.push_back(std::move(m));
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

uint32_t Node::add_input_metadata_undefined() {
  input_metadata_.emplace_back();
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

bool Node::should_compute_output(size_t i) const {
  return i < next_edges_.size() && next_edges_[i].is_valid() && task_should_compute(next_edges_[i]);
}

bool Node::should_compute_output(std::initializer_list<std::pair<size_t, size_t>> ranges) const {
  for (const auto& r : ranges)
    for (size_t i = r.first; i < r.second; ++i)
      if (should_compute_output(i)) return true;
  return false;
}

int Node::add_tensor_pre_hook(uint32_t input_nr, TensorHook h) {
  int id = next_hook_id();
  tensor_pre_hooks_.push_back({id, {input_nr, std::move(h)}});
  return id;
}

void Node::set_retains_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> h) {
  for (auto& p : retains_grad_hooks_) {
    if (p.first == input_nr) {
      p.second = std::move(h);
      return;
    }
  }
  retains_grad_hooks_.push_back({input_nr, std::move(h)});
}

int Node::add_pre_hook(PreHook h) {
  int id = next_hook_id();
  pre_hooks_.push_back({id, std::move(h)});
  return id;
}

int Node::add_post_hook(PostHook h) {
  int id = next_hook_id();
  post_hooks_.push_back({id, std::move(h)});
  return id;
}

bool Node::remove_hook(int id) {
  auto erase = [id](auto& v) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it->first == id) {
        v.erase(it);
        return true;
      }
    }
    return false;
  };
  return erase(tensor_pre_hooks_) || erase(pre_hooks_) || erase(post_hooks_);
}

void Node::run_pre_hooks(variable_list& grads) {
  for (size_t k = 0; k < tensor_pre_hooks_.size(); ++k) {
    auto hook = tensor_pre_hooks_[k].second;  // copy: a hook may remove itself
    uint32_t i = hook.first;
    if (i < grads.size() && grads[i].defined()) {
      Tensor r = hook.second(grads[i]);
      if (r.defined()) grads[i] = r;
    }
  }
  for (auto& [i, h] : retains_grad_hooks_)
    if (i < grads.size() && grads[i].defined()) h(grads[i]);
  for (size_t k = 0; k < pre_hooks_.size(); ++k) {
    auto hook = pre_hooks_[k].second;
    variable_list r = hook(grads);
    if (!r.empty()) grads = std::move(r);
  }
}

variable_list Node::run_post_hooks(variable_list&& outputs, const variable_list& inputs) {
  for (size_t k = 0; k < post_hooks_.size(); ++k) {
    auto hook = post_hooks_[k].second;
    variable_list r = hook(outputs, inputs);
    if (!r.empty()) outputs = std::move(r);
  }
  return std::move(outputs);
}

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_sizes_(base.sizes().vec()), base_strides_(base.strides().vec()), view_sizes_(view.sizes().vec()),
      view_strides_(view.strides().vec()), view_offset_(view.storage_offset() - base.storage_offset()),
      fn_(std::move(fn)) {
  edge_list edges{gradient_edge(base)};
  const edge_list& fe = fn_->next_edges();
  for (size_t i = 1; i < fe.size(); ++i) edges.push_back(fe[i]);
  // fn's gradient for the view is wanted exactly when the base's is (should_compute_output).
  edge_list fn_edges = fe;
  if (!fn_edges.empty()) fn_edges[0] = edges[0];
  fn_->set_next_edges(std::move(fn_edges));
  set_next_edges(std::move(edges));
}

variable_list CopySlices::apply(variable_list&& grads) {
  variable_list out(num_outputs());
  if (grads.empty() || !grads[0].defined()) return out;
  const Tensor& grad = grads[0];
  Tensor result = empty_strided_tensor(base_sizes_, base_strides_, grad.options());
  result.copy_(grad);
  Tensor slice = result.as_strided(view_sizes_, view_strides_, view_offset_);
  variable_list res = fn_->apply({slice.clone()});
  if (res.empty() || !res[0].defined()) {
    slice.fill_(0);
  } else {
    slice.copy_(res[0]);
  }
  out[0] = result;
  for (size_t i = 1; i < res.size() && i < out.size(); ++i) out[i] = res[i];
  return out;
}

variable_list NotImplemented::apply(variable_list&&) {
  TL_NOT_IMPLEMENTED("the derivative for '", op_, "' is not implemented.");
}

variable_list Error::apply(variable_list&&) { TL_ERROR(msg_); }

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  sequence_nr_ = UINT64_MAX;  // run as soon as ready (Note [Autograd graph])
  add_input_metadata(variable_);
}

void AccumulateGrad::run_pre_hooks(variable_list& grads) {
  AutogradMeta* m = get_meta(variable_);
  if (m != nullptr && !grads.empty() && grads[0].defined()) {
    auto hooks = m->hooks_;  // copy: hooks may be added or removed while running
    for (auto& [id, h] : hooks) {
      Tensor r = h(grads[0]);
      if (r.defined()) grads[0] = r;
    }
  }
  Node::run_pre_hooks(grads);
}

namespace {

std::atomic<bool> grad_layout_enforced{true};

bool non_overlapping_and_dense(const Tensor& t) { return native::is_non_overlapping_and_dense(t.sizes(), t.strides()); }

// The layout a new .grad must have under the policy: its variable's strides (dims of size 1
// aside) when the variable is dense, contiguous otherwise.
bool obeys_layout_contract(const Tensor& variable, const Tensor& grad) {
  if (!AccumulateGrad::layout_enforced()) return true;
  if (!non_overlapping_and_dense(variable)) return grad.is_contiguous();
  for (int64_t d = 0; d < variable.dim(); ++d)
    if (variable.sizes()[d] != 1 && variable.strides()[d] != grad.strides()[d]) return false;
  return true;
}

// Whether nobody else holds grad's memory, so AccumulateGrad may keep it as .grad. A view counts
// when the base it keeps alive is held by it alone (linear's weight gradient is the transpose of
// a product computed for it).
bool exclusively_owned(const Tensor& grad) {
  if (grad.impl_ptr().use_count() != 1) return false;
  const auto& storage = grad.impl()->storage();
  const AutogradMeta* m = get_meta(grad);
  if (m == nullptr || !m->is_view_ || !m->base_.defined()) return storage.use_count() == 1;
  return m->base_.impl_ptr().use_count() == 1 && m->base_.impl()->storage() == storage && storage.use_count() == 2;
}

}  // namespace

bool AccumulateGrad::layout_enforced() { return grad_layout_enforced.load(std::memory_order_relaxed); }

void AccumulateGrad::set_layout_enforced(bool enabled) { grad_layout_enforced = enabled; }

void AccumulateGrad::accumulate(const Tensor& variable, Tensor new_grad) {
  AutogradMeta* m = materialize_meta(variable);
  Tensor& g = m->grad_;
  if (!g.defined()) {
    // Steal a fresh gradient nobody else holds; otherwise store a copy (which records
    // history when grad mode is on, i.e. under create_graph), laid out as the policy asks.
    bool obeys = obeys_layout_contract(variable, new_grad);
    if (!GradMode::is_enabled() && obeys && !requires_grad(new_grad) && exclusively_owned(new_grad)) {
      g = make_detached(new_grad);
    } else if (obeys) {
      g = new_grad.clone();
    } else if (non_overlapping_and_dense(variable)) {
      g = empty_strided_tensor(variable.sizes(), variable.strides(), new_grad.options());
      g.copy_(new_grad);
    } else {
      g = new_grad.contiguous().clone();
    }
  } else if (!GradMode::is_enabled()) {
    if (g.sizes().equals(new_grad.sizes()) && !requires_grad(g)) {
      g.add_(new_grad);
    } else {
      g = tl::add(g, new_grad);
    }
  } else {
    g = tl::add(g, new_grad);
  }
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  accumulate(variable_, std::move(grads[0]));
  auto hooks = get_meta(variable_)->post_acc_grad_hooks_;  // copy: a hook may remove itself
  for (auto& [id, h] : hooks) h(variable_);
  return {};
}

}  // namespace tl::autograd
