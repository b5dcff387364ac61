#include "aten/core/ScalarType.h"

namespace tl {

const char* dtype_name(ScalarType t) {
  static const char* names[] = {"bool",  "uint8",    "int8",    "int16",   "int32",
                                "int64", "float16", "bfloat16", "float32", "float64"};
  return names[static_cast<int>(t)];
}

const char* scalar_type_cpp_name(ScalarType t) {
  static const char* names[] = {"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"};
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
                       f8 = ScalarType::Double;
  static constexpr ScalarType table[kNumScalarTypes][kNumScalarTypes] = {
      /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
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
