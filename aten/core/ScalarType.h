#pragma once
// The dtypes torchlite knows, their C++ types, and the dispatch helper that turns a runtime
// dtype into a compile-time type for kernels.
#include <complex>
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Half.h"

namespace tl {

// Order matters: it is the index into the promotion table in ScalarType.cpp.
enum class ScalarType : int8_t {
  Bool, Byte, Char, Short, Int, Long, Half, BFloat16, Float, Double, ComplexFloat, ComplexDouble
};
constexpr int kNumScalarTypes = 12;

template <ScalarType S> struct ScalarTypeToCpp;
template <typename T> struct CppToScalarType;
#define TL_FORALL_SCALAR_TYPES(_) \
  _(bool, Bool)                   \
  _(uint8_t, Byte)                \
  _(int8_t, Char)                 \
  _(int16_t, Short)               \
  _(int32_t, Int)                 \
  _(int64_t, Long)                \
  _(::tl::Half, Half)             \
  _(::tl::BFloat16, BFloat16)     \
  _(float, Float)                 \
  _(double, Double)
// Note [Complex dtypes]: complex64/complex128 are std::complex on the host. They are not in
// TypeSet::All: a kernel runs for them only when its TypeSet names complex (the *Complex sets
// below), and never in a CUDA translation unit in this phase, so a complex CUDA op raises the
// dtype error instead of running a loop nobody wrote for it.
#define TL_FORALL_COMPLEX_TYPES(_)           \
  _(std::complex<float>, ComplexFloat)       \
  _(std::complex<double>, ComplexDouble)
#define TL_DEFINE_TYPE_MAP(cpp, name)                                                        \
  template <> struct ScalarTypeToCpp<ScalarType::name> { using type = cpp; };               \
  template <> struct CppToScalarType<cpp> { static constexpr ScalarType value = ScalarType::name; };
TL_FORALL_SCALAR_TYPES(TL_DEFINE_TYPE_MAP)
TL_FORALL_COMPLEX_TYPES(TL_DEFINE_TYPE_MAP)
#undef TL_DEFINE_TYPE_MAP

template <typename T> struct IsComplex : std::false_type {};
template <typename T> struct IsComplex<std::complex<T>> : std::true_type {};
template <typename T> inline constexpr bool is_complex_v = IsComplex<T>::value;

inline size_t element_size(ScalarType t) {
  static constexpr size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return sizes[static_cast<int>(t)];
}
inline bool is_complex(ScalarType t) { return t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble; }
// complex64 <-> float32, complex128 <-> float64 (dtype.to_real() / to_complex()).
inline ScalarType to_real_type(ScalarType t) {
  return t == ScalarType::ComplexFloat ? ScalarType::Float : t == ScalarType::ComplexDouble ? ScalarType::Double : t;
}
ScalarType to_complex_type(ScalarType t);
inline bool is_floating_point(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 || t == ScalarType::Float || t == ScalarType::Double;
}
// Half and BFloat16: kernels that have no loop for them run in float and convert back.
inline bool low_precision(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
inline bool is_integral(ScalarType t, bool include_bool) {
  return (include_bool && t == ScalarType::Bool) || (t >= ScalarType::Byte && t <= ScalarType::Long);
}
// PyTorch-style name: "float32", "int64", ...
const char* dtype_name(ScalarType t);
// The C++ type name PyTorch prints in dtype errors: 'Float', 'Long', 'Bool'.
const char* scalar_type_cpp_name(ScalarType t);
// The one error for a dtype an operator has no kernel for, as PyTorch raises it:
// NotImplementedError: "<what>" not implemented for '<Type>'.
[[noreturn]] void dtype_not_implemented(const char* what, ScalarType t);
std::ostream& operator<<(std::ostream& os, ScalarType t);

// The dtype two operands of equal priority promote to (torch.promote_types).
ScalarType promote_types(ScalarType a, ScalarType b);

// Default dtype for Python floats (torch.get_default_dtype()).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);
// The complex dtype a Python complex gets (complex64 for a float32 default, like PyTorch).
inline ScalarType default_complex_dtype() { return to_complex_type(default_dtype()); }

// Type used to accumulate / compute on values of T: half types compute in float.
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <typename T> using opmath_t = typename OpMath<T>::type;

template <typename T> struct TypeTag { using type = T; };

// Note [Dtype dispatch]: dispatch_types<Set>(dtype, what, f) calls `f(TypeTag<T>{})` with the
// C++ type T of a runtime dtype, if the dtype is in Set; any other dtype raises the one
// dtype error (dtype_not_implemented, naming `what`). It is the only dtype switch: the
// dispatch_*_types names below are its common sets.
enum class TypeSet {
  All,         // every dtype
  NoBool,      // all but bool (sub, neg, abs... reject bool as PyTorch does)
  Integral,    // bool and the integer types (bitwise ops)
  Floating,    // Half, BFloat16, Float, Double
  FloatDouble,  // kernels that convert half precision to float before they run
  // Note [Complex dtypes]: the sets that add complex64/complex128 to the ones above.
  Complex,             // complex only
  AllAndComplex,       // every dtype
  NoBoolAndComplex,    // all but bool
  FloatingAndComplex,  // floating and complex
};

template <TypeSet S, typename T>
constexpr bool in_type_set() {
  constexpr bool is_float = std::is_same_v<T, float> || std::is_same_v<T, double>;
  constexpr bool is_half = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
  constexpr bool is_cplx = is_complex_v<T>;
#ifdef __CUDACC__
  if constexpr (is_cplx) return false;  // no complex CUDA loops yet (Note [Complex dtypes])
#endif
  if constexpr (S == TypeSet::All) return !is_cplx;
  else if constexpr (S == TypeSet::NoBool) return !std::is_same_v<T, bool> && !is_cplx;
  else if constexpr (S == TypeSet::Integral) return !is_float && !is_half && !is_cplx;
  else if constexpr (S == TypeSet::Floating) return is_float || is_half;
  else if constexpr (S == TypeSet::FloatDouble) return is_float;
  else if constexpr (S == TypeSet::Complex) return is_cplx;
  else if constexpr (S == TypeSet::AllAndComplex) return true;
  else if constexpr (S == TypeSet::NoBoolAndComplex) return !std::is_same_v<T, bool>;
  else return is_float || is_half || is_cplx;
}

template <TypeSet S, typename F>
decltype(auto) dispatch_types(ScalarType t, const char* what, F&& f) {
#define TL_DTYPE_CASE(cpp, name)                                     \
  case ScalarType::name:                                             \
    if constexpr (in_type_set<S, cpp>()) return f(TypeTag<cpp>{});   \
    break;
  switch (t) {
    TL_FORALL_SCALAR_TYPES(TL_DTYPE_CASE)
    TL_FORALL_COMPLEX_TYPES(TL_DTYPE_CASE)
  }
#undef TL_DTYPE_CASE
  dtype_not_implemented(what, t);
}

template <typename F>
decltype(auto) dispatch_all_types(ScalarType t, const char* what, F&& f) {
  return dispatch_types<TypeSet::All>(t, what, std::forward<F>(f));
}
// Data movement and conversions (copy, item, fill, printing) that every dtype supports.
template <typename F>
decltype(auto) dispatch_all_types_and_complex(ScalarType t, const char* what, F&& f) {
  return dispatch_types<TypeSet::AllAndComplex>(t, what, std::forward<F>(f));
}
template <typename F>
decltype(auto) dispatch_floating_types(ScalarType t, const char* what, F&& f) {
  return dispatch_types<TypeSet::Floating>(t, what, std::forward<F>(f));
}
template <typename F>
decltype(auto) dispatch_float_double(ScalarType t, const char* what, F&& f) {
  return dispatch_types<TypeSet::FloatDouble>(t, what, std::forward<F>(f));
}
template <typename F>
decltype(auto) dispatch_integral_types(ScalarType t, const char* what, F&& f) {
  return dispatch_types<TypeSet::Integral>(t, what, std::forward<F>(f));
}
template <typename F>
decltype(auto) dispatch_numeric_types(ScalarType t, const char* what, F&& f) {
  return dispatch_types<TypeSet::NoBool>(t, what, std::forward<F>(f));
}
// For kernels that only move elements (gathers, copies): f(U{}) with U the unsigned integer as
// wide as one element (1, 2, 4 or 8 bytes), so every dtype shares four instantiations.
template <typename F>
decltype(auto) dispatch_by_element_size(size_t element_size, F&& f) {
  switch (element_size) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    default:
      TL_CHECK(element_size == 8, "dispatch_by_element_size: unsupported element size ", element_size);
      return f(uint64_t{});
  }
}

}  // namespace tl
