// CPU loops of reflection / replication padding (geometry in Padding.h). Planes are independent:
// OpenMP splits them when the work is large enough.
#include <cstring>

#include "aten/native/Padding.h"
#include "aten/native/Parallel.h"

namespace tl::native {

namespace {

// Gathers with T a same-sized unsigned integer: the copy needs only the element size.
template <typename T>
void gather_loop(const PlaneGather& g, const Tensor& x, const Tensor& out) {
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  const int64_t in_plane = g.D * g.H * g.W, out_plane = g.OD * g.OH * g.OW;
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * out_plane))
  for (int64_t p = 0; p < g.planes; ++p) {
    const T* xs = xp + p * in_plane;
    T* os = op + p * out_plane;
    for (int64_t od = 0; od < g.OD; ++od) {
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const T* row = xs + (g.id[od] * g.H + g.ih[oh]) * g.W;
        T* orow = os + (od * g.OH + oh) * g.OW;
        for (int64_t ow = 0; ow < g.OW; ++ow) orow[ow] = row[g.iw[ow]];
      }
    }
  }
}

template <typename T>
void scatter_loop(const PlaneGather& g, const Tensor& gy, const Tensor& gx) {
  const T* gyp = gy.data_ptr<T>();
  T* gxp = gx.data_ptr<T>();
  const int64_t in_plane = g.D * g.H * g.W, out_plane = g.OD * g.OH * g.OW;
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * out_plane))
  for (int64_t p = 0; p < g.planes; ++p) {
    T* gs = gxp + p * in_plane;
    std::memset(gs, 0, sizeof(T) * static_cast<size_t>(in_plane));
    const T* ys = gyp + p * out_plane;
    for (int64_t od = 0; od < g.OD; ++od) {
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        T* row = gs + (g.id[od] * g.H + g.ih[oh]) * g.W;
        const T* yrow = ys + (od * g.OH + oh) * g.OW;
        for (int64_t ow = 0; ow < g.OW; ++ow) row[g.iw[ow]] += yrow[ow];
      }
    }
  }
}

void plane_gather_kernel(const PlaneGather& g, const Tensor& x, const Tensor& out) {
  dispatch_by_element_size(x.element_size(),
                           [&](auto zero) { gather_loop<decltype(zero)>(g, x, out); });
}

void plane_scatter_kernel(const PlaneGather& g, const Tensor& gy, const Tensor& gx) {
  dispatch_float_double(gy.dtype(), "plane_scatter (padding / upsampling backward)",
                        [&](auto tag) { scatter_loop<typename decltype(tag)::type>(g, gy, gx); });
}

}  // namespace

TL_REGISTER_STUB(plane_gather_stub, CPU, &plane_gather_kernel);
TL_REGISTER_STUB(plane_scatter_stub, CPU, &plane_scatter_kernel);

}  // namespace tl::native
