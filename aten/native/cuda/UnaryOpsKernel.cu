// CUDA kernels of unary elementwise ops and clamp: the twin of cpu/UnaryOpsKernel.cpp
// (same iterators, dtype sets and functors; gpu_kernel for cpu_kernel).
#include <limits>

#include "aten/native/UnaryOps.h"
#include "aten/native/cuda/ElementwiseKernel.cuh"
#include "generated/NativeFunctions.h"

namespace tl::native {

// Same dtype out as in.
Tensor abs_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<AbsFunctor, Types::NoBool>(unary_op_iter("abs", out, self), "abs_cuda");
}
Tensor sign_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<SignFunctor, Types::All>(unary_op_iter("sign", out, self), "sign_cuda");
}
Tensor floor_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<FloorFunctor, Types::NoBool>(unary_op_iter("floor", out, self), "floor_cuda");
}
Tensor ceil_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<CeilFunctor, Types::NoBool>(unary_op_iter("ceil", out, self), "ceil_cuda");
}
Tensor round_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<RoundFunctor, Types::NoBool>(unary_op_iter("round", out, self), "round_cuda");
}
Tensor trunc_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<TruncFunctor, Types::NoBool>(unary_op_iter("trunc", out, self), "trunc_cuda");
}
Tensor bitwise_not_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<BitwiseNotFunctor, Types::Integral>(unary_op_iter("bitwise_not", out, self), "bitwise_not_cuda");
}
Tensor logical_not_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<LogicalNotFunctor, Types::All>(unary_bool_op_iter("logical_not", out, self), "logical_not_cuda");
}
// Integer inputs compute in the default float dtype.
Tensor exp_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<ExpFunctor, Types::Floating>(unary_float_op_iter("exp", out, self), "exp_cuda");
}
Tensor log_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<LogFunctor, Types::Floating>(unary_float_op_iter("log", out, self), "log_cuda");
}
Tensor log1p_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<Log1pFunctor, Types::Floating>(unary_float_op_iter("log1p", out, self), "log1p_cuda");
}
Tensor expm1_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<Expm1Functor, Types::Floating>(unary_float_op_iter("expm1", out, self), "expm1_cuda");
}
Tensor sqrt_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<SqrtFunctor, Types::Floating>(unary_float_op_iter("sqrt", out, self), "sqrt_cuda");
}
Tensor rsqrt_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<RsqrtFunctor, Types::Floating>(unary_float_op_iter("rsqrt", out, self), "rsqrt_cuda");
}
Tensor sin_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<SinFunctor, Types::Floating>(unary_float_op_iter("sin", out, self), "sin_cuda");
}
Tensor cos_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<CosFunctor, Types::Floating>(unary_float_op_iter("cos", out, self), "cos_cuda");
}
Tensor tan_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<TanFunctor, Types::Floating>(unary_float_op_iter("tan", out, self), "tan_cuda");
}
Tensor tanh_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<TanhFunctor, Types::Floating>(unary_float_op_iter("tanh", out, self), "tanh_cuda");
}
Tensor sigmoid_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<SigmoidFunctor, Types::Floating>(unary_float_op_iter("sigmoid", out, self), "sigmoid_cuda");
}
Tensor reciprocal_out_cuda(const Tensor& self, const Tensor& out) {
  return run_gpu_kernel<ReciprocalFunctor, Types::Floating>(unary_float_op_iter("reciprocal", out, self), "reciprocal_cuda");
}

Tensor neg_out_cuda(const Tensor& self, const Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool,
           "Negation, the `-` operator, on a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return run_gpu_kernel<NegFunctor, Types::NoBool>(unary_op_iter("neg", out, self), "neg_cuda");
}

namespace {

Tensor relu_into_cuda(const Tensor& self, const Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
  return run_gpu_kernel<ReluFunctor, Types::NoBool>(unary_op_iter("relu", out, self), "relu_cuda");
}

}  // namespace

Tensor relu_cuda(const Tensor& self) { return relu_into_cuda(self, Tensor()); }
Tensor relu_cuda_(const Tensor& self) { return relu_into_cuda(self, self); }

Tensor clamp_out_cuda(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                      const Tensor& out) {
  ScalarType dtype = clamp_result_type(self, min, max);
  TensorIterator iter = unary_op_iter_with_dtype("clamp", out, self, dtype);
  dispatch_types<Types::All>(dtype, "clamp_cuda", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    // Bounds outside T's range saturate instead of wrapping (as on the CPU).
    auto bound = [](const std::optional<Scalar>& s, bool upper) -> op_t {
      constexpr op_t lo = std::numeric_limits<T>::is_integer ? static_cast<op_t>(std::numeric_limits<T>::lowest())
                                                             : -std::numeric_limits<op_t>::infinity();
      constexpr op_t hi = std::numeric_limits<T>::is_integer ? static_cast<op_t>(std::numeric_limits<T>::max())
                                                             : std::numeric_limits<op_t>::infinity();
      if (!s) return upper ? hi : lo;
      if constexpr (std::numeric_limits<T>::is_integer) {
        double v = s->to_double();
        if (v <= static_cast<double>(lo)) return lo;
        if (v >= static_cast<double>(hi)) return hi;
        return s->template to<op_t>();
      } else {
        return s->template to<op_t>();
      }
    };
    gpu_kernel(iter, ClampFunctor<T>{bound(min, false), bound(max, true)});
  });
  return iter.output();
}

}  // namespace tl::native
