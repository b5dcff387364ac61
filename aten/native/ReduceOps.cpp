// Device-generic reduction code: shape/dtype logic shared by every device's kernels, and the
// whole-tensor composites (sum(), max(), all(), ...) written over the dim overloads.
#include "aten/native/ReduceOps.h"

#include <limits>

#include "generated/NativeFunctions.h"
#include "generated/ops/all.h"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/any.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/max.h"
#include "generated/ops/maximum.h"
#include "generated/ops/mean.h"
#include "generated/ops/min.h"
#include "generated/ops/minimum.h"
#include "generated/ops/prod.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/view.h"

namespace tl::native {

std::vector<bool> make_dim_mask(std::optional<IntArrayRef> dims, int64_t ndim, bool empty_means_all) {
  if (!dims.has_value() || (dims->empty() && empty_means_all)) return std::vector<bool>(static_cast<size_t>(ndim), true);
  return dim_mask(*dims, ndim);
}

std::vector<bool> make_dim_mask(int64_t dim, int64_t ndim) {
  IntArrayRef d(dim);
  return make_dim_mask(std::optional<IntArrayRef>(d), ndim);
}

std::vector<int64_t> reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d]) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

Tensor empty_reduce_result(const Tensor& self, const std::vector<bool>& mask, ScalarType dtype) {
  return empty_tensor(reduced_shape(self.sizes(), mask, true), TensorOptions(dtype, self.device()));
}

Tensor finish_reduce(const Tensor& result, const std::vector<bool>& mask, bool keepdim, const Tensor& out) {
  std::vector<int64_t> shape = reduced_shape(result.sizes(), mask, keepdim);
  Tensor r = keepdim ? result : result.view(shape);
  if (!out.defined()) return r;
  if (!out.sizes().equals(shape)) out.impl()->set_sizes_contiguous(shape);
  out.copy_(r);
  return out;
}

void check_out_dtype(const Tensor& out, ScalarType expected, const char* name) {
  TL_CHECK(!out.defined() || out.dtype() == expected, name, ": Expected out tensor to have dtype ", expected,
           ", but got ", out.dtype(), " instead");
}

void check_nonempty_reduction(const Tensor& self, const std::vector<bool>& mask, bool dims_given, const char* name) {
  if (self.numel() != 0) return;
  TL_CHECK(dims_given, name,
           "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
           "with the 'dim' argument.");
  for (size_t d = 0; d < mask.size(); ++d) {
    TL_CHECK_INDEX(!(mask[d] && self.sizes()[d] == 0), name, "(): Expected reduction dim ", d,
             " to have non-zero size.");
  }
}

ScalarType sum_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (dtype) return *dtype;
  if (out.defined()) return out.dtype();
  return is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype();
}

// ---- sum, mean, amax, amin: checks and shapes here, values behind the stubs ----------------

DispatchStub<void(const Tensor&, const Tensor&, const std::vector<bool>&, double)> sum_stub("sum");
ReduceStub amax_stub("amax");
ReduceStub amin_stub("amin");

namespace {

// The keepdim-shaped sum of self over mask, in dtype rt, times scale.
Tensor sum_values(const Tensor& self, const std::vector<bool>& mask, ScalarType rt, double scale) {
  Tensor result = empty_reduce_result(self, mask, rt);
  sum_stub(self.device().type, self.dtype() == rt ? self : self.to(rt), result, mask, scale);
  return result;
}

Tensor minmax_values(const ReduceStub& stub, const char* name, const Tensor& self, IntArrayRef dim, bool keepdim,
                     const Tensor& out) {
  std::vector<bool> mask = make_dim_mask(std::optional<IntArrayRef>(dim), self.dim());
  check_nonempty_reduction(self, mask, !dim.empty(), name);
  TL_CHECK(!out.defined() || out.dtype() == self.dtype(), "Expected the dtype for input and out to match, but got ",
           dtype_name(self.dtype()), " for input's dtype and ", dtype_name(out.dtype()), " for out's dtype.");
  Tensor result = empty_reduce_result(self, mask, self.dtype());
  stub(self.device().type, self, result, mask);
  return finish_reduce(result, mask, keepdim, out);
}

}  // namespace

Tensor sum_IntList_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                       std::optional<ScalarType> dtype, const Tensor& out) {
  ScalarType rt = sum_result_dtype(self, dtype, out);
  check_out_dtype(out, rt, "sum");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  return finish_reduce(sum_values(self, mask, rt, 1.0), mask, keepdim, out);
}

Tensor mean_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                const Tensor& out) {
  ScalarType rt = dtype ? *dtype : (out.defined() ? out.dtype() : self.dtype());
  TL_CHECK(is_floating_point(rt),
           "mean(): could not infer output dtype. ", dtype ? "Optional" : "Input",
           " dtype must be either a floating point or complex dtype. Got: ", dtype_name(rt));
  check_out_dtype(out, rt, "mean");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  int64_t n = 1;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) n *= self.sizes()[d];
  double scale = n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
  return finish_reduce(sum_values(self, mask, rt, scale), mask, keepdim, out);
}

Tensor amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return minmax_values(amax_stub, "amax", self, dim, keepdim, out);
}

Tensor amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return minmax_values(amin_stub, "amin", self, dim, keepdim, out);
}

// ---- whole-tensor composites ------------------------------------------------------------

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return tl::sum(self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor sum_out(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  return tl::sum_out(out, self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return tl::mean(self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor mean_dtype_out(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  return tl::mean_out(out, self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  ScalarType rt = sum_result_dtype(self, dtype, Tensor());
  Tensor flat = self.contiguous().view({self.numel()});
  if (flat.dtype() != rt) flat = flat.to(rt);
  return tl::prod(flat, 0, false, rt);
}

Tensor max(const Tensor& self) {
  TL_CHECK(self.numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  return tl::amax(self, IntArrayRef(), false);
}

Tensor min(const Tensor& self) {
  TL_CHECK(self.numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  return tl::amin(self, IntArrayRef(), false);
}

Tensor max(const Tensor& self, const Tensor& other) { return tl::maximum(self, other); }
Tensor min(const Tensor& self, const Tensor& other) { return tl::minimum(self, other); }

Tensor max_unary_out(const Tensor& self, const Tensor& out) {
  Tensor r = tl::max(self);
  check_out_dtype(out, r.dtype(), "max");
  return finish_reduce(r, {}, false, out);
}

Tensor min_unary_out(const Tensor& self, const Tensor& out) {
  Tensor r = tl::min(self);
  check_out_dtype(out, r.dtype(), "min");
  return finish_reduce(r, {}, false, out);
}

// Whole-tensor all/any: reduce the flattened tensor over dim 0.
Tensor all(const Tensor& self) { return tl::all(self.contiguous().view({self.numel()}), 0, false); }
Tensor any(const Tensor& self) { return tl::any(self.contiguous().view({self.numel()}), 0, false); }

Tensor all_all_out(const Tensor& self, const Tensor& out) {
  return tl::all_out(out, self.contiguous().view({self.numel()}), 0, false);
}
Tensor any_all_out(const Tensor& self, const Tensor& out) {
  return tl::any_out(out, self.contiguous().view({self.numel()}), 0, false);
}

}  // namespace tl::native
