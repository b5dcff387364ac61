// Matrix products: argument checks for mm/bmm (kernels in cpu/GemmKernel.cpp) and matmul,
// a composite over mm/bmm and views that follows torch.matmul's case analysis.
#include "aten/native/LinearAlgebra.h"

#include <sstream>

#include "aten/native/TensorIterator.h"
#include "generated/NativeFunctions.h"

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

// A contiguous copy (or the tensor itself) viewed as `shape`.
Tensor reshape_to(const Tensor& t, IntArrayRef shape) { return t.contiguous().view(shape); }

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
    Tensor r = tl::mm(reshape_to(a, {rows, k}), b);
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
    return reshape_to(x.expand(full), {nb, r, c});
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

}  // namespace tl::native
