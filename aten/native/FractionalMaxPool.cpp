// fractional_max_pool2d (Graham, "Fractional Max-Pooling"): kernel_size windows whose starts
// advance by a non-integer step, placed per plane by a sample u in [0, 1) from random_samples
// (N, C, 2; [..., 0] for the width, [..., 1] for the height). The checks and the CPU loop, which
// is small, live together here. Indices are flat per-plane (h * W + w), as max pooling's, so the
// gradient is _max_pool_scatter (derivatives.yaml).
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/fractional_max_pool2d_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

// The first input index of each of the `out` windows of size `pool` along an axis of size `in`:
// floor((i + u) * alpha) - floor(u * alpha) with alpha = (in - pool) / (out - 1), computed in the
// input's precision as PyTorch does; the last window ends at the last element.
template <typename T>
std::vector<int64_t> window_starts(T u, int64_t in, int64_t out, int64_t pool) {
  std::vector<int64_t> starts(static_cast<size_t>(out));
  if (out > 1) {
    const T alpha = static_cast<T>(in - pool) / static_cast<T>(out - 1);
    for (int64_t i = 0; i + 1 < out; ++i)
      starts[i] = static_cast<int64_t>((static_cast<T>(i) + u) * alpha) - static_cast<int64_t>(u * alpha);
  }
  if (out > 0) starts[out - 1] = in - pool;
  for (int64_t& s : starts) s = std::clamp<int64_t>(s, 0, in - pool);  // float rounding stays inside
  return starts;
}

}  // namespace

std::tuple<Tensor, Tensor> fractional_max_pool2d_cpu(const Tensor& self, IntArrayRef kernel_size,
                                                     IntArrayRef output_size, const Tensor& random_samples) {
  TL_CHECK(kernel_size.size() == 2, "fractional_max_pool2d: kernel_size must either be a single Int or tuple of Ints");
  TL_CHECK(output_size.size() == 2, "fractional_max_pool2d: output_size must either be a single Int or tuple of Ints");
  const int64_t dim = self.dim();
  TL_CHECK(dim == 3 || dim == 4, "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: ", self.sizes());
  for (int64_t d = dim - 3; d < dim; ++d)
    TL_CHECK(self.sizes()[d] > 0, "fractional_max_pool2d(): Expected input to have non-zero size for non-batch ",
             "dimensions, but got", self.sizes(), " with dimension ", d, " being empty.");
  const int64_t N = dim == 4 ? self.sizes()[0] : 1, C = self.sizes()[dim - 3];
  const int64_t H = self.sizes()[dim - 2], W = self.sizes()[dim - 1];
  const int64_t KH = kernel_size[0], KW = kernel_size[1], OH = output_size[0], OW = output_size[1];
  TL_CHECK(KH > 0 && KW > 0, "fractional_max_pool2d(): kernel_size must be greater than zero, but got ", kernel_size);
  TL_CHECK(OH >= 0 && OW >= 0, "fractional_max_pool2d(): output_size must be non-negative, but got ", output_size);
  TL_CHECK(OH + KH - 1 <= H, "fractional_max_pool2d(): pool height ", KH, " too large relative to input height ", H);
  TL_CHECK(OW + KW - 1 <= W, "fractional_max_pool2d(): pool width ", KW, " too large relative to input width ", W);
  TL_CHECK(random_samples.dim() == 3, "Expect _random_samples to have 3 dimensions, got ", random_samples.dim());
  TL_CHECK(random_samples.sizes()[0] >= N, "Expect _random_samples.size(0) no less then input batch size.");
  TL_CHECK(random_samples.sizes()[1] == C, "Expect _random_samples.size(1) equals to input channel size.");
  TL_CHECK(random_samples.sizes()[2] == 2, "Expect _random_samples.size(2) equals to 2; got ",
           random_samples.sizes()[2], ".");
  TL_CHECK(random_samples.dtype() == self.dtype(), "Expect _random_samples to have the same dtype as input");
  TL_CHECK(random_samples.device() == self.device(), "fractional_max_pool2d(): expected input and _random_samples ",
           "on the same device, but got ", self.device(), " and ", random_samples.device());
  if (low_precision(self.dtype())) {
    auto [o, i] = fractional_max_pool2d_cpu(self.to(ScalarType::Float), kernel_size, output_size,
                                            random_samples.to(ScalarType::Float));
    return {o.to(self.dtype()), i};
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  shape[dim - 2] = OH;
  shape[dim - 1] = OW;
  Tensor out = empty_tensor(shape, self.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, self.device()));
  if (out.numel() == 0) return {out, indices};
  const Tensor x = self.contiguous(), samples = random_samples.contiguous();
  dispatch_float_double(self.dtype(), "fractional_max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    const T* sp = samples.data_ptr<T>();
    for (int64_t i = 0; i < N * C * 2; ++i)
      TL_CHECK(sp[i] >= 0 && sp[i] <= 1, "fractional_max_pool2d(): expected _random_samples in [0, 1], but got ",
               sp[i]);
    T* op = out.data_ptr<T>();
    int64_t* ip = indices.data_ptr<int64_t>();
#pragma omp parallel for schedule(static) if (N * C * OH * OW * KH * KW >= (1 << 15))
    for (int64_t plane = 0; plane < N * C; ++plane) {
      const std::vector<int64_t> rows = window_starts<T>(sp[plane * 2 + 1], H, OH, KH);
      const std::vector<int64_t> cols = window_starts<T>(sp[plane * 2], W, OW, KW);
      const T* xs = xp + plane * H * W;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          T best = -std::numeric_limits<T>::infinity();
          int64_t best_i = rows[oh] * W + cols[ow];
          for (int64_t h = rows[oh]; h < rows[oh] + KH; ++h)
            for (int64_t w = cols[ow]; w < cols[ow] + KW; ++w) {
              const T v = xs[h * W + w];
              if (v > best || std::isnan(v)) {  // a NaN wins, the last one (as PyTorch)
                best = v;
                best_i = h * W + w;
              }
            }
          op[plane * OH * OW + oh * OW + ow] = best;
          ip[plane * OH * OW + oh * OW + ow] = best_i;
        }
    }
  });
  return {out, indices};
}

}  // namespace tl::native
