// CUDA sort of rows (sort_rows_stub, Sorting.h): CUB's radix sort, stable, over one row
// (DeviceRadixSort) or many (DeviceSegmentedRadixSort). The keys are a copy put in radix order
// first: Half/BFloat16 as float, bool as uint8, every NaN made the positive quiet NaN (which
// radix order puts above +inf, PyTorch's NaN order) and -0.0 made +0.0 (equal values keep their
// order). A descending sort sorts the keys' reverse order ascending: floats negated (NaN then
// comes first, as in PyTorch), integers complemented (~x = -x - 1 reverses them without
// overflow). Each CUB sort instantiates many kernels, and ascending alone halves this file's
// compile time. The sorted values are then read from the input at the sorted indices.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <cmath>
#include <limits>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/Sorting.h"
#include "generated/ops/add.h"
#include "generated/ops/arange.h"
#include "generated/ops/bitwise_not.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/gather.h"
#include "generated/ops/isnan.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/remainder.h"
#include "generated/ops/to.h"
#include "generated/ops/where.h"

namespace tl::native {

namespace {

// Keys whose ascending radix order is the order the sort wants.
Tensor radix_keys(const Tensor& rows, bool descending) {
  const ScalarType dt = rows.dtype();
  if (!is_floating_point(dt)) {
    const Tensor keys = dt == ScalarType::Bool ? rows.to(ScalarType::Byte) : rows;
    return descending ? keys.bitwise_not() : keys;
  }
  Tensor x = low_precision(dt) ? rows.to(ScalarType::Float) : rows;
  x = tl::where(x.isnan(), Scalar(std::nan("")), x.add(0.0));
  return descending ? x.neg() : x;
}

template <typename K>
void radix_sort(const Tensor& keys, int64_t n, int64_t segments, const Tensor& order_in,
                const Tensor& indices, cudaStream_t stream) {
  const K* k_in = static_cast<const K*>(keys.data_ptr());
  Tensor keys_out = empty_tensor(keys.sizes(), keys.options());
  K* k_out = static_cast<K*>(keys_out.data_ptr());
  const int64_t* v_in = static_cast<const int64_t*>(order_in.data_ptr());
  int64_t* v_out = static_cast<int64_t*>(indices.data_ptr());
  const int items = static_cast<int>(keys.numel());
  // Segment r is [r * n, (r + 1) * n).
  Tensor bounds = tl::arange(Scalar(segments + 1), ScalarType::Long, std::nullopt, keys.device()).mul(n);
  const int64_t* b = static_cast<const int64_t*>(bounds.data_ptr());
  auto run = [&](void* temp, size_t& bytes) {
    if (segments == 1)
      return cub::DeviceRadixSort::SortPairs(temp, bytes, k_in, k_out, v_in, v_out, items, 0, int(sizeof(K) * 8),
                                             stream);
    const int segs = static_cast<int>(segments);
    return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, k_in, k_out, v_in, v_out, items, segs, b, b + 1, 0,
                                                    int(sizeof(K) * 8), stream);
  };
  size_t bytes = 0;
  TL_CUDA_CHECK(run(nullptr, bytes));
  const std::vector<int64_t> temp_shape{static_cast<int64_t>(bytes > 0 ? bytes : 1)};
  Tensor temp = empty_tensor(temp_shape, TensorOptions(ScalarType::Byte, keys.device()));
  TL_CUDA_CHECK(run(temp.data_ptr(), bytes));
}

void sort_rows_cuda(const Tensor& rows, bool descending, const Tensor& values, const Tensor& indices) {
  const int64_t n = rows.size(rows.dim() - 1), total = rows.numel();
  TL_CHECK(total <= std::numeric_limits<int32_t>::max(), "sort on CUDA supports at most 2^31 - 1 elements, got ",
           total);
  const int device = rows.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const Tensor keys = radix_keys(rows, descending).contiguous();
  // Each element's index within its row: the payload the sort carries along.
  const Tensor order = tl::arange(Scalar(total), ScalarType::Long, std::nullopt, rows.device()).remainder(n);
  switch (keys.dtype()) {
    case ScalarType::Byte: radix_sort<uint8_t>(keys, n, total / n, order, indices, stream); break;
    case ScalarType::Char: radix_sort<int8_t>(keys, n, total / n, order, indices, stream); break;
    case ScalarType::Short: radix_sort<int16_t>(keys, n, total / n, order, indices, stream); break;
    case ScalarType::Int: radix_sort<int32_t>(keys, n, total / n, order, indices, stream); break;
    case ScalarType::Long: radix_sort<int64_t>(keys, n, total / n, order, indices, stream); break;
    case ScalarType::Float: radix_sort<float>(keys, n, total / n, order, indices, stream); break;
    case ScalarType::Double: radix_sort<double>(keys, n, total / n, order, indices, stream); break;
    default: dtype_not_implemented("sort", rows.dtype());
  }
  values.copy_(rows.gather(-1, indices));
}

}  // namespace

TL_REGISTER_STUB(sort_rows_stub, CUDA, &sort_rows_cuda);

}  // namespace tl::native
