#include "aten/core/ScalarType.h"

#include <iostream>

namespace tl {

const char* dtype_name(ScalarType t) {
  static const char* names[] = {"bool",  "uint8",    "int8",    "int16",   "int32",
                                "int64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"};
  return names[static_cast<int>(t)];
}

const char* scalar_type_cpp_name(ScalarType t) {
  static const char* names[] = {"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double",
                                "ComplexFloat", "ComplexDouble"};
  return names[static_cast<int>(t)];
}

void dtype_not_implemented(const char* what, ScalarType t) {
  TL_NOT_IMPLEMENTED("\"", what, "\" not implemented for '", scalar_type_cpp_name(t), "'");
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << "torchlite." << dtype_name(t); }

ScalarType promote_types(ScalarType a, ScalarType b) {
  // Same table as torch.promote_types, rows/cols in enum order.
  constexpr ScalarType b1 = ScalarType::Bool, u1 = ScalarType::Byte, i1 = ScalarType::Char,
                       i2 = ScalarType::Short, i4 = ScalarType::Int, i8 = ScalarType::Long,
                       f2 = ScalarType::Half, bf = ScalarType::BFloat16, f4 = ScalarType::Float,
                       f8 = ScalarType::Double, c4 = ScalarType::ComplexFloat, c8 = ScalarType::ComplexDouble;
  // Half and bfloat16 with complex give complex64: PyTorch's complex32 has no kernels to speak of.
  static constexpr ScalarType table[kNumScalarTypes][kNumScalarTypes] = {
      /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8  c4  c8 */
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

ScalarType to_complex_type(ScalarType t) {
  switch (t) {
    case ScalarType::Double:
    case ScalarType::ComplexDouble: return ScalarType::ComplexDouble;
    case ScalarType::Half:  // PyTorch gives complex32 for half, which torchlite does not have
    case ScalarType::BFloat16:
    case ScalarType::Float:
    case ScalarType::ComplexFloat: return ScalarType::ComplexFloat;
    default: TL_ERROR("to_complex is only supported for floating-point dtypes here, got ", t);
  }
}

static WarningHandler g_warning_handler = nullptr;
void set_warning_handler(WarningHandler h) { g_warning_handler = h; }
void warn(const std::string& msg) {
  if (g_warning_handler) g_warning_handler(msg);
  else std::cerr << "UserWarning: " << msg << "\n";
}

static ScalarType g_default_dtype = ScalarType::Float;
ScalarType default_dtype() { return g_default_dtype; }
void set_default_dtype(ScalarType t) {
  TL_CHECK_TYPE(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
                    t == ScalarType::BFloat16,
                "only floating-point types are supported as the default type, got ", t);
  g_default_dtype = t;
}

}  // namespace tl
