#include "torchlite/csrc/autograd/functions_manual_spectral.h"

#include "generated/ops/_fft_c2c.h"
#include "generated/ops/_fft_r2c.h"
#include "generated/ops/cat.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/real.h"
#include "generated/ops/zeros.h"

namespace tl::autograd {

Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        IntArrayRef self_sizes) {
  Tensor full = grad;
  if (onesided) {
    const int64_t last = wrap_dim(dim.back(), grad.dim());
    const int64_t missing = self_sizes[last] - grad.sizes()[last];
    if (missing > 0) {
      std::vector<int64_t> pad_sizes(grad.sizes().begin(), grad.sizes().end());
      pad_sizes[last] = missing;
      full = tl::cat({grad, tl::zeros(pad_sizes, grad.dtype(), std::nullopt, grad.device())}, last);
    }
  }
  return tl::real(tl::_fft_c2c(full, dim, normalization, false));
}

Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization) {
  const Tensor g = tl::_fft_r2c(grad, dim, normalization, true);
  const int64_t last = wrap_dim(dim.back(), grad.dim());
  const int64_t doubled = grad.sizes()[last] - g.sizes()[last];
  if (doubled <= 0) return g;
  const int64_t rest = g.sizes()[last] - 1 - doubled;
  std::vector<Tensor> parts{g.narrow(last, 0, 1), g.narrow(last, 1, doubled).mul(2)};
  if (rest > 0) parts.push_back(g.narrow(last, 1 + doubled, rest));
  return tl::cat(parts, last);
}

}  // namespace tl::autograd
