#pragma once
// A number passed by value to an operator (Python bool/int/float/complex). Its kind decides its
// weak-type category in promotion (see TensorIterator's result_type).
#include <cstdint>
#include <ostream>

#include "aten/core/ScalarType.h"

namespace tl {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { v_.i = v; }
  Scalar(int v) : Scalar(static_cast<int64_t>(v)) {}
  Scalar(long v) : kind_(Kind::Int) { v_.i = static_cast<int64_t>(v); }
  Scalar(long long v) : kind_(Kind::Int) { v_.i = static_cast<int64_t>(v); }
  Scalar(double v) : kind_(Kind::Float) { v_.d = v; }
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  template <typename V>
  Scalar(std::complex<V> v) : kind_(Kind::Complex), im_(static_cast<double>(v.imag())) {
    v_.d = static_cast<double>(v.real());
  }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating_point() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  // A complex Scalar converts to a real type by its real part (as a cast of a tensor does).
  template <typename T>
  T to() const {
    if constexpr (is_complex_v<T>) {
      using V = typename T::value_type;
      return T(to<V>(), static_cast<V>(im_));
    } else {
      if (kind_ == Kind::Float || kind_ == Kind::Complex) return static_cast<T>(v_.d);
      return static_cast<T>(v_.i);
    }
  }
  std::complex<double> to_complex_double() const { return to<std::complex<double>>(); }
  double to_double() const { return to<double>(); }
  int64_t to_long() const { return to<int64_t>(); }

  // The dtype a tensor made from this scalar gets (torch.tensor(3.5) -> default dtype).
  ScalarType natural_dtype() const {
    return kind_ == Kind::Bool      ? ScalarType::Bool
           : kind_ == Kind::Int     ? ScalarType::Long
           : kind_ == Kind::Complex ? default_complex_dtype()
                                    : default_dtype();
  }
  bool equal(double v) const { return to_double() == v && (kind_ != Kind::Complex || im_ == 0); }

 private:
  Kind kind_;
  union {
    double d;
    int64_t i;
  } v_;
  double im_ = 0;  // imaginary part of a Complex scalar
};

template <> inline bool Scalar::to<bool>() const {
  if (kind_ == Kind::Complex) return v_.d != 0 || im_ != 0;
  return kind_ == Kind::Float ? v_.d != 0 : v_.i != 0;
}
template <> inline Half Scalar::to<Half>() const { return Half(to<float>()); }
template <> inline BFloat16 Scalar::to<BFloat16>() const { return BFloat16(to<float>()); }

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace tl
