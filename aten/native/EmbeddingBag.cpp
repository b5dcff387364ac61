// embedding_bag: bags of embedding rows reduced by sum, mean or max in one pass over each bag's
// indices (bags in parallel; the loop is a stub, EmbeddingBag.h). Its gradients are composites of
// index_select/index_add, so they differentiate again. Bag b holds indices[offsets[b],
// offsets[b + 1]); the last bag runs to the end of `indices`, include_last_offset or not (as in
// PyTorch).
#include "aten/native/EmbeddingBag.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"
#include "generated/ops/_embedding_bag.h"
#include "generated/ops/_embedding_bag_backward_native.h"
#include "generated/ops/_embedding_bag_native.h"
#include "generated/ops/_embedding_bag_per_sample_weights_backward_native.h"
#include "generated/ops/add.h"
#include "generated/ops/arange.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/div.h"
#include "generated/ops/embedding_bag_native.h"
#include "generated/ops/gt.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_select.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/ones.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/reshape.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/zero.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

constexpr int64_t kSum = 0, kMean = 1, kMax = 2;

bool has(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

std::string sizes_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

void check_index_dtype(const Tensor& t, int arg, const char* name) {
  TL_CHECK(t.dtype() == ScalarType::Long || t.dtype() == ScalarType::Int, "Expected tensor for argument #", arg, " '",
           name, "' to have one of the following scalar types: Long, Int; but got ", dtype_name(t.dtype()),
           " instead (while checking arguments for embedding_bag)");
}

using BagTuple = std::tuple<Tensor, Tensor, Tensor, Tensor>;

// One bag's weighted sum of rows, kBlock columns at a time: the block's accumulators stay in
// registers over the whole bag instead of being reloaded from the output for every row.
template <typename T>
void sum_bag(T* __restrict o, const T* __restrict w, const int64_t* ip, const T* pp, int64_t start, int64_t end,
             int64_t padding_idx, int64_t D) {
  constexpr int64_t kBlock = 32;
  int64_t d0 = 0;
  for (; d0 + kBlock <= D; d0 += kBlock) {
    T acc[kBlock] = {};
    for (int64_t i = start; i < end; ++i) {
      if (ip[i] == padding_idx) continue;
      const T s = pp ? pp[i] : T(1);
      const T* row = w + ip[i] * D + d0;
      for (int64_t d = 0; d < kBlock; ++d) acc[d] += s * row[d];
    }
    std::copy(acc, acc + kBlock, o + d0);
  }
  if (d0 == D) return;
  std::fill(o + d0, o + D, T(0));
  for (int64_t i = start; i < end; ++i) {
    if (ip[i] == padding_idx) continue;
    const T s = pp ? pp[i] : T(1);
    const T* row = w + ip[i] * D;
    for (int64_t d = d0; d < D; ++d) o[d] += s * row[d];
  }
}

// The CPU loop: bags in parallel, each one pass over its indices.
void embedding_bag_kernel(const Tensor& w, const Tensor& idx, const Tensor& off, const Tensor& psw, int64_t mode,
                          int64_t padding_idx, const Tensor& out, const Tensor& offset2bag, const Tensor& bag_size,
                          const Tensor& max_indices) {
  const int64_t B = out.sizes()[0], D = out.sizes()[1], n = idx.numel();
  const int64_t* ip = idx.data_ptr<int64_t>();
  const int64_t* op = off.data_ptr<int64_t>();
  int64_t* o2bp = offset2bag.data_ptr<int64_t>();
  int64_t* bsp = bag_size.data_ptr<int64_t>();
  int64_t* mip = mode == kMax ? max_indices.data_ptr<int64_t>() : nullptr;
  dispatch_float_double(w.dtype(), "embedding_bag", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* wp = w.data_ptr<T>();
    const T* pp = psw.defined() ? psw.data_ptr<T>() : nullptr;
    T* outp = out.data_ptr<T>();
#pragma omp parallel for schedule(static) if (n * D > (1 << 15))
    for (int64_t b = 0; b < B; ++b) {
      const int64_t start = op[b], end = b + 1 < B ? op[b + 1] : n;
      T* o = outp + b * D;
      int64_t count = 0;
      for (int64_t i = start; i < end; ++i) {
        o2bp[i] = b;
        count += ip[i] != padding_idx;
      }
      bsp[b] = count;
      if (mode != kMax) {
        sum_bag(o, wp, ip, pp, start, end, padding_idx, D);
        if (mode == kMean && count > 0) {
          for (int64_t d = 0; d < D; ++d) o[d] /= static_cast<T>(count);
        }
        continue;
      }
      std::fill(o, o + D, T(0));  // an empty bag's maximum is 0
      int64_t* m = mip + b * D;
      bool first = true;
      for (int64_t i = start; i < end; ++i) {
        const int64_t r = ip[i];
        if (r == padding_idx) continue;
        const T* row = wp + r * D;
        if (first) {
          std::copy(row, row + D, o);
          std::fill(m, m + D, r);
          first = false;
          continue;
        }
        for (int64_t d = 0; d < D; ++d) {  // selects, not branches, so the loop vectorises
          const bool above = row[d] > o[d];
          o[d] = above ? row[d] : o[d];
          m[d] = above ? r : m[d];
        }
      }
    }
  });
}

}  // namespace

DispatchStub<void(const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, const Tensor&,
                  const Tensor&, const Tensor&, const Tensor&)>
    embedding_bag_stub("embedding_bag");
TL_REGISTER_STUB(embedding_bag_stub, CPU, &embedding_bag_kernel);

BagTuple _embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                            bool scale_grad_by_freq, int64_t mode, bool sparse,
                            const std::optional<Tensor>& per_sample_weights, bool include_last_offset,
                            int64_t padding_idx) {
  TL_CHECK(weight.dim() == 2, "weight has to be a 2D Tensor, but got Tensor of dimension ", weight.dim());
  check_index_dtype(indices, 1, "indices");
  check_index_dtype(offsets, 2, "offsets");
  TL_CHECK(indices.dim() == 1, "embedding_bag: input has to be a 1D Tensor, but got Tensor of dimension ",
           indices.dim());
  TL_CHECK(offsets.dim() == 1, "embedding_bag: offsets has to be a 1D Tensor, but got Tensor of dimension ",
           offsets.dim());
  TL_CHECK(mode >= kSum && mode <= kMax, "`mode` must be sum, mean, or max.");
  TL_CHECK(!sparse, "embedding_bag(): sparse=True (sparse gradients) is not supported");
  const int64_t num_weights = weight.sizes()[0], D = weight.sizes()[1], n = indices.numel();
  TL_CHECK(padding_idx >= -1 && padding_idx < num_weights, "embedding_bag: padding_idx must be -1 (none) or in [0, ",
           num_weights, "), but got ", padding_idx);
  if (has(per_sample_weights)) {
    TL_CHECK(mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    TL_CHECK(per_sample_weights->dtype() == weight.dtype(),
             "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
             "'per_sample_weights'; but type ", dtype_name(weight.dtype()), " does not equal ",
             dtype_name(per_sample_weights->dtype()), " (while checking arguments for embedding_bag)");
    TL_CHECK(per_sample_weights->dim() == 1 && per_sample_weights->numel() == n,
             "embedding_bag: per_sample_weights of shape ", sizes_str(per_sample_weights->sizes()),
             " must be 1-D with as many elements as indices (", n, ")");
  }
  if (include_last_offset) {
    TL_CHECK(offsets.numel() >= 1, "include_last_offset: number of offset should be at least 1");
  }
  if (low_precision(weight.dtype())) {
    auto [out, o2b, bag_size, max_idx] = native::_embedding_bag(
        weight.to(ScalarType::Float), indices, offsets, scale_grad_by_freq, mode, sparse,
        has(per_sample_weights) ? std::optional<Tensor>(per_sample_weights->to(ScalarType::Float)) : std::nullopt,
        include_last_offset, padding_idx);
    return {out.to(weight.dtype()), o2b, bag_size, max_idx};
  }
  const int64_t B = include_last_offset ? offsets.numel() - 1 : offsets.numel();
  Tensor idx = indices.to(ScalarType::Long).contiguous(), off = offsets.to(ScalarType::Long).contiguous();
  {  // the index values are checked on a host copy (one transfer per tensor on another device)
    const Device cpu(DeviceType::CPU);
    const Tensor idx_h = idx.is_cpu() ? idx : idx.to(cpu), off_h = off.is_cpu() ? off : off.to(cpu);
    const int64_t* ip = idx_h.data_ptr<int64_t>();
    const int64_t* op = off_h.data_ptr<int64_t>();
    if (off.numel() > 0) {
      TL_CHECK(op[0] == 0, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
               "position 0. However, got ", op[0]);
      const int64_t last = op[off.numel() - 1];
      TL_CHECK(last <= n, "offsets[-1] can not be greater than input's length ", n, " but got offsets[-1] of ", last);
      for (int64_t b = 1; b < off.numel(); ++b) {
        TL_CHECK(op[b] >= op[b - 1], "embedding_bag: offsets must be non-decreasing, but offsets[", b, "] = ", op[b],
                 " is less than offsets[", b - 1, "] = ", op[b - 1]);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      TL_CHECK(ip[i] >= 0 && ip[i] < num_weights, "Index ", i, " of input takes value ", ip[i],
               " which is not in the valid range [0, ", num_weights, ")");
    }
  }
  const Device dev = weight.device();
  Tensor w = weight.contiguous();
  Tensor psw = has(per_sample_weights) ? per_sample_weights->contiguous() : Tensor();
  Tensor out = empty_tensor({B, D}, weight.options());
  Tensor offset2bag = tl::zeros({n}, ScalarType::Long, std::nullopt, dev);
  Tensor bag_size = tl::zeros({B}, ScalarType::Long, std::nullopt, dev);
  Tensor max_indices = mode == kMax ? tl::zeros({B, D}, ScalarType::Long, std::nullopt, dev) : Tensor();
  if (B > 0) embedding_bag_stub(dev.type, w, idx, off, psw, mode, padding_idx, out, offset2bag, bag_size, max_indices);
  // PyTorch's conventions for the by-products: sum mode reports no bag sizes, and outside max
  // mode max_indices repeats bag_size.
  if (mode == kSum) bag_size.zero_();
  if (mode != kMax) max_indices = bag_size.clone();
  const ScalarType it = indices.dtype();
  return {out, offset2bag.to(it), bag_size.to(it), max_indices.to(it)};
}

BagTuple embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
                       int64_t mode, bool sparse, const std::optional<Tensor>& per_sample_weights,
                       bool include_last_offset) {
  return tl::_embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                            include_last_offset, -1);
}

BagTuple embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
                       int64_t mode, bool sparse, const std::optional<Tensor>& per_sample_weights,
                       bool include_last_offset, std::optional<int64_t> padding_idx) {
  int64_t pad = -1;
  if (padding_idx.has_value()) {
    const int64_t nw = weight.dim() == 2 ? weight.sizes()[0] : 0;
    TL_CHECK(*padding_idx >= -nw && *padding_idx < nw, "padding_idx must be within the number of embeddings, ", -nw,
             " through ", nw - 1, ", but got ", *padding_idx);
    pad = *padding_idx < 0 ? *padding_idx + nw : *padding_idx;
  }
  return tl::_embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                            include_last_offset, pad);
}

// d output[b] / d weight[r]: every index of bag b adds its row's share of grad[b] (scaled by its
// per-sample weight, 1 / bag size in mean mode, 1 / its frequency under scale_grad_by_freq); in
// max mode each element goes to the row that held the maximum.
Tensor _embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& offsets,
                               const Tensor& offset2bag, const Tensor& bag_size, const Tensor& maximum_indices,
                               int64_t num_weights, bool scale_grad_by_freq, int64_t mode, bool sparse,
                               const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  TL_CHECK(!sparse, "embedding_bag(): sparse=True (sparse gradients) is not supported");
  TL_CHECK(grad.dim() == 2, "embedding_bag_backward: grad must be 2-D, got shape ", sizes_str(grad.sizes()));
  const int64_t D = grad.sizes()[1];
  const ScalarType dt = grad.dtype();
  if (mode == kMax) {
    // Empty bags (output 0) took nothing from any row.
    Tensor g = grad.mul(bag_size.gt(0).unsqueeze(1).to(dt));
    Tensor cols = tl::arange(Scalar(D), ScalarType::Long, std::nullopt, grad.device());
    Tensor flat = maximum_indices.to(ScalarType::Long).mul(D).add(cols).reshape({-1});
    return tl::zeros({num_weights * D}, dt, std::nullopt, grad.device())
        .index_add(0, flat, g.reshape({-1}))
        .view({num_weights, D});
  }
  Tensor idx = indices.to(ScalarType::Long);
  Tensor o2b = offset2bag.to(ScalarType::Long);
  Tensor scale;  // per index; undefined means 1
  auto scale_by = [&](const Tensor& f) { scale = scale.defined() ? scale.mul(f) : f; };
  if (has(per_sample_weights)) scale = *per_sample_weights;
  if (mode == kMean) scale_by(tl::index_select(bag_size, 0, o2b).clamp_min(1).to(dt).reciprocal());
  if (padding_idx >= 0) scale_by(idx.ne(padding_idx).to(dt));
  if (scale_grad_by_freq) {
    Tensor counts = tl::zeros({num_weights}, dt, std::nullopt, grad.device())
                        .index_add(0, idx, tl::ones({idx.numel()}, dt, std::nullopt, grad.device()));
    scale_by(tl::index_select(counts, 0, idx).reciprocal());
  }
  Tensor rows = tl::index_select(grad, 0, o2b);
  if (scale.defined()) rows = rows.mul(scale.unsqueeze(1));
  return tl::zeros({num_weights, D}, dt, std::nullopt, grad.device()).index_add(0, idx, rows);
}

// d output[b] / d per_sample_weights[i] = weight[indices[i]] (sum mode): its dot with grad[b].
Tensor _embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                  const Tensor& offsets, const Tensor& offset2bag, int64_t mode,
                                                  int64_t padding_idx) {
  TL_CHECK(mode == kSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  Tensor idx = indices.to(ScalarType::Long);
  Tensor r = tl::index_select(grad, 0, offset2bag.to(ScalarType::Long))
                 .mul(tl::index_select(weight, 0, idx))
                 .sum(std::vector<int64_t>{1});
  return padding_idx >= 0 ? r.mul(idx.ne(padding_idx).to(r.dtype())) : r;
}

}  // namespace tl::native
