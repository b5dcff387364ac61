// CPU loops of bilinear upsampling (geometry in Upsample.h). The source positions follow
// PyTorch's arithmetic (in the tensor's own precision) so results agree to rounding.
#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/native/Parallel.h"
#include "aten/native/Upsample.h"

namespace tl::native {

namespace {

void upsample_bilinear2d_kernel(const BilinearGeom& g, const Tensor& x, const Tensor& out) {
  dispatch_float_double(x.dtype(), "upsample_bilinear2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Taps<T> th = linear_taps<T>(g.H, g.OH, g.align_corners, g.scales_h);
    const Taps<T> tw = linear_taps<T>(g.W, g.OW, g.align_corners, g.scales_w);
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * out_plane * 4))
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* xs = xp + p * in_plane;
      T* os = op + p * out_plane;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const T* r0 = xs + th.i0[oh] * g.W;
        const T* r1 = xs + th.i1[oh] * g.W;
        const T h0 = th.l0[oh], h1 = th.l1[oh];
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t a = tw.i0[ow], b = tw.i1[ow];
          const T w0 = tw.l0[ow], w1 = tw.l1[ow];
          os[oh * g.OW + ow] = h0 * (w0 * r0[a] + w1 * r0[b]) + h1 * (w0 * r1[a] + w1 * r1[b]);
        }
      }
    }
  });
}

void upsample_bilinear2d_backward_kernel(const BilinearGeom& g, const Tensor& gy, const Tensor& gx) {
  dispatch_float_double(gy.dtype(), "upsample_bilinear2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Taps<T> th = linear_taps<T>(g.H, g.OH, g.align_corners, g.scales_h);
    const Taps<T> tw = linear_taps<T>(g.W, g.OW, g.align_corners, g.scales_w);
    const T* gyp = gy.data_ptr<T>();
    T* gxp = gx.data_ptr<T>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * out_plane * 4))
    for (int64_t p = 0; p < g.planes; ++p) {
      T* gs = gxp + p * in_plane;
      std::memset(gs, 0, sizeof(T) * static_cast<size_t>(in_plane));
      const T* ys = gyp + p * out_plane;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        T* r0 = gs + th.i0[oh] * g.W;
        T* r1 = gs + th.i1[oh] * g.W;
        const T h0 = th.l0[oh], h1 = th.l1[oh];
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t a = tw.i0[ow], b = tw.i1[ow];
          const T w0 = tw.l0[ow], w1 = tw.l1[ow], y = ys[oh * g.OW + ow];
          r0[a] += h0 * w0 * y;
          r0[b] += h0 * w1 * y;
          r1[a] += h1 * w0 * y;
          r1[b] += h1 * w1 * y;
        }
      }
    }
  });
}

}  // namespace

TL_REGISTER_STUB(upsample_bilinear2d_stub, CPU, &upsample_bilinear2d_kernel);
TL_REGISTER_STUB(upsample_bilinear2d_backward_stub, CPU, &upsample_bilinear2d_backward_kernel);

}  // namespace tl::native
