// Linear algebra: argument checks for mm/bmm (kernels in cpu/GemmKernel.cpp); matmul, a composite
// over mm/bmm and views that follows torch.matmul's case analysis; addmm/baddbmm/addmv (a product
// plus a scaled term), mv, dot, vdot, outer/ger, linear, bilinear, einsum and trace. All but
// mm/bmm are device-generic composites, so the GEMM kernels do the heavy lifting.
#include "aten/native/LinearAlgebra.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "aten/native/ShapeUtils.h"
#include "aten/native/TensorIterator.h"
#include "generated/ops/add.h"
#include "generated/ops/addmm.h"
#include "generated/ops/addmm_native.h"
#include "generated/ops/addmv.h"
#include "generated/ops/addmv_native.h"
#include "generated/ops/baddbmm.h"
#include "generated/ops/baddbmm_native.h"
#include "generated/ops/bilinear.h"
#include "generated/ops/bilinear_native.h"
#include "generated/ops/bmm.h"
#include "generated/ops/complex.h"
#include "generated/ops/conj.h"
#include "generated/ops/copy.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/dot.h"
#include "generated/ops/dot_native.h"
#include "generated/ops/einsum.h"
#include "generated/ops/einsum_native.h"
#include "generated/ops/empty.h"
#include "generated/ops/expand.h"
#include "generated/ops/full.h"
#include "generated/ops/full_native.h"
#include "generated/ops/linear.h"
#include "generated/ops/linear_native.h"
#include "generated/ops/matmul.h"
#include "generated/ops/matmul_native.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/mv.h"
#include "generated/ops/mv_native.h"
#include "generated/ops/outer.h"
#include "generated/ops/outer_native.h"
#include "generated/ops/permute.h"
#include "generated/ops/real.h"
#include "generated/ops/imag.h"
#include "generated/ops/reshape.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/to.h"
#include "generated/ops/trace.h"
#include "generated/ops/trace_native.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/vdot.h"
#include "generated/ops/vdot_native.h"
#include "generated/ops/view.h"

namespace tl::native {

namespace {

std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  for (size_t i = 0; i < s.size(); ++i) os << (i ? "x" : "") << s[i];
  return os.str();
}

void check_out(const Tensor& out, ScalarType dt) {
  TL_CHECK(!out.defined() || out.dtype() == dt, "Expected out tensor to have dtype ", dtype_name(dt), ", but got ",
           dtype_name(out.dtype()), " instead");
}

void check_not_bool(const Tensor& t) {
  if (t.dtype() == ScalarType::Bool) TL_NOT_IMPLEMENTED("\"addmm_impl_cpu_\" not implemented for 'Bool'");
}

}  // namespace

void check_mm_args(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  TL_CHECK(self.dim() == 2, "self must be a matrix");
  TL_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TL_CHECK(self.sizes()[1] == mat2.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (",
           shape_str(self.sizes()), " and ", shape_str(mat2.sizes()), ")");
  TL_CHECK(self.dtype() == mat2.dtype(), "expected m1 and m2 to have the same dtype, but got: ",
           dtype_name(self.dtype()), " != ", dtype_name(mat2.dtype()));
  check_not_bool(self);
  check_out(out, self.dtype());
}

void check_bmm_args(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  TL_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  TL_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  TL_CHECK(self.sizes()[0] == mat2.sizes()[0] && self.sizes()[2] == mat2.sizes()[1],
           "Expected size for first two dimensions of batch2 tensor to be: [", self.sizes()[0], ", ",
           self.sizes()[2], "] but got: [", mat2.sizes()[0], ", ", mat2.sizes()[1], "].");
  TL_CHECK(self.dtype() == mat2.dtype(), "expected scalar type ", dtype_name(self.dtype()), " but found ",
           dtype_name(mat2.dtype()));
  check_not_bool(self);
  check_out(out, self.dtype());
}

Tensor complex_matmul(const Tensor& a, const Tensor& b, bool batched) {
  auto product = [batched](const Tensor& x, const Tensor& y) { return batched ? tl::bmm(x, y) : tl::mm(x, y); };
  Tensor ar = tl::real(a), ai = tl::imag(a), br = tl::real(b), bi = tl::imag(b);
  return tl::complex(product(ar, br).sub(product(ai, bi)), product(ar, bi).add(product(ai, br)));
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t da = self.dim(), db = other.dim();
  TL_CHECK(da >= 1 && db >= 1, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ", db,
           "D");
  if (da == 1 && db == 1) {
    TL_CHECK(self.sizes()[0] == other.sizes()[0], "inconsistent tensor size, expected tensor [", self.sizes()[0],
             "] and src [", other.sizes()[0], "] to have the same number of elements, but got ", self.sizes()[0],
             " and ", other.sizes()[0], " elements respectively");
    TL_CHECK(self.dtype() == other.dtype(), "dot : expected both vectors to have same dtype, but found ",
             dtype_name(self.dtype()), " and ", dtype_name(other.dtype()));
    return tl::mm(self.unsqueeze(0), other.unsqueeze(1)).view(IntArrayRef());
  }
  if (da == 2 && db == 1) {
    TL_CHECK(self.sizes()[1] == other.sizes()[0], "size mismatch, got input (", self.sizes()[0], "), mat (",
             shape_str(self.sizes()), "), vec (", other.sizes()[0], ")");
    return tl::mm(self, other.unsqueeze(1)).view({self.sizes()[0]});
  }
  if (da == 1 && db == 2) return tl::mm(self.unsqueeze(0), other).view({other.sizes()[1]});
  if (da == 2 && db == 2) return tl::mm(self, other);
  // Batched. A 1-D operand becomes a matrix (and its dim is dropped from the result).
  Tensor a = da == 1 ? self.unsqueeze(0) : self;
  Tensor b = db == 1 ? other.unsqueeze(1) : other;
  const int64_t m = a.sizes()[a.dim() - 2], k = a.sizes()[a.dim() - 1];
  const int64_t n = b.sizes()[b.dim() - 1];
  std::vector<int64_t> out_shape;
  if (b.dim() == 2 && da >= 3) {
    // (..., m, k) @ (k, n): fold the batch into the rows of one mm.
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < a.dim(); ++i) rows *= a.sizes()[i];
    Tensor r = tl::mm(a.reshape({rows, k}), b);
    out_shape.assign(a.sizes().begin(), a.sizes().end() - 1);
    out_shape.push_back(n);
    if (db == 1) out_shape.pop_back();
    return r.view(out_shape);
  }
  std::vector<int64_t> ba(a.sizes().begin(), a.sizes().end() - 2), bb(b.sizes().begin(), b.sizes().end() - 2);
  std::vector<int64_t> batch = broadcast_shapes(ba, bb);
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  auto batched = [&](const Tensor& t, int64_t r, int64_t c) {
    std::vector<int64_t> full(batch);
    full.push_back(r);
    full.push_back(c);
    Tensor x = t;
    while (x.dim() < static_cast<int64_t>(full.size())) x = x.unsqueeze(0);
    // A view where the layout allows: mm and bmm take any strides, so a transposed or
    // broadcast operand needs no copy.
    return x.expand(full).reshape({nb, r, c});
  };
  Tensor r = tl::bmm(batched(a, m, k), batched(b, k, n));
  out_shape = batch;
  if (da > 1) out_shape.push_back(m);
  if (db > 1) out_shape.push_back(n);
  return r.view(out_shape);
}

Tensor matmul(const Tensor& self, const Tensor& other, const Tensor& out) {
  Tensor r = tl::matmul(self, other);
  check_out(out, r.dtype());
  if (!out.sizes().equals(r.sizes())) out.impl()->set_sizes_contiguous(r.sizes());
  out.copy_(r);
  return out;
}

// ---- products with an added term, vector products, linear, bilinear ---------------------------

namespace {

bool is_one(const Scalar& s) { return s.is_bool() ? s.to<bool>() : s.to_double() == 1.0; }
bool is_zero(const Scalar& s) { return s.is_bool() ? !s.to<bool>() : s.to_double() == 0.0; }

// beta * self + alpha * product(a, b). As in PyTorch, beta == 0 ignores self entirely (even its
// nan and inf), and the in-place form (out is self) needs self to have the product's shape
// already. Half and bfloat16 form the whole sum in float and round once, as PyTorch does:
// rounding the product before scaling and adding would differ from it in the last bit.
template <class Product>
Tensor add_scaled_product(const char* name, const Tensor& self, const Tensor& a, const Tensor& b, Product product,
                          const Scalar& beta, const Scalar& alpha, const Tensor& out) {
  const ScalarType dtype = a.dtype();
  const bool in_float = low_precision(dtype) && b.dtype() == dtype && self.dtype() == dtype;
  Tensor prod = in_float ? product(a.to(ScalarType::Float), b.to(ScalarType::Float))
                        : product(a, b);
  const ScalarType prod_dtype = in_float ? dtype : prod.dtype();
  TL_CHECK(self.dtype() == prod_dtype, name, ": self and the product must have the same dtype, but got ",
           dtype_name(self.dtype()), " and ", dtype_name(prod_dtype));
  TL_CHECK(broadcast_shapes(self.sizes(), prod.sizes()) == prod.sizes().vec(), name, ": self of shape ",
           self.sizes(), " cannot be broadcast to the product's shape ", prod.sizes());
  if (!is_one(alpha)) prod.mul_(alpha);
  if (!is_zero(beta)) prod.add_(in_float ? self.to(ScalarType::Float) : self, beta);
  if (in_float) prod = prod.to(dtype);
  if (!out.defined()) return prod;
  TL_CHECK(!out.is_same(self) || self.sizes().equals(prod.sizes()), name, "_: self of shape ", self.sizes(),
           " cannot hold the result of shape ", prod.sizes());
  return write_out(prod, out);
}

void check_vector(const char* name, const char* arg, const Tensor& t) {
  TL_CHECK(t.dim() == 1, name, ": Expected 1-D argument ", arg, ", but got ", t.dim(), "-D");
}

void check_dot(const Tensor& a, const Tensor& b) {
  TL_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(), "D tensors");
  TL_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
           scalar_type_cpp_name(a.dtype()), " and ", scalar_type_cpp_name(b.dtype()));
  TL_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
           b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
           " elements respectively");
}

}  // namespace

Tensor addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  TL_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  TL_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  return add_scaled_product("addmm", self, mat1, mat2, [](const Tensor& x, const Tensor& y) { return tl::mm(x, y); },
                            beta, alpha, out);
}

Tensor baddbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                   const Scalar& alpha, const Tensor& out) {
  return add_scaled_product("baddbmm", self, batch1, batch2,
                            [](const Tensor& x, const Tensor& y) { return tl::bmm(x, y); }, beta, alpha, out);
}

Tensor addmv_out(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  TL_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1, "vector + matrix @ vector expected, got ",
           self.dim(), ", ", mat.dim(), ", ", vec.dim());
  TL_CHECK(mat.sizes()[1] == vec.sizes()[0], "size mismatch, got input (", mat.sizes()[0], "), mat (",
           mat.sizes()[0], "x", mat.sizes()[1], "), vec (", vec.sizes()[0], ")");
  return add_scaled_product(
      "addmv", self, mat, vec,
      [](const Tensor& m, const Tensor& v) { return tl::mm(m, v.unsqueeze(1)).view({m.sizes()[0]}); }, beta, alpha,
      out);
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  TL_CHECK(self.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got 1, ", self.dim(), ", ",
           vec.dim());
  TL_CHECK(self.sizes()[1] == vec.sizes()[0], "size mismatch, got input (", self.sizes()[0], "), mat (",
           self.sizes()[0], "x", self.sizes()[1], "), vec (", vec.sizes()[0], ")");
  return tl::mm(self, vec.unsqueeze(1)).view({self.sizes()[0]});
}

Tensor dot(const Tensor& self, const Tensor& tensor) {
  check_dot(self, tensor);
  return tl::mm(self.unsqueeze(0), tensor.unsqueeze(1)).view(IntArrayRef());
}

// vdot conjugates self (a no-op for real tensors).
Tensor vdot(const Tensor& self, const Tensor& other) { return tl::dot(self.conj(), other); }

Tensor outer(const Tensor& self, const Tensor& vec2) {
  check_vector("outer", "self", self);
  check_vector("outer", "vec2", vec2);
  return self.unsqueeze(1).mul(vec2);
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const bool has_bias = bias.has_value() && bias->defined();
  if (has_bias && input.dim() >= 2 && weight.dim() == 2) {
    // Fold the leading dims into the rows of one addmm (a view when input's layout allows).
    std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - 1);
    shape.push_back(weight.sizes()[0]);
    Tensor rows = input.dim() == 2 ? input : input.reshape({-1, input.sizes().back()});
    Tensor r = tl::addmm(*bias, rows, weight.t());
    return input.dim() == 2 ? r : r.view(shape);
  }
  Tensor r = tl::matmul(input, weight.t());
  return has_bias ? r.add(*bias) : r;
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const std::optional<Tensor>& bias) {
  TL_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ", input1.dim(), " and ",
           input2.dim());
  TL_CHECK(input1.dim() >= 1, "bilinear(): inputs must have at least one dimension");
  for (int64_t i = 0; i + 1 < input1.dim(); ++i) {
    TL_CHECK(input1.sizes()[i] == input2.sizes()[i], "bilinear(): input batch dimensions do not match: got ",
             input1.sizes()[i], " and ", input2.sizes()[i]);
  }
  TL_CHECK(weight.dim() == 3, "bilinear(): weight must be 3-D, got ", weight.dim(), "-D");
  const int64_t in1 = input1.sizes().back(), in2 = input2.sizes().back();
  const int64_t out_features = weight.sizes()[0];
  TL_CHECK(in1 == weight.sizes()[1], "bilinear(): input1 size does not match weight size: got ", in1,
           " but expected ", weight.sizes()[1]);
  TL_CHECK(in2 == weight.sizes()[2], "bilinear(): input2 size does not match weight size: got ", in2,
           " but expected ", weight.sizes()[2]);
  // y[n, o] = sum_ij x1[n, i] W[o, i, j] x2[n, j]: one mm over i, then one bmm over j.
  Tensor x1 = input1.reshape({-1, in1}), x2 = input2.reshape({-1, in2});
  const int64_t n = x1.sizes()[0];
  Tensor t = x1.mm(weight.permute({1, 0, 2}).reshape({in1, out_features * in2})).view({n, out_features, in2});
  Tensor y = t.bmm(x2.unsqueeze(2)).view({n, out_features});
  if (bias.has_value() && bias->defined()) y = y.add(*bias);
  std::vector<int64_t> shape(input1.sizes().begin(), input1.sizes().end() - 1);
  shape.push_back(out_features);
  return y.view(shape);
}

// ---- einsum ----------------------------------------------------------------------------------
// Labels are ints: 'A'-'Z' -> 0..25, 'a'-'z' -> 26..51 (so sorting them gives PyTorch's implicit
// output order), the dims an ellipsis covers -> 52.. right-aligned across operands.

namespace {

constexpr int kLetters = 52;

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  TL_ERROR("einsum(): invalid subscript '", c, "' given in the equation string, subscripts must be in [a-zA-Z]");
}

char char_of(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + label - 26); }

// One term ("ij", "...k") as letters with -1 marking the ellipsis.
std::vector<int> parse_term(const std::string& term) {
  std::vector<int> out;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      TL_CHECK(term.compare(i, 3, "...") == 0, "einsum(): found '.' for operand that is not part of any ellipsis");
      TL_CHECK(!ellipsis, "einsum(): found more than one ellipsis ('...') in a term of the equation");
      ellipsis = true;
      out.push_back(-1);
      i += 2;
    } else {
      out.push_back(label_of(term[i]));
    }
  }
  return out;
}

// Sums `t` over the positions of `labels` that are not `needed` (dropping them from `labels`).
Tensor sum_unneeded(Tensor t, std::vector<int>& labels, const std::array<bool, 128>& needed) {
  std::vector<int64_t> dims;
  std::vector<int> kept;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (needed[labels[i]]) {
      kept.push_back(labels[i]);
    } else {
      dims.push_back(static_cast<int64_t>(i));
    }
  }
  labels = kept;
  return dims.empty() ? t : t.sum(IntArrayRef(dims), false);
}

}  // namespace

Tensor einsum(const std::string& equation, TensorList tensors, std::optional<IntArrayRef> path) {
  (void)path;  // a contraction-order hint; we always contract left to right
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const int64_t nops = static_cast<int64_t>(tensors.size());
  TL_CHECK(nops > 0, "einsum(): must provide at least one operand");
  TL_CHECK(static_cast<int64_t>(terms.size()) <= nops, "einsum(): fewer operands were provided than specified in the equation");
  TL_CHECK(static_cast<int64_t>(terms.size()) >= nops, "einsum(): more operands were provided than specified in the equation");

  // Expand each term's ellipsis into per-dim labels, right-aligned across operands.
  int64_t ell_dims = 0;
  for (int64_t k = 0; k < nops; ++k) {
    const auto& term = terms[k];
    const bool has_ell = std::find(term.begin(), term.end(), -1) != term.end();
    const int64_t letters = static_cast<int64_t>(term.size()) - (has_ell ? 1 : 0);
    const int64_t nd = tensors[k].dim();
    if (has_ell) {
      TL_CHECK(letters <= nd, "einsum(): the number of subscripts in the equation (", letters,
               ") is more than the number of dimensions (", nd, ") for operand ", k);
      ell_dims = std::max(ell_dims, nd - letters);
    } else {
      TL_CHECK(letters == nd, "einsum(): the number of subscripts in the equation (", letters,
               ") does not match the number of dimensions (", nd, ") for operand ", k, " and no ellipsis was given");
    }
  }
  TL_CHECK(kLetters + ell_dims <= 128, "einsum(): too many dimensions covered by an ellipsis");
  std::vector<std::vector<int>> labels(nops);
  for (int64_t k = 0; k < nops; ++k) {
    const int64_t nell = tensors[k].dim() - (static_cast<int64_t>(terms[k].size()) - 1);
    for (int l : terms[k]) {
      if (l >= 0) {
        labels[k].push_back(l);
        continue;
      }
      for (int64_t j = 0; j < nell; ++j) labels[k].push_back(static_cast<int>(kLetters + ell_dims - nell + j));
    }
  }

  // Output labels: given after "->", or the ellipsis dims then the letters used once, sorted.
  std::vector<int> output;
  std::array<bool, 128> in_output{};
  if (arrow != std::string::npos) {
    for (int l : parse_term(eq.substr(arrow + 2))) {
      if (l < 0) {
        for (int64_t j = 0; j < ell_dims; ++j) output.push_back(static_cast<int>(kLetters + j));
        continue;
      }
      TL_CHECK(!in_output[l], "einsum(): output subscript ", char_of(l), " appears more than once in the output");
      bool used = false;
      for (const auto& ls : labels) used = used || std::find(ls.begin(), ls.end(), l) != ls.end();
      TL_CHECK(used, "einsum(): output subscript ", char_of(l), " does not appear in the equation for any input operand");
      output.push_back(l);
      in_output[l] = true;
    }
  } else {
    std::array<int, 128> uses{};
    for (const auto& ls : labels) {
      for (int l : ls) ++uses[l];
    }
    for (int64_t j = 0; j < ell_dims; ++j) output.push_back(static_cast<int>(kLetters + j));
    for (int l = 0; l < kLetters; ++l) {
      if (uses[l] == 1) output.push_back(l);
    }
  }
  for (int l : output) in_output[l] = true;

  // Per operand: take diagonals of repeated labels, check sizes agree (or broadcast from 1).
  std::vector<Tensor> ops(tensors.begin(), tensors.end());
  std::array<int64_t, 128> size{};
  size.fill(-1);
  for (int64_t k = 0; k < nops; ++k) {
    auto& ls = labels[k];
    for (size_t i = 0; i < ls.size(); ++i) {
      for (size_t j = i + 1; j < ls.size(); ++j) {
        if (ls[i] != ls[j]) continue;
        TL_CHECK(ops[k].sizes()[i] == ops[k].sizes()[j], "einsum(): subscript ", char_of(ls[i]),
                 " is repeated for operand ", k, " but the sizes don't match, ", ops[k].sizes()[i],
                 " != ", ops[k].sizes()[j]);
        ops[k] = ops[k].diagonal(0, static_cast<int64_t>(i), static_cast<int64_t>(j));
        int l = ls[i];
        ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(j));
        ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i));
        ls.push_back(l);
        i = static_cast<size_t>(-1);  // rescan
        break;
      }
    }
    for (size_t i = 0; i < ls.size(); ++i) {
      const int64_t s = ops[k].sizes()[i];
      int64_t& seen = size[ls[i]];
      TL_CHECK(seen == -1 || seen == s || seen == 1 || s == 1, "einsum(): operands do not broadcast: subscript ",
               ls[i] < kLetters ? std::string(1, char_of(ls[i])) : std::string("..."), " has size ", s,
               " for operand ", k, " which does not broadcast with previously seen size ", seen);
      if (seen == -1 || seen == 1) seen = s;
    }
  }

  // Contract left to right; a label is needed while a later operand or the output has it.
  auto needed_after = [&](int64_t k) {
    std::array<bool, 128> need = in_output;
    for (int64_t j = k + 1; j < nops; ++j) {
      for (int l : labels[j]) need[l] = true;
    }
    return need;
  };
  auto needed_with = [&](int64_t k) {
    std::array<bool, 128> need = needed_after(k);
    for (int l : labels[k]) need[l] = true;
    return need;
  };
  std::vector<int> cur_labels = labels[0];
  Tensor cur = sum_unneeded(ops[0], cur_labels, nops > 1 ? needed_with(1) : needed_after(0));
  for (int64_t k = 1; k < nops; ++k) {
    std::vector<int> rl = labels[k];
    std::array<bool, 128> keep_r = needed_after(k);
    for (int l : cur_labels) keep_r[l] = true;
    Tensor r = sum_unneeded(ops[k], rl, keep_r);
    const std::array<bool, 128> later = needed_after(k);
    std::array<bool, 128> in_r{};
    for (int l : rl) in_r[l] = true;
    std::array<bool, 128> in_l{};
    for (int l : cur_labels) in_l[l] = true;
    // Dim groups: batch (both, kept), left-only, contracted (both, not kept), right-only.
    std::vector<int> batch, lonly, contracted, ronly;
    for (int l : cur_labels) {
      if (!in_r[l]) {
        lonly.push_back(l);
      } else if (later[l]) {
        batch.push_back(l);
      } else {
        contracted.push_back(l);
      }
    }
    for (int l : rl) {
      if (!in_l[l]) ronly.push_back(l);
    }
    auto arrange = [&](const Tensor& t, const std::vector<int>& ls, std::initializer_list<const std::vector<int>*> groups) {
      std::vector<int64_t> perm, shape;
      for (const auto* g : groups) {
        int64_t n = 1;
        for (int l : *g) {
          perm.push_back(std::find(ls.begin(), ls.end(), l) - ls.begin());
          n *= size[l];
        }
        shape.push_back(n);
      }
      std::vector<int64_t> full;
      for (int64_t p : perm) full.push_back(size[ls[p]]);
      return t.permute(perm).expand(full).reshape(shape);
    };
    Tensor a = arrange(cur, cur_labels, {&batch, &lonly, &contracted});
    Tensor b = arrange(r, rl, {&batch, &contracted, &ronly});
    std::vector<int64_t> shape;
    cur_labels.clear();
    for (const auto* g : {&batch, &lonly, &ronly}) {
      for (int l : *g) {
        shape.push_back(size[l]);
        cur_labels.push_back(l);
      }
    }
    cur = a.bmm(b).view(shape);
  }
  std::vector<int64_t> perm;
  for (int l : output) perm.push_back(std::find(cur_labels.begin(), cur_labels.end(), l) - cur_labels.begin());
  return cur.permute(perm);
}

// ---- trace ------------------------------------------------------------------------------------

Tensor trace(const Tensor& self) {
  TL_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return self.diagonal().sum();
}

}  // namespace tl::native
