// fractional_max_pool2d/3d (Graham, "Fractional Max-Pooling"): kernel_size windows whose starts
// advance by a non-integer step, placed per plane by a sample u in [0, 1) per axis from
// random_samples (N, C, 2 or 3). The checks and the CPU loop, which is small, live together here
// (the loop behind a stub: FractionalMaxPool.h).
// Indices are flat per plane/volume ((t * H + h) * W + w), as max pooling's, so the gradient is
// _max_pool_scatter / max_pool3d_scatter (derivatives.yaml).
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/FractionalMaxPool.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/fractional_max_pool2d_native.h"
#include "generated/ops/fractional_max_pool3d_native.h"
#include "generated/ops/narrow.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

// The window starts along one axis (fractional_window_start).
template <typename T>
std::vector<int64_t> window_starts(T u, int64_t in, int64_t out, int64_t pool) {
  std::vector<int64_t> starts(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) starts[i] = fractional_window_start(u, in, out, pool, i);
  return starts;
}

// The CPU loop: planes in parallel, each window walked once.
void fractional_max_pool_kernel(const FractionalPoolGeom& g, const Tensor& x, const Tensor& samples,
                                const Tensor& out, const Tensor& indices) {
  const int64_t nd = g.nd, P = g.planes;
  const int64_t *in = g.in, *k = g.k, *o = g.out;
  dispatch_float_double(x.dtype(), "fractional_max_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    const T* sp = samples.data_ptr<T>();
    T* op = out.data_ptr<T>();
    int64_t* ip = indices.data_ptr<int64_t>();
    const int64_t in_plane = in[0] * in[1] * in[2], out_plane = o[0] * o[1] * o[2];
#pragma omp parallel for schedule(static) if (P * out_plane * k[0] * k[1] * k[2] >= (1 << 15))
    for (int64_t plane = 0; plane < P; ++plane) {
      const T* u = sp + plane * nd;
      const std::vector<int64_t> ts = nd == 3 ? window_starts<T>(u[0], in[0], o[0], k[0]) : std::vector<int64_t>{0};
      const std::vector<int64_t> hs = window_starts<T>(u[1], in[1], o[1], k[1]);
      const std::vector<int64_t> ws = window_starts<T>(nd == 3 ? u[2] : u[0], in[2], o[2], k[2]);
      const T* xs = xp + plane * in_plane;
      int64_t at = plane * out_plane;
      for (int64_t ot = 0; ot < o[0]; ++ot)
        for (int64_t oh = 0; oh < o[1]; ++oh)
          for (int64_t ow = 0; ow < o[2]; ++ow, ++at) {
            T best = -std::numeric_limits<T>::infinity();
            int64_t best_i = (ts[ot] * in[1] + hs[oh]) * in[2] + ws[ow];
            for (int64_t t = ts[ot]; t < ts[ot] + k[0]; ++t)
              for (int64_t h = hs[oh]; h < hs[oh] + k[1]; ++h)
                for (int64_t w = ws[ow]; w < ws[ow] + k[2]; ++w) {
                  const int64_t i = (t * in[1] + h) * in[2] + w;
                  const T v = xs[i];
                  if (v > best || std::isnan(v)) {  // a NaN wins, the last one (as PyTorch)
                    best = v;
                    best_i = i;
                  }
                }
            op[at] = best;
            ip[at] = best_i;
          }
    }
  });
}

// The 2-d and 3-d ops: `nd` spatial axes (a 2-d input runs as 3-d with a time axis of one).
// PyTorch's messages differ between the two (and the 3-d op requires the windows to leave at least
// one element, the 2-d op does not), so they come in as parameters.
std::tuple<Tensor, Tensor> fractional_max_pool_impl(const char* name, int64_t nd, const Tensor& self,
                                                   IntArrayRef kernel_size, IntArrayRef output_size,
                                                   const Tensor& random_samples) {
  static const char* const axis_names[] = {"time", "height", "width"};
  const char* const* axes = axis_names + (3 - nd);
  TL_CHECK(static_cast<int64_t>(kernel_size.size()) == nd, name,
           ": kernel_size must either be a single Int or tuple of Ints");
  TL_CHECK(static_cast<int64_t>(output_size.size()) == nd, name,
           ": output_size must either be a single Int or tuple of Ints");
  const int64_t dim = self.dim();
  TL_CHECK(dim == nd + 1 || dim == nd + 2, name, ": Expected ", nd + 1, "D or ", nd + 2, "D tensor, but got: ",
           self.sizes());
  for (int64_t d = dim - nd - 1; d < dim; ++d)
    TL_CHECK(self.sizes()[d] > 0, name, ": Expected input to have non-zero size for non-batch ",
             "dimensions, but got", self.sizes(), " with dimension ", d, " being empty.");
  const int64_t N = dim == nd + 2 ? self.sizes()[0] : 1, C = self.sizes()[dim - nd - 1];
  // Sizes as (time, height, width); a 2-d input has one time step and a window of one.
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, o[3] = {1, 1, 1};
  for (int64_t d = 0; d < nd; ++d) {
    in[3 - nd + d] = self.sizes()[dim - nd + d];
    k[3 - nd + d] = kernel_size[d];
    o[3 - nd + d] = output_size[d];
  }
  TL_CHECK(std::all_of(kernel_size.begin(), kernel_size.end(), [](int64_t v) { return v > 0; }), name,
           ": kernel_size must be greater than zero, but got ", kernel_size);
  TL_CHECK(std::all_of(output_size.begin(), output_size.end(), [](int64_t v) { return v >= 0; }), name,
           ": output_size must be non-negative, but got ", output_size);
  for (int64_t d = 3 - nd; d < 3; ++d)
    TL_CHECK(nd == 2 ? o[d] + k[d] - 1 <= in[d] : o[d] + k[d] - 1 < in[d], name, ": pool ", axes[d - 3 + nd], " ",
             k[d], " too large relative to input ", axes[d - 3 + nd], " ", in[d]);
  TL_CHECK(random_samples.dim() == 3, "Expect _random_samples to have 3 dimensions, got ", random_samples.dim());
  TL_CHECK(random_samples.sizes()[0] >= N, "Expect _random_samples.size(0) no less then input batch size.");
  TL_CHECK(random_samples.sizes()[1] == C, "Expect _random_samples.size(1) equals to input channel size.");
  TL_CHECK(random_samples.sizes()[2] == nd, "Expect _random_samples.size(2) equals to ", nd, "; got ",
           random_samples.sizes()[2], ".");
  TL_CHECK(random_samples.dtype() == self.dtype(), "Expect _random_samples to have the same dtype as input");
  TL_CHECK(random_samples.device() == self.device(), name, ": expected input and _random_samples ",
           "on the same device, but got ", self.device(), " and ", random_samples.device());
  if (low_precision(self.dtype())) {
    auto [out, idx] = fractional_max_pool_impl(name, nd, self.to(ScalarType::Float), kernel_size, output_size,
                                              random_samples.to(ScalarType::Float));
    return {out.to(self.dtype()), idx};
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  for (int64_t d = 0; d < nd; ++d) shape[dim - nd + d] = output_size[d];
  Tensor out = empty_tensor(shape, self.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, self.device()));
  if (out.numel() == 0) return {out, indices};
  const Tensor x = self.contiguous(), samples = random_samples.narrow(0, 0, N).contiguous();
  {  // the samples' values are checked on a host copy (one transfer on another device)
    const Tensor host = samples.is_cpu() ? samples : samples.to(Device(DeviceType::CPU));
    dispatch_float_double(self.dtype(), name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* sp = host.data_ptr<T>();
      for (int64_t i = 0; i < N * C * nd; ++i)
        TL_CHECK(sp[i] >= 0 && sp[i] <= 1, name, ": expected _random_samples in [0, 1], but got ", sp[i]);
    });
  }
  FractionalPoolGeom g;
  g.nd = nd;
  g.planes = N * C;
  std::copy(in, in + 3, g.in);
  std::copy(k, k + 3, g.k);
  std::copy(o, o + 3, g.out);
  fractional_max_pool_stub(self.device().type, g, x, samples, out, indices);
  return {out, indices};
}

}  // namespace

DispatchStub<void(const FractionalPoolGeom&, const Tensor&, const Tensor&, const Tensor&, const Tensor&)>
    fractional_max_pool_stub("fractional_max_pool");
TL_REGISTER_STUB(fractional_max_pool_stub, CPU, &fractional_max_pool_kernel);

std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                     IntArrayRef output_size, const Tensor& random_samples) {
  return fractional_max_pool_impl("fractional_max_pool2d()", 2, self, kernel_size, output_size, random_samples);
}

std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size,
                                                     IntArrayRef output_size, const Tensor& random_samples) {
  return fractional_max_pool_impl("fractional_max_pool3d_out()", 3, self, kernel_size, output_size, random_samples);
}

}  // namespace tl::native
