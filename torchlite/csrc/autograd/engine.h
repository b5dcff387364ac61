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

// Tensor-level entry used by Tensor.backward / autograd.backward / autograd.grad.
variable_list run_backward(const variable_list& tensors, const variable_list& grad_tensors, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused, bool accumulate_grad);

// Whether the running backward pass needs the gradient for `e` (true outside a pass).
bool task_should_compute(const Edge& e);

}  // namespace tl::autograd
