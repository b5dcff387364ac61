#include "aten/native/TensorIterator.h"

#include <omp.h>

#include <algorithm>

#include "aten/native/MemoryOverlap.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/to.h"

namespace tl {

namespace {

std::optional<ScalarType> promote_opt(std::optional<ScalarType> a, ScalarType b) {
  return a ? promote_types(*a, b) : b;
}

// PyTorch's combine_categories: a lower tier only matters when its category is higher.
std::optional<ScalarType> combine(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex(*higher)) return higher;
  // A complex lower tier keeps a floating higher tier's precision: float64 + 1j is complex128.
  if (is_complex(*lower)) return is_floating_point(*higher) ? to_complex_type(*higher) : *lower;
  if (is_floating_point(*higher)) return higher;
  if (*higher == ScalarType::Bool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

// t's byte strides aligned to a broadcast shape of nd dims, innermost dim first (row[0] is the
// last dim's); 0 on broadcast and size-1 dims, which say nothing about memory order.
void aligned_byte_strides(const Tensor& t, int nd, int64_t* row) {
  const int64_t item = static_cast<int64_t>(t.element_size());
  const int offset = nd - static_cast<int>(t.dim());
  for (int d = 0; d < static_cast<int>(t.dim()); ++d)
    row[nd - 1 - (d + offset)] = t.sizes()[d] == 1 ? 0 : t.strides()[d] * item;
}

// The dims (innermost-first indices) ordered from fastest- to slowest-moving in memory, as the
// operands rows[first, last) vote: the first operand whose strides tell two dims apart decides,
// and dims nothing tells apart keep their row-major order. Insertion sort: the order is partial
// (broadcast strides compare with nothing), which std::sort's contract does not allow.
void order_dims(const int64_t (*rows)[TensorIterator::kMaxDims], int first, int last, int nd, int* perm) {
  for (int d = 0; d < nd; ++d) perm[d] = d;
  auto should_swap = [&](int a, int b) {  // a currently before b
    for (int k = first; k < last; ++k) {
      const int64_t sa = rows[k][a], sb = rows[k][b];
      if (sa == 0 || sb == 0) continue;
      if (sa != sb) return sa > sb;
    }
    return false;
  };
  for (int i = 1; i < nd; ++i)
    for (int j = i; j > 0 && should_swap(perm[j - 1], perm[j]); --j) std::swap(perm[j - 1], perm[j]);
}

}  // namespace

ScalarType result_type(TensorList tensors) {
  std::optional<ScalarType> dim_result, zero_result, wrapped_result;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    if (t.impl()->is_wrapped_number()) {
      // A Python float counts as the default dtype, a complex as the default complex dtype,
      // an int as int64, a bool as bool.
      ScalarType w = is_floating_point(t.dtype()) ? default_dtype()
                     : is_complex(t.dtype())      ? default_complex_dtype()
                                                  : t.dtype();
      wrapped_result = promote_opt(wrapped_result, w);
    } else if (t.dim() > 0) {
      dim_result = promote_opt(dim_result, t.dtype());
    } else {
      zero_result = promote_opt(zero_result, t.dtype());
    }
  }
  return combine(dim_result, combine(zero_result, wrapped_result)).value_or(default_dtype());
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && !is_floating_point(to) && !is_complex(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TL_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x, ") must match the size of tensor b (", y,
             ") at non-singleton dimension ", i, "; shapes ", a, " and ", b, " cannot be broadcast together");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

TensorIteratorConfig& TensorIteratorConfig::add_output(const Tensor& t) {
  TL_CHECK(inputs_.empty(), "TensorIteratorConfig: add outputs before inputs");
  outputs_.push_back(t);
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::add_input(const Tensor& t) {
  TL_CHECK(t.defined(), name_, ": expected a defined tensor input");
  inputs_.push_back(t);
  return *this;
}

TensorIterator TensorIteratorConfig::build() {
  TensorIterator it;
  it.noutputs_ = static_cast<int>(outputs_.size());
  it.original_outputs_ = outputs_;
  it.check_overlap(*this);
  it.compute_shape(*this);
  it.compute_types(*this);
  it.allocate_or_check_outputs(*this);
  it.compute_strides_and_coalesce();
  return it;
}

void TensorIterator::compute_shape(const TensorIteratorConfig& c) {
  std::vector<int64_t> shape;
  bool first = true;
  auto join = [&](const Tensor& t) {
    if (!t.defined()) return;  // outputs to allocate
    shape = first ? t.sizes().vec() : broadcast_shapes(shape, t.sizes());
    first = false;
  };
  if (!c.resize_)
    for (const Tensor& t : c.outputs_) join(t);
  for (const Tensor& t : c.inputs_) join(t);
  if (first) {  // no tensor inputs: the shape comes from the outputs (e.g. fill)
    for (const Tensor& t : c.outputs_)
      if (t.defined()) {
        shape = t.sizes().vec();
        break;
      }
  }
  broadcast_shape_ = shape;
  // Device: the first non-scalar tensor's; 0-dim CPU tensors may join a CUDA op.
  device_ = Device(DeviceType::CPU);
  bool have_device = false;
  auto consider = [&](const Tensor& t) {
    if (!t.defined()) return;
    if (!have_device || (device_.is_cpu() && t.is_cuda())) {
      if (!have_device || t.dim() > 0 || !t.is_cpu()) device_ = t.device();
      have_device = true;
    }
  };
  for (const Tensor& t : c.outputs_) consider(t);
  for (const Tensor& t : c.inputs_) consider(t);
  for (const Tensor& t : c.inputs_) {
    if (!t.defined() || t.device() == device_) continue;
    TL_CHECK(t.is_cpu() && t.dim() == 0, "Expected all tensors to be on the same device, but found at least two "
             "devices, ", device_, " and ", t.device(), "! (in ", c.name_, ")");
  }
  for (const Tensor& t : c.outputs_) {
    TL_CHECK(!t.defined() || t.device() == device_, c.name_, ": expected out= tensor on ", device_, " but got ",
             t.device());
  }
}

void TensorIterator::check_overlap(const TensorIteratorConfig& c) const {
  if (!c.check_overlap_) return;
  for (const Tensor& out : c.outputs_) {
    if (!out.defined()) continue;
    assert_no_internal_overlap(out);
    for (const Tensor& in : c.inputs_) assert_no_partial_overlap(out, in);
  }
}

void TensorIterator::compute_types(TensorIteratorConfig& c) {
  if (c.common_dtype_) {
    common_dtype_ = *c.common_dtype_;
  } else {
    const std::vector<Tensor>& ts = c.inputs_;
    if (c.promote_) {
      common_dtype_ = result_type(ts);
    } else {
      common_dtype_ = !ts.empty() ? ts[0].dtype() : c.outputs_.at(0).dtype();
      for (const Tensor& t : ts)
        TL_CHECK_TYPE(t.dtype() == common_dtype_, c.name_, ": expected all inputs to have dtype ", common_dtype_,
                      " but got ", t.dtype());
    }
    if (c.int_to_float_ && !is_floating_point(common_dtype_) && !is_complex(common_dtype_)) common_dtype_ = default_dtype();
  }
  // Cast inputs to the compute dtype; 0-dim CPU inputs of a CUDA op move to the device.
  operands_.resize(c.outputs_.size() + c.inputs_.size());
  for (size_t i = 0; i < c.inputs_.size(); ++i) {
    Tensor t = c.inputs_[i];
    if ((c.promote_ || c.common_dtype_) && t.dtype() != common_dtype_) {
      // A wrapped Python number converts by value: no copy kernel for one element.
      t = t.impl()->is_wrapped_number() ? scalar_to_tensor(t.item(), common_dtype_, device_) : t.to(common_dtype_);
    }
    if (t.device() != device_) t = t.to(device_);
    operands_[c.outputs_.size() + i] = std::move(t);
  }
}

// Note [Output layout]: an output the iterator allocates is laid out in the inputs' memory order
// (PyTorch's rule), so that a.t().exp() or an op on channels_last tensors walks every operand in
// memory order and returns a tensor strided like its inputs, not a row-major one read across
// rows. Row-major (empty: contiguous) when the inputs are, or when they say nothing. An out=
// tensor that has to be resized is made row-major (PyTorch would give it the inputs' layout).
std::vector<int64_t> TensorIterator::input_layout_strides() const {
  const int nd = static_cast<int>(broadcast_shape_.size());
  const int first = noutputs_, last = static_cast<int>(operands_.size());
  bool all_contiguous = true;
  for (int k = first; k < last && all_contiguous; ++k)
    all_contiguous = operands_[k].is_contiguous() || operands_[k].dim() < 2;
  if (all_contiguous || nd < 2 || nd > kMaxDims || last > kMaxOperands) return {};
  int64_t rows[kMaxOperands][kMaxDims] = {};
  for (int k = first; k < last; ++k) aligned_byte_strides(operands_[k], nd, rows[k]);
  int perm[kMaxDims];
  order_dims(rows, first, last, nd, perm);
  bool row_major = true;
  for (int d = 0; d < nd && row_major; ++d) row_major = perm[d] == d;
  if (row_major) return {};
  std::vector<int64_t> strides(nd);
  int64_t step = 1;
  for (int i = 0; i < nd; ++i) {
    const int d = perm[i];  // innermost-first index: dim nd - 1 - d of the tensor
    strides[nd - 1 - d] = step;
    step *= std::max<int64_t>(broadcast_shape_[nd - 1 - d], 1);
  }
  return strides;
}

void TensorIterator::allocate_or_check_outputs(const TensorIteratorConfig& c) {
  std::optional<std::vector<int64_t>> layout;  // computed for the first output to allocate
  for (size_t i = 0; i < c.outputs_.size(); ++i) {
    ScalarType want = c.output_dtype_.value_or(common_dtype_);
    const Tensor& out = c.outputs_[i];
    if (!out.defined()) {
      if (!layout) layout = input_layout_strides();
      operands_[i] = layout->empty() ? empty_tensor(broadcast_shape_, TensorOptions(want, device_))
                                     : empty_strided_tensor(broadcast_shape_, *layout, TensorOptions(want, device_));
      continue;
    }
    TL_CHECK(!c.safe_cast_ || can_cast(want, out.dtype()), "result type ", want,
             " can't be cast to the desired output type ", out.dtype());
    if (!out.sizes().equals(broadcast_shape_)) {
      TL_CHECK(c.resize_, "output with shape ", out.sizes(), " doesn't match the broadcast shape ",
               IntArrayRef(broadcast_shape_));
      // Resizing may give `out` new memory: an input that is `out` itself must keep its values.
      for (size_t k = c.outputs_.size(); k < operands_.size(); ++k)
        if (operands_[k].is_same(out)) operands_[k] = copy_for_read(out);
      out.impl()->set_sizes_contiguous(broadcast_shape_);
    }
    // Compute into a temporary of the right dtype when out= has another one.
    operands_[i] = out.dtype() == want ? out : empty_tensor(broadcast_shape_, TensorOptions(want, device_));
  }
}

void TensorIterator::push_dim(int64_t size, const int64_t* byte_strides) {
  shape_[ndim_] = size;
  for (int k = 0; k < ntensors(); ++k) strides_[k][ndim_] = byte_strides[k];
  ++ndim_;
}

void TensorIterator::compute_strides_and_coalesce() {
  const int n = ntensors();
  const int nd = static_cast<int>(broadcast_shape_.size());
  TL_CHECK(n <= kMaxOperands, "TensorIterator: at most ", kMaxOperands, " operands are supported, got ", n);
  TL_CHECK(nd <= kMaxDims, "TensorIterator: at most ", kMaxDims, " dimensions are supported, got ", nd);
  numel_ = 1;
  for (int64_t s : broadcast_shape_) numel_ *= s;
  ndim_ = 0;
  const int64_t zeros[kMaxOperands] = {};
  if (numel_ == 0) {
    push_dim(0, zeros);
    return;
  }
  // Fast path: every operand contiguous with the full shape -> one flat dim.
  bool flat = true;
  for (int k = 0; k < n && flat; ++k)
    flat = operands_[k].is_contiguous() && operands_[k].sizes().equals(broadcast_shape_);
  if (flat) {
    int64_t items[kMaxOperands];
    for (int k = 0; k < n; ++k) items[k] = static_cast<int64_t>(operands_[k].element_size());
    push_dim(numel_, items);
    return;
  }
  // Byte strides aligned to the broadcast shape, innermost dim first (stack arrays: no allocation).
  int64_t st[kMaxOperands][kMaxDims] = {};
  int64_t shape[kMaxDims];
  for (int k = 0; k < n; ++k) aligned_byte_strides(operands_[k], nd, st[k]);
  for (int d = 0; d < nd; ++d) shape[d] = broadcast_shape_[nd - 1 - d];

  // Order dims by the output's strides (then the inputs'), so memory is walked in order.
  int perm[kMaxDims];
  order_dims(st, 0, n, nd, perm);
  // Coalesce: merge a dim into the previous one when every operand steps through both as one.
  for (int i = 0; i < nd; ++i) {
    int d = perm[i];
    if (shape[d] == 1) continue;
    if (ndim_ > 0) {
      const int last = ndim_ - 1;
      bool can = true;
      for (int k = 0; k < n && can; ++k) can = st[k][d] == shape_[last] * strides_[k][last];
      if (can) {
        shape_[last] *= shape[d];
        continue;
      }
    }
    int64_t dim_strides[kMaxOperands];
    for (int k = 0; k < n; ++k) dim_strides[k] = st[k][d];
    push_dim(shape[d], dim_strides);
  }
  if (ndim_ == 0) push_dim(1, zeros);  // a single element
}

bool TensorIterator::is_contiguous() const {
  if (ndim() != 1) return false;
  for (int k = 0; k < ntensors(); ++k)
    if (strides_[k][0] != static_cast<int64_t>(operands_[k].element_size())) return false;
  return true;
}

void TensorIterator::serial_for_each(const Loop& loop, int64_t begin, int64_t end) const {
  if (begin >= end) return;
  const int n = ntensors();
  const int nd = ndim();
  char* base[kMaxOperands];
  char* data[kMaxOperands];
  int64_t inner[kMaxOperands];
  for (int k = 0; k < n; ++k) {
    base[k] = static_cast<char*>(operands_[k].data_ptr());
    inner[k] = strides_[k][0];
  }
  if (nd == 1) {
    for (int k = 0; k < n; ++k) data[k] = base[k] + begin * inner[k];
    loop(data, inner, end - begin);
    return;
  }
  // Multi-index of `begin`, innermost first.
  int64_t idx[kMaxDims];
  int64_t rem = begin;
  for (int d = 0; d < nd; ++d) {
    idx[d] = rem % shape_[d];
    rem /= shape_[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t chunk = std::min(shape_[0] - idx[0], end - pos);
    for (int k = 0; k < n; ++k) {
      char* p = base[k];
      for (int d = 0; d < nd; ++d) p += idx[d] * strides_[k][d];
      data[k] = p;
    }
    loop(data, inner, chunk);
    pos += chunk;
    idx[0] += chunk;
    for (int d = 0; d < nd - 1 && idx[d] == shape_[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

void TensorIterator::for_each(const Loop& loop, int64_t grain_size) const {
  if (numel_ == 0) return;
  int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (numel_ < grain_size || threads <= 1) {
    serial_for_each(loop, 0, numel_);
    return;
  }
  int64_t nchunks = std::min<int64_t>(threads, (numel_ + grain_size - 1) / grain_size);
#pragma omp parallel for num_threads(static_cast<int>(nchunks)) schedule(static, 1)
  for (int64_t c = 0; c < nchunks; ++c) {
    int64_t per = (numel_ + nchunks - 1) / nchunks;
    // Chunk edges on 64-element multiples keep vector loads aligned within each chunk.
    per = (per + 63) / 64 * 64;
    serial_for_each(loop, c * per, std::min(numel_, (c + 1) * per));
  }
}

Tensor TensorIterator::output(int i) {
  if (!finished_) {
    finished_ = true;
    for (int k = 0; k < noutputs_; ++k) {
      const Tensor& orig = original_outputs_[k];
      if (orig.defined() && !orig.is_same(operands_[k])) orig.copy_(operands_[k]);
    }
  }
  return original_outputs_[i].defined() ? original_outputs_[i] : operands_[i];
}

}  // namespace tl
