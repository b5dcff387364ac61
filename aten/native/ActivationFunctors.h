#pragma once
// Functors of the activations (gelu, silu, elu, leaky_relu, softplus, hardtanh, threshold, the
// shrinks, hardsigmoid, hardswish, mish) and their
// backward ops: Note [Shared functors] (ElementwiseFunctors.h). Floating types only, as in
// PyTorch; opmath_t computes Half/BFloat16 in float.
#include <cmath>
#include <type_traits>

#include "aten/native/ElementwiseFunctors.h"

namespace tl::native {

constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kGeluBeta = 0.79788456080286535588;    // sqrt(2 / pi)
constexpr double kGeluKappa = 0.044715;

// gelu(x) = x Phi(x); approximate='tanh': 0.5 x (1 + tanh(u)) = x sigmoid(2u),
// u = sqrt(2/pi) (x + 0.044715 x^3).
template <typename T>
struct GeluFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x * op_t(0.5) * (op_t(1) + ew::erf(x * op_t(kSqrt1_2))));
  }
};
template <typename T>
struct GeluTanhFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    op_t u = op_t(kGeluBeta) * (x + op_t(kGeluKappa) * x * x * x);
    return static_cast<T>(x * ew::sigmoid(op_t(2) * u));
  }
};
// d/dx x Phi(x) = Phi(x) + x phi(x).
template <typename T>
struct GeluBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    op_t cdf = op_t(0.5) * (op_t(1) + ew::erf(x * op_t(kSqrt1_2)));
    op_t pdf = op_t(kInvSqrt2Pi) * ew::exp(op_t(-0.5) * x * x);
    return static_cast<T>(static_cast<op_t>(g) * (cdf + x * pdf));
  }
};
// d/dx 0.5 x (1 + t) = 0.5 (1 + t) + 0.5 x (1 - t^2) u', t = tanh(u) = 2 sigmoid(2u) - 1.
template <typename T>
struct GeluTanhBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    op_t x2 = x * x;
    op_t u = op_t(kGeluBeta) * (x + op_t(kGeluKappa) * x2 * x);
    op_t t = op_t(2) * ew::sigmoid(op_t(2) * u) - op_t(1);
    op_t du = op_t(kGeluBeta) * (op_t(1) + op_t(3 * kGeluKappa) * x2);
    return static_cast<T>(static_cast<op_t>(g) * op_t(0.5) * ((op_t(1) + t) + x * (op_t(1) - t * t) * du));
  }
};

template <typename T>
struct SiluFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x * ew::sigmoid(x));
  }
};
// d/dx x s(x) = s (1 + x (1 - s)).
template <typename T>
struct SiluBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    op_t s = ew::sigmoid(x);
    return static_cast<T>(static_cast<op_t>(g) * s * (op_t(1) + x * (op_t(1) - s)));
  }
};

// elu(x) = scale x for x > 0, scale alpha (e^(input_scale x) - 1) otherwise.
template <typename T>
struct EluFunctor {
  using op_t = opmath_t<T>;
  op_t alpha, scale, input_scale;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x > op_t(0) ? x * scale : std::expm1(x * input_scale) * alpha * scale);
  }
};
// With is_result the second input is elu's output y (y + alpha scale = alpha scale e^(..)).
template <typename T>
struct EluBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t alpha, scale, input_scale;
  bool is_result;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a), go = static_cast<op_t>(g);
    op_t neg = is_result ? input_scale * (x + alpha * scale) : input_scale * alpha * scale * ew::exp(x * input_scale);
    return static_cast<T>(x > op_t(0) ? go * scale : go * neg);
  }
};

template <typename T>
struct LeakyReluFunctor {
  using op_t = opmath_t<T>;
  op_t negative_slope;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x > op_t(0) ? x : x * negative_slope);
  }
};
template <typename T>
struct LeakyReluBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t negative_slope;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t go = static_cast<op_t>(g);
    return static_cast<T>(static_cast<op_t>(a) > op_t(0) ? go : go * negative_slope);
  }
};

// softplus(x) = log(1 + e^(beta x)) / beta, linear where beta x > threshold.
template <typename T>
struct SoftplusFunctor {
  using op_t = opmath_t<T>;
  op_t beta, threshold;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a), bx = x * beta;
    return static_cast<T>(bx > threshold ? x : std::log1p(std::exp(bx)) / beta);
  }
};
template <typename T>
struct SoftplusBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t beta, threshold;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t bx = static_cast<op_t>(a) * beta, go = static_cast<op_t>(g);
    return static_cast<T>(bx > threshold ? go : go * ew::sigmoid(bx));
  }
};

template <typename T>
struct HardtanhBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t min_val, max_val;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x <= min_val || x >= max_val ? op_t(0) : static_cast<op_t>(g));
  }
};

// threshold(x) = value where x <= threshold, else x; also for integer types, as in PyTorch.
template <typename T>
struct ThresholdFunctor {
  using op_t = opmath_t<T>;
  op_t threshold, value;
  TL_HOST_DEVICE T operator()(T a) const {
    return static_cast<op_t>(a) <= threshold ? static_cast<T>(value) : a;
  }
};
template <typename T>
struct ThresholdBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t threshold;
  TL_HOST_DEVICE T operator()(T g, T a) const { return static_cast<op_t>(a) <= threshold ? T(0) : g; }
};

// hardshrink zeroes [-lambd, lambd]; softshrink also moves the rest lambd towards 0. Both pass
// the gradient outside that interval.
template <typename T>
struct HardshrinkFunctor {
  using op_t = opmath_t<T>;
  op_t lambd;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return (x >= -lambd && x <= lambd) ? T(0) : a;
  }
};
template <typename T>
struct SoftshrinkFunctor {
  using op_t = opmath_t<T>;
  op_t lambd;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x > lambd ? x - lambd : (x < -lambd ? x + lambd : x * op_t(0)));  // keeps -0
  }
};
template <typename T>
struct ShrinkBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t lambd;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    return (x >= -lambd && x <= lambd) ? T(0) : g;
  }
};

// hardsigmoid(x) = clamp(x + 3, 0, 6) / 6; hardswish(x) = x hardsigmoid(x).
template <typename T>
struct HardsigmoidFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a) + op_t(3);
    return static_cast<T>((x < op_t(0) ? op_t(0) : (x > op_t(6) ? op_t(6) : x)) / op_t(6));
  }
};
template <typename T>
struct HardsigmoidBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>((x > op_t(-3) && x < op_t(3)) ? static_cast<op_t>(g) / op_t(6) : op_t(0));
  }
};
template <typename T>
struct HardswishFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a), y = x + op_t(3);
    return static_cast<T>(x * (y < op_t(0) ? op_t(0) : (y > op_t(6) ? op_t(6) : y)) / op_t(6));
  }
};
// d/dx: 0 up to -3, x / 3 + 1/2 strictly between -3 and 3, 1 from 3 (PyTorch's choice at the
// two kinks).
template <typename T>
struct HardswishBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a), go = static_cast<op_t>(g);
    return static_cast<T>(x <= op_t(-3) ? op_t(0) : (x < op_t(3) ? go * (x / op_t(3) + op_t(0.5)) : go));
  }
};

// mish(x) = x tanh(softplus(x)); d/dx = t + x s (1 - t^2), t = tanh(softplus(x)), s = sigmoid(x).
template <typename T>
struct MishFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x * std::tanh(std::log1p(ew::exp(x))));
  }
};
template <typename T>
struct MishBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    op_t t = std::tanh(std::log1p(ew::exp(x)));
    return static_cast<T>(static_cast<op_t>(g) * (t + x * ew::sigmoid(x) * (op_t(1) - t * t)));
  }
};

}  // namespace tl::native
