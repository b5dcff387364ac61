// searchsorted and bucketize: a binary search of each value in its row of sorted boundaries.
// A 1-D boundaries tensor serves every value; otherwise boundaries and values share their leading
// dims and row r of values is searched in row r of boundaries.
#include <algorithm>
#include <string>
#include <type_traits>

#include "aten/native/Bucketize.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/Parallel.h"
#include "generated/ops/bucketize.h"
#include "generated/ops/bucketize_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/full.h"
#include "generated/ops/gather.h"
#include "generated/ops/searchsorted.h"
#include "generated/ops/searchsorted_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

constexpr int64_t kGrain = 1 << 12;

std::string shape_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// A 0-dim tensor holding the scalar, in the dtype the boundaries are searched in.
Tensor value_tensor(const Scalar& v, const Tensor& boundaries) {
  const bool same_kind = is_floating_point(boundaries.dtype()) || !v.is_floating_point();
  return tl::full({}, v, same_kind ? boundaries.dtype() : default_dtype(), std::nullopt, boundaries.device());
}

// The CPU loop behind searchsorted_stub.
void searchsorted_kernel_cpu(const Tensor& seq, const Tensor& vals, const Tensor& result, bool right,
                             int64_t per_row) {
  const int64_t n = seq.sizes().back();
  dispatch_all_types(seq.dtype(), "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = seq.data_ptr<T>();
    const T* v = vals.data_ptr<T>();
    auto search = [&](auto* out) {
      const int64_t total = vals.numel();
#pragma omp parallel for schedule(static) if (worth_parallel(total, total, kGrain))
      for (int64_t i = 0; i < total; ++i) {
        const T* row = s + (per_row == 0 ? 0 : (i / per_row) * n);
        const T* pos = right ? std::upper_bound(row, row + n, v[i]) : std::lower_bound(row, row + n, v[i]);
        out[i] = static_cast<std::remove_pointer_t<decltype(out)>>(pos - row);
      }
    };
    if (result.dtype() == ScalarType::Int) search(result.data_ptr<int32_t>());
    else search(result.data_ptr<int64_t>());
  });
}

}  // namespace

DispatchStub<void(const Tensor&, const Tensor&, const Tensor&, bool, int64_t)> searchsorted_stub("searchsorted");
TL_REGISTER_STUB(searchsorted_stub, CPU, &searchsorted_kernel_cpu);

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  if (side) {
    TL_CHECK(*side == "left" || *side == "right", "torch.searchsorted(): side can only be 'left' or 'right' but ",
             "got ", *side);
    TL_CHECK(!right || *side == "right", "torch.searchsorted(): side and right can't be set to opposites, got side "
             "of ", *side, " while right was True");
    right = *side == "right";
  }
  const Tensor& b = sorted_sequence;
  TL_CHECK(b.dim() >= 1, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
           "dimension");
  bool leading_match = b.dim() == 1;
  if (!leading_match && b.dim() == self.dim()) {
    leading_match = true;
    for (int64_t i = 0; i + 1 < b.dim(); ++i) leading_match = leading_match && b.sizes()[i] == self.sizes()[i];
  }
  TL_CHECK(leading_match, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
           "of boundaries tensor and input value tensor must match, but we got boundaries tensor ",
           shape_str(b.sizes()), " and input value tensor ", shape_str(self.sizes()));
  const bool sorted_given = sorter.has_value() && sorter->defined();
  if (sorted_given) {
    TL_CHECK(sorter->dtype() == ScalarType::Long, "torch.searchsorted(): sorter must be a tensor of long dtype but got ",
             scalar_type_cpp_name(sorter->dtype()));
    TL_CHECK(sorter->sizes().equals(b.sizes()), "torch.searchsorted(): boundary and sorter must have the same size, "
             "but got boundary tensor ", shape_str(b.sizes()), "and got sorter tensor ", shape_str(sorter->sizes()));
  }
  const ScalarType common = promote_types(b.dtype(), self.dtype());
  // The sorter's order applied up front: a sorted copy of each row.
  Tensor seq = (sorted_given ? b.gather(-1, *sorter) : b).to(common).contiguous();
  Tensor vals = self.to(common).contiguous();
  const ScalarType rt = out_int32 ? ScalarType::Int : ScalarType::Long;
  Tensor result = empty_tensor(self.sizes(), TensorOptions(rt, self.device()));
  const int64_t n = seq.sizes().back();
  const int64_t rows = n == 0 ? 1 : seq.numel() / n;
  const int64_t per_row = b.dim() == 1 ? 0 : (rows == 0 ? 0 : vals.numel() / rows);  // 0: one row for all
  if (vals.numel() > 0) searchsorted_stub(self.device().type, seq, vals, result, right, per_row);
  return result;
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  TL_CHECK(sorted_sequence.dim() == 1, "torch.searchsorted(): input value can be a scalar only when boundaries "
           "tensor dimension is 1, but we got boundaries tensor dim(", sorted_sequence.dim(),
           ") and input value's dim(0) numel(1)");
  return tl::searchsorted(sorted_sequence, value_tensor(self, sorted_sequence), out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  TL_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return tl::searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return tl::bucketize(value_tensor(self, boundaries), boundaries, out_int32, right);
}

}  // namespace tl::native
