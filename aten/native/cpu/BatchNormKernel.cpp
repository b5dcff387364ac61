// The CPU loops of batch norm (Note [Batch norm stubs] in BatchNorm.h): one channel per iteration,
// OpenMP over the channels when the work is large enough.
#include <cmath>

#include "aten/native/BatchNorm.h"
#include "aten/native/OptionalTensor.h"
#include "aten/native/Parallel.h"

namespace tl::native {

namespace {

bool parallel(const BatchNormPlanes& p) { return worth_parallel(p.C, p.C * p.N * p.S); }

void batch_norm_kernel(const BatchNormForward& a) {
  const BatchNormPlanes p = a.p;
  const int64_t count = p.N * p.S;
  dispatch_float_double(a.x.dtype(), "native_batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *xp = a.x.data_ptr<T>(), *wp = ptr_or_null<T>(a.weight), *bp = ptr_or_null<T>(a.bias);
    T *yp = a.y.data_ptr<T>(), *smp = a.save_mean.data_ptr<T>(), *sip = a.save_invstd.data_ptr<T>();
    T *rmp = ptr_or_null<T>(a.running_mean), *rvp = ptr_or_null<T>(a.running_var);
#pragma omp parallel for schedule(static) if (parallel(p))
    for (int64_t c = 0; c < p.C; ++c) {
      T mu, invstd;
      if (a.training) {
        double sum = 0;
        for (int64_t n = 0; n < p.N; ++n) {
          const T* xs = xp + (n * p.C + c) * p.S;
#pragma omp simd reduction(+ : sum)
          for (int64_t s = 0; s < p.S; ++s) sum += xs[s];
        }
        mu = static_cast<T>(sum / count);
        double ss = 0;
        for (int64_t n = 0; n < p.N; ++n) {
          const T* xs = xp + (n * p.C + c) * p.S;
#pragma omp simd reduction(+ : ss)
          for (int64_t s = 0; s < p.S; ++s) ss += double(xs[s] - mu) * double(xs[s] - mu);
        }
        invstd = static_cast<T>(1.0 / std::sqrt(ss / count + a.eps));
        const T mom = static_cast<T>(a.momentum);
        if (rmp) rmp[c] = (1 - mom) * rmp[c] + mom * mu;
        if (rvp) rvp[c] = (1 - mom) * rvp[c] + mom * static_cast<T>(ss / double(count - 1));
      } else {
        mu = rmp[c];
        invstd = T(1) / std::sqrt(rvp[c] + static_cast<T>(a.eps));
      }
      smp[c] = mu;
      sip[c] = invstd;
      const T scale = wp ? wp[c] * invstd : invstd, shift = (bp ? bp[c] : T(0)) - mu * scale;
      for (int64_t n = 0; n < p.N; ++n) {
        const T* xs = xp + (n * p.C + c) * p.S;
        T* ys = yp + (n * p.C + c) * p.S;
#pragma omp simd
        for (int64_t s = 0; s < p.S; ++s) ys[s] = xs[s] * scale + shift;
      }
    }
  });
}

void batch_norm_backward_kernel(const BatchNormBackward& a) {
  const BatchNormPlanes p = a.p;
  const int64_t count = p.N * p.S;
  dispatch_float_double(a.x.dtype(), "native_batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *gp = a.grad_out.data_ptr<T>(), *xp = a.x.data_ptr<T>(), *wp = ptr_or_null<T>(a.weight);
    const T *mp = a.mean.data_ptr<T>(), *ip = a.invstd.data_ptr<T>();
    T *gxp = ptr_or_null<T>(a.grad_input), *gwp = ptr_or_null<T>(a.grad_weight), *gbp = ptr_or_null<T>(a.grad_bias);
#pragma omp parallel for schedule(static) if (parallel(p))
    for (int64_t c = 0; c < p.C; ++c) {
      const T m = mp[c], r = ip[c], wc = wp ? wp[c] : T(1);
      T sum_g = 0, sum_gxh = 0;  // sums of grad and of grad * xhat over the channel
      for (int64_t n = 0; n < p.N; ++n) {
        const T *g = gp + (n * p.C + c) * p.S, *xs = xp + (n * p.C + c) * p.S;
#pragma omp simd reduction(+ : sum_g, sum_gxh)
        for (int64_t s = 0; s < p.S; ++s) {
          sum_g += g[s];
          sum_gxh += g[s] * (xs[s] - m);
        }
      }
      sum_gxh *= r;
      if (gwp) gwp[c] = sum_gxh;
      if (gbp) gbp[c] = sum_g;
      if (!gxp) continue;
      const T k_a = a.train && count > 0 ? sum_g / count : T(0), k = a.train && count > 0 ? sum_gxh * r / count : T(0);
      for (int64_t n = 0; n < p.N; ++n) {
        const T *g = gp + (n * p.C + c) * p.S, *xs = xp + (n * p.C + c) * p.S;
        T* o = gxp + (n * p.C + c) * p.S;
#pragma omp simd
        for (int64_t s = 0; s < p.S; ++s) o[s] = wc * r * (g[s] - k_a - (xs[s] - m) * k);
      }
    }
  });
}

}  // namespace

TL_REGISTER_STUB(batch_norm_stub, CPU, &batch_norm_kernel);
TL_REGISTER_STUB(batch_norm_backward_stub, CPU, &batch_norm_backward_kernel);

}  // namespace tl::native
