// embedding (a row lookup through index_select), its dense backward, and one_hot.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/IndexingUtils.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/div.h"
#include "generated/ops/embedding.h"
#include "generated/ops/embedding_dense_backward_native.h"
#include "generated/ops/embedding_native.h"
#include "generated/ops/gather.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_select.h"
#include "generated/ops/max.h"
#include "generated/ops/min.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/one_hot.h"
#include "generated/ops/one_hot_native.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/reshape.h"
#include "generated/ops/scatter.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {
void check_embedding_indices(const Tensor& indices, const char* op) {
  TL_CHECK(indices.dtype() == ScalarType::Long || indices.dtype() == ScalarType::Int, op,
           "(): Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
           "but got ", dtype_name(indices.dtype()), " instead");
}

// The checked indices of an embedding backward as n int64 values, and grad_output as their n
// gradient rows (n x embedding dim); the index values are checked on a host copy.
std::pair<Tensor, Tensor> embedding_backward_rows(const Tensor& grad_output, const Tensor& indices,
                                                  int64_t num_weights) {
  check_embedding_indices(indices, "embedding_backward");
  TL_CHECK(grad_output.dim() >= 1, "embedding_backward(): grad_output must have at least 1 dimension, got a 0-dim tensor");
  const std::vector<int64_t> flat{-1};
  Tensor idx = indices.reshape(flat).to(ScalarType::Long).contiguous();
  const int64_t n = idx.numel();
  const int64_t dim = grad_output.numel() / std::max<int64_t>(n, 1);
  TL_CHECK(n == 0 || grad_output.numel() == n * dim, "embedding_backward(): grad_output of shape ",
           index_sizes_str(grad_output.sizes()), " does not match indices of shape ", index_sizes_str(indices.sizes()));
  const int64_t d = n > 0 ? dim : grad_output.sizes()[grad_output.dim() - 1];
  const Tensor host = idx.is_cpu() ? idx : idx.to(Device(DeviceType::CPU));
  const int64_t* ip = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK_INDEX(ip[i] >= 0 && ip[i] < num_weights, "embedding_backward(): index ", ip[i],
                   " is out of bounds for num_weights ", num_weights);
  }
  const std::vector<int64_t> rows{n, d};
  return {idx, grad_output.reshape(rows).contiguous()};
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool sparse) {
  TL_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  TL_CHECK(!sparse, "embedding(): sparse=True (sparse gradients) is not supported");
  check_embedding_indices(indices, "embedding");
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.sizes()[1]);
  return tl::index_select(weight, 0, indices.reshape({-1})).view(shape);
}

Tensor embedding_dense_backward_cpu(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq) {
  auto [idx, g] = embedding_backward_rows(grad_output, indices, num_weights);
  const int64_t n = idx.numel(), d = g.sizes()[1];
  // Rows no index hits (and the padding row) are zeroed; the first gradient row of each hit row
  // is stored, the later ones added: the table is written once, not zeroed first and then read
  // back (4096x512 float, 8192 indices, one core: 1.54 -> 1.30 ms).
  Tensor gw = empty_tensor({num_weights, d}, grad_output.options());
  const int64_t* ip = idx.data_ptr<int64_t>();
  std::vector<int64_t> counts(static_cast<size_t>(num_weights), 0);
  std::vector<uint8_t> first(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (ip[i] == padding_idx) continue;
    first[i] = counts[ip[i]]++ == 0;
  }
  dispatch_floating_types(grad_output.dtype(), "embedding_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    const T* gp = g.data_ptr<T>();
    T* wp = gw.data_ptr<T>();
    // Threads own column slices (multiples of 16 elements) of every row, so repeated indices
    // need no atomics and each element sums its gradients in index order, whatever the threads.
    const int64_t slices =
        std::clamp<int64_t>((d + 15) / 16, 1, n * d > (1 << 16) ? omp_get_max_threads() : 1);
#pragma omp parallel for schedule(static) num_threads(static_cast<int>(slices))
    for (int64_t t = 0; t < slices; ++t) {
      const int64_t k0 = std::min(d, (d * t / slices + 15) / 16 * 16);
      const int64_t k1 = t + 1 == slices ? d : std::min(d, (d * (t + 1) / slices + 15) / 16 * 16);
      for (int64_t r = 0; r < num_weights; ++r) {
        if (counts[r] == 0) std::fill(wp + r * d + k0, wp + r * d + k1, T(0));
      }
      for (int64_t i = 0; i < n; ++i) {
        if (ip[i] == padding_idx) continue;
        const A scale = scale_grad_by_freq ? A(1) / static_cast<A>(counts[ip[i]]) : A(1);
        T* __restrict row = wp + ip[i] * d;
        const T* __restrict src = gp + i * d;
        if (first[i]) {
          for (int64_t k = k0; k < k1; ++k) row[k] = static_cast<T>(scale * static_cast<A>(src[k]));
        } else {
          for (int64_t k = k0; k < k1; ++k)
            row[k] = static_cast<T>(static_cast<A>(row[k]) + scale * static_cast<A>(src[k]));
        }
      }
    }
  });
  return gw;
}

// The CUDA path: the rows summed with index_add (scaled by 1 / frequency, padding rows dropped).
Tensor embedding_dense_backward_composite(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                          int64_t padding_idx, bool scale_grad_by_freq) {
  auto [idx, g] = embedding_backward_rows(grad_output, indices, num_weights);
  if (!is_floating_point(g.dtype())) dtype_not_implemented("embedding_backward", g.dtype());
  const std::vector<int64_t> shape{num_weights, g.sizes()[1]};
  Tensor scale = idx.ne(padding_idx).to(g.dtype());
  if (scale_grad_by_freq) {
    const std::vector<int64_t> weights{num_weights};
    Tensor counts = tl::zeros(weights, g.dtype(), std::nullopt, g.device()).index_add(0, idx, tl::ones_like(scale));
    scale = scale.div(counts.gather(0, idx));
  }
  return tl::zeros(shape, g.dtype(), std::nullopt, g.device()).index_add(0, idx, g.mul(scale.unsqueeze(1)));
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  TL_CHECK(self.dtype() == ScalarType::Long, "one_hot is only applicable to index tensor of type LongTensor.");
  if (self.numel() == 0) {
    TL_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.");
  } else {
    TL_CHECK(self.min().item().to_long() >= 0, "Class values must be non-negative.");
    const int64_t top = self.max().item().to_long();
    if (num_classes == -1) num_classes = top + 1;
    TL_CHECK(top < num_classes, "Class values must be smaller than num_classes.");
  }
  std::vector<int64_t> shape = self.sizes().vec();
  shape.push_back(num_classes);
  return tl::zeros(shape, ScalarType::Long, std::nullopt, self.device()).scatter_(-1, self.unsqueeze(-1), Scalar(1));
}

}  // namespace tl::native
