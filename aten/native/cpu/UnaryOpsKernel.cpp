// CPU kernels of unary elementwise ops and clamp (Note [Elementwise kernel helper]).
#include <limits>

#include "aten/native/UnaryOps.h"
#include "aten/native/cpu/ElementwiseKernel.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

// Same dtype out as in.
Tensor abs_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<AbsFunctor, Types::NoBool>(unary_op_iter("abs", out, self), "abs_cpu");
}
Tensor sign_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<SignFunctor>(unary_op_iter("sign", out, self), "sign_cpu");
}
Tensor floor_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<FloorFunctor, Types::NoBool>(unary_op_iter("floor", out, self), "floor_cpu");
}
Tensor ceil_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<CeilFunctor, Types::NoBool>(unary_op_iter("ceil", out, self), "ceil_cpu");
}
Tensor round_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<RoundFunctor, Types::NoBool>(unary_op_iter("round", out, self), "round_cpu");
}
Tensor trunc_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<TruncFunctor, Types::NoBool>(unary_op_iter("trunc", out, self), "trunc_cpu");
}
Tensor bitwise_not_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<BitwiseNotFunctor, Types::Integral>(unary_op_iter("bitwise_not", out, self), "bitwise_not_cpu");
}
Tensor logical_not_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<LogicalNotFunctor>(unary_bool_op_iter("logical_not", out, self), "logical_not_cpu");
}
// Integer inputs compute in the default float dtype.
Tensor exp_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<ExpFunctor, Types::Floating>(unary_float_op_iter("exp", out, self), "exp_cpu");
}
Tensor log_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<LogFunctor, Types::Floating>(unary_float_op_iter("log", out, self), "log_cpu");
}
Tensor log1p_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<Log1pFunctor, Types::Floating>(unary_float_op_iter("log1p", out, self), "log1p_cpu");
}
Tensor expm1_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<Expm1Functor, Types::Floating>(unary_float_op_iter("expm1", out, self), "expm1_cpu");
}
Tensor sqrt_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<SqrtFunctor, Types::Floating>(unary_float_op_iter("sqrt", out, self), "sqrt_cpu");
}
Tensor rsqrt_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<RsqrtFunctor, Types::Floating>(unary_float_op_iter("rsqrt", out, self), "rsqrt_cpu");
}
Tensor sin_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<SinFunctor, Types::Floating>(unary_float_op_iter("sin", out, self), "sin_cpu");
}
Tensor cos_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<CosFunctor, Types::Floating>(unary_float_op_iter("cos", out, self), "cos_cpu");
}
Tensor tan_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<TanFunctor, Types::Floating>(unary_float_op_iter("tan", out, self), "tan_cpu");
}
Tensor tanh_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<TanhFunctor, Types::Floating>(unary_float_op_iter("tanh", out, self), "tanh_cpu");
}
Tensor sigmoid_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<SigmoidFunctor, Types::Floating>(unary_float_op_iter("sigmoid", out, self), "sigmoid_cpu");
}
Tensor reciprocal_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<ReciprocalFunctor, Types::Floating>(unary_float_op_iter("reciprocal", out, self), "reciprocal_cpu");
}

Tensor neg_out_cpu(const Tensor& self, const Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool,
           "Negation, the `-` operator, on a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  TensorIterator iter = unary_op_iter("neg", out, self);
  elementwise_kernel<NegFunctor, Types::NoBool>(iter, "neg_cpu");
  return iter.output();
}

namespace {

Tensor relu_into(const Tensor& self, const Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
  TensorIterator iter = unary_op_iter("relu", out, self);
  elementwise_kernel<ReluFunctor, Types::NoBool>(iter, "relu_cpu");
  return iter.output();
}

}  // namespace

Tensor relu_cpu(const Tensor& self) { return relu_into(self, Tensor()); }
Tensor relu_cpu_(const Tensor& self) { return relu_into(self, self); }

Tensor clamp_out_cpu(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                     const Tensor& out) {
  ScalarType dtype = clamp_result_type(self, min, max);
  TensorIterator iter = unary_op_iter_with_dtype("clamp", out, self, dtype);
  dispatch_types<Types::All>(dtype, "clamp_cpu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    // Bounds outside T's range saturate instead of wrapping.
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
    cpu_kernel(iter, ClampFunctor<T>{bound(min, false), bound(max, true)});
  });
  return iter.output();
}

}  // namespace tl::native
