// Device-generic reduction code: shape/dtype logic shared by every device's kernels, and the
// whole-tensor composites (sum(), max(), all(), ...) written over the dim overloads.
#include "aten/native/ReduceOps.h"

#include "generated/NativeFunctions.h"

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
