// The CPU mm and bmm kernels, on the CPU GEMM (Note [CPU GEMM] in Gemm.h).
#include <vector>

#include "aten/native/LinearAlgebra.h"
#include "aten/native/cpu/Gemm.h"
#include "generated/ops/bmm_native.h"
#include "generated/ops/copy.h"
#include "generated/ops/mm_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

// Computes self (m x k) @ mat2 (k x n) into the contiguous `res` (m x n).
void mm_into(const Tensor& self, const Tensor& mat2, const Tensor& res, bool parallel) {
  const int64_t m = self.sizes()[0], k = self.sizes()[1], n = mat2.sizes()[1];
  gemm_cpu(self.dtype(), m, n, k, self.data_ptr(), self.strides()[0], self.strides()[1], mat2.data_ptr(),
           mat2.strides()[0], mat2.strides()[1], res.data_ptr(), parallel);
}

// Result for out=: computes into out directly when it is contiguous, of the right shape and
// not one of the inputs; otherwise into a temporary copied back by finish_matmul_out.
Tensor result_buffer(const Tensor& out, IntArrayRef shape, ScalarType dt, const Tensor& a, const Tensor& b) {
  if (out.defined() && out.sizes().equals(shape) && out.is_contiguous() && out.dtype() == dt &&
      out.data_ptr() != a.data_ptr() && out.data_ptr() != b.data_ptr())
    return out;
  return empty_tensor(shape, TensorOptions(dt, a.device()));
}

Tensor finish_out(const Tensor& res, const Tensor& out) {
  if (!out.defined() || res.is_same(out)) return res.is_same(out) ? out : res;
  if (!out.sizes().equals(res.sizes())) out.impl()->set_sizes_contiguous(res.sizes());
  out.copy_(res);
  return out;
}

}  // namespace

Tensor mm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_mm_args(self, mat2, out);
  if (is_complex(self.dtype())) return finish_out(complex_matmul(self, mat2, false), out);
  std::vector<int64_t> shape{self.sizes()[0], mat2.sizes()[1]};
  if (low_precision(self.dtype())) {
    Tensor r = mm_out_cpu(self.to(ScalarType::Float),
                          mat2.to(ScalarType::Float), Tensor());
    return finish_out(r.to(self.dtype()), out);
  }
  Tensor res = result_buffer(out, shape, self.dtype(), self, mat2);
  mm_into(self, mat2, res, true);
  return finish_out(res, out);
}

Tensor bmm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_bmm_args(self, mat2, out);
  if (is_complex(self.dtype())) return finish_out(complex_matmul(self, mat2, true), out);
  const int64_t bs = self.sizes()[0], m = self.sizes()[1], k = self.sizes()[2], n = mat2.sizes()[2];
  std::vector<int64_t> shape{bs, m, n};
  if (low_precision(self.dtype())) {
    Tensor r = bmm_out_cpu(self.to(ScalarType::Float),
                           mat2.to(ScalarType::Float), Tensor());
    return finish_out(r.to(self.dtype()), out);
  }
  Tensor res = result_buffer(out, shape, self.dtype(), self, mat2);
  if (bs == 0 || m == 0 || n == 0) return finish_out(res, out);
  const int64_t isz = static_cast<int64_t>(self.element_size());
  const char* a = static_cast<const char*>(self.data_ptr());
  const char* b = static_cast<const char*>(mat2.data_ptr());
  char* c = static_cast<char*>(res.data_ptr());
  const int64_t sa = self.strides()[0] * isz, sb = mat2.strides()[0] * isz, sc = m * n * isz;
  // Small matrices: one per thread; large ones: parallel inside each product.
  const bool per_batch = m * n * k < 128 * 128 * 128 && bs > 1 && bs * m * n * k >= 64 * 64 * 64;
#pragma omp parallel for schedule(static) if (per_batch)
  for (int64_t i = 0; i < bs; ++i) {
    gemm_cpu(self.dtype(), m, n, k, a + i * sa, self.strides()[1], self.strides()[2], b + i * sb, mat2.strides()[1],
             mat2.strides()[2], c + i * sc, !per_batch);
  }
  return finish_out(res, out);
}

}  // namespace tl::native
