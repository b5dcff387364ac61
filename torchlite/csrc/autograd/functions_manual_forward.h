#pragma once
// Helpers of the forward-mode formulas (`result: ...`) in derivatives.yaml (Note [Forward AD]).
// Included by the generated autograd wrappers only, so that adding one recompiles only them.
// Each is built from differentiable operators: a tangent can itself be differentiated backward.
#include <optional>

#include "aten/core/Tensor.h"

namespace tl::autograd {

// t gathered at the indices a (values, indices) reduction over `dim` returned.
Tensor gather_with_keepdimed_indices(const Tensor& t, int64_t dim, const Tensor& indices, bool keepdim);
// The tangent of a reduction whose every output reads only the inputs reduced into it:
// d(output)/d(self) (its backward formula applied to ones) times self_t, summed over `dim`
// (all dims when empty or absent).
Tensor reduction_jvp(const Tensor& dself, const Tensor& self_t, std::optional<IntArrayRef> dim, bool keepdim);
Tensor reduction_jvp(const Tensor& dself, const Tensor& self_t, int64_t dim, bool keepdim);
Tensor softmax_jvp(const Tensor& result, const Tensor& self_t, int64_t dim);
Tensor log_softmax_jvp(const Tensor& result, const Tensor& self_t, int64_t dim);
Tensor layer_norm_jvp(const Tensor& input, const Tensor& input_t, IntArrayRef normalized_shape,
                      const std::optional<Tensor>& weight, const std::optional<Tensor>& weight_t,
                      const std::optional<Tensor>& bias_t, double eps);
Tensor batch_norm_jvp(const Tensor& input, const Tensor& input_t, const std::optional<Tensor>& weight,
                      const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t,
                      const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                      bool training, double eps);

}  // namespace tl::autograd
