#pragma once
// The device-independent halves of max.dim, min.dim, argmax, argmin, all and any: argument and
// out= checks, result allocation and shaping. Each device's kernel file supplies an Engine with
//   run<T>(input, result, mask, op)                 the value reduction (ReduceFunctors.h ops), and
//   index_reduce<IsMax>(name, x, dim, values, idxs)  the extreme and its index along `dim` of the
//                                                    contiguous x (values undefined: indices only),
// and defines its entry points with TL_DEFINE_INDEX_REDUCTIONS(device suffix, Engine).
#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/native/ReduceOps.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/to.h"
#include "generated/ops/view.h"

namespace tl::native::index_reductions {

template <class Engine, bool IsAll>
Tensor all_any(const char* name, const Tensor& self, const std::vector<bool>& mask, bool keepdim, const Tensor& out) {
  const ScalarType rt = self.dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  TL_CHECK(!out.defined() || out.dtype() == ScalarType::Bool || out.dtype() == ScalarType::Byte, name,
           " only supports bool tensor for result, got: ", dtype_name(out.dtype()));
  Tensor res = empty_reduce_result(self, mask, ScalarType::Bool);
  dispatch_all_types(self.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Engine::template run<T>(self, res, mask, AllAnyOp<T, IsAll>{});
  });
  if (!out.defined() && rt != ScalarType::Bool) res = res.to(rt);
  return finish_reduce(res, mask, keepdim, out);
}

template <class Engine, bool IsMax>
std::tuple<Tensor, Tensor> minmax_dim(const char* name, const Tensor& self, int64_t dim, bool keepdim,
                                      const Tensor& values, const Tensor& indices) {
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<bool> mask = make_dim_mask(d, self.dim());
  check_nonempty_reduction(self, mask, true, name);
  TL_CHECK(!values.defined() || values.dtype() == self.dtype(), name, "(): Expected out tensor to have dtype ",
           self.dtype(), ", but got ", values.dtype(), " instead");
  TL_CHECK(!indices.defined() || indices.dtype() == ScalarType::Long, name,
           "(): Expected out tensor to have dtype torchlite.int64, but got ", indices.dtype(), " instead");
  Tensor v = empty_reduce_result(self, mask, self.dtype());
  Tensor i = empty_reduce_result(self, mask, ScalarType::Long);
  if (self.numel() > 0) Engine::template index_reduce<IsMax>(name, self.contiguous(), self.dim() > 0 ? d : 0, v, i);
  return {finish_reduce(v, mask, keepdim, values), finish_reduce(i, mask, keepdim, indices)};
}

template <class Engine, bool IsMax>
Tensor arg_minmax(const char* name, const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  check_out_dtype(out, ScalarType::Long, name);
  Tensor x = self.contiguous();
  const std::vector<int64_t> flat{std::max<int64_t>(self.numel(), 1)};  // the whole tensor (a 0-dim one) as 1-d
  std::vector<bool> mask;
  int64_t d = 0;
  if (!dim.has_value()) {
    TL_CHECK_INDEX(self.numel() > 0, name, "(): Expected reduction dim to be specified for input.numel() == 0.");
    mask = make_dim_mask(std::optional<IntArrayRef>(), self.dim());
    x = x.view(flat);
  } else {
    d = wrap_dim(*dim, self.dim());
    mask = make_dim_mask(d, self.dim());
    check_nonempty_reduction(self, mask, true, name);
    if (self.dim() == 0) x = x.view(flat);
  }
  Tensor i = empty_reduce_result(self, mask, ScalarType::Long);
  if (self.numel() > 0) Engine::template index_reduce<IsMax>(name, x, d, Tensor(), i);
  return finish_reduce(i, mask, keepdim, out);
}

}  // namespace tl::native::index_reductions

// The entry points named in native_functions.yaml (max_out_cpu, argmax_out_cuda, ...).
#define TL_DEFINE_INDEX_REDUCTIONS(device, Engine)                                                                  \
  std::tuple<Tensor, Tensor> max_out_##device(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,  \
                                              const Tensor& indices) {                                              \
    return index_reductions::minmax_dim<Engine, true>("max", self, dim, keepdim, values, indices);                   \
  }                                                                                                                 \
  std::tuple<Tensor, Tensor> min_out_##device(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,  \
                                              const Tensor& indices) {                                              \
    return index_reductions::minmax_dim<Engine, false>("min", self, dim, keepdim, values, indices);                  \
  }                                                                                                                 \
  Tensor argmax_out_##device(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {     \
    return index_reductions::arg_minmax<Engine, true>("argmax", self, dim, keepdim, out);                           \
  }                                                                                                                 \
  Tensor argmin_out_##device(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {     \
    return index_reductions::arg_minmax<Engine, false>("argmin", self, dim, keepdim, out);                          \
  }                                                                                                                 \
  Tensor all_out_##device(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {                       \
    return index_reductions::all_any<Engine, true>("all", self, make_dim_mask(dim, self.dim()), keepdim, out);      \
  }                                                                                                                 \
  Tensor any_out_##device(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {                       \
    return index_reductions::all_any<Engine, false>("any", self, make_dim_mask(dim, self.dim()), keepdim, out);     \
  }                                                                                                                 \
  Tensor all_dims_out_##device(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) { \
    return index_reductions::all_any<Engine, true>("all", self, make_dim_mask(dim, self.dim(), false), keepdim, out); \
  }                                                                                                                 \
  Tensor any_dims_out_##device(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) { \
    return index_reductions::all_any<Engine, false>("any", self, make_dim_mask(dim, self.dim(), false), keepdim, out); \
  }
