#pragma once
// The backward engine: counts, for every Node reachable from the roots, how many edges lead
// to it, then runs Nodes from a ready queue (highest sequence number first, i.e. roughly the
// reverse of creation order) once all the gradients flowing into them have arrived.
#include "torchlite/csrc/autograd/function.h"

namespace tl::autograd {

// Runs a backward pass from `roots` seeded with `grads`. With `outputs` non-empty, returns
// the gradients arriving at those edges (autograd.grad) and runs only the Nodes needed for
// them; otherwise runs everything (AccumulateGrad fills .grad) and returns nothing.
variable_list execute(const edge_list& roots, const variable_list& grads, bool keep_graph, bool create_graph,
                      const edge_list& outputs);

// Tensor-level entry used by Tensor.backward / autograd.backward / autograd.grad. `inputs`:
// the gradient edges wanted (none: every leaf); their gradients are returned, or, with
// `accumulate_into` (one tensor per input, as backward(inputs=...)), added into those .grad.
variable_list run_backward(const variable_list& tensors, const variable_list& grad_tensors, bool keep_graph,
                           bool create_graph, const edge_list& inputs, bool allow_unused,
                           const variable_list& accumulate_into);

// Whether the running backward pass needs the gradient for `e` (true outside a pass).
bool task_should_compute(const Edge& e);

// Id of the backward pass running on this thread, -1 outside one (register_multi_grad_hook
// keeps its per-pass state under it).
int64_t current_graph_task_id();

// False inside a backward pass that computes only some gradients (autograd.grad, or backward
// with `inputs`): a reentrant checkpoint's inner backward would accumulate into every leaf.
bool is_checkpoint_valid();

// Whether the running backward pass will run `node` (torch._C._will_engine_execute_node).
bool will_execute_node(const Node* node);

}  // namespace tl::autograd
