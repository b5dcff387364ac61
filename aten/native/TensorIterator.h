#pragma once
// Note [TensorIterator]: the one place that implements broadcasting, type promotion and
// out= handling for elementwise and reduction kernels. Build one with TensorIteratorConfig,
// then hand a kernel 1-D strided inner loops via for_each (CPU) or the CUDA launcher.
//
// After build():
// - every operand has the broadcast shape (strides 0 on broadcast dims), reordered so dim 0
//   is the fastest-moving in memory and coalesced where operands allow;
// - inputs have the common dtype unless promotion is off (inputs of another dtype are cast
//   into temporaries); outputs have the requested dtype (or the common one);
// - outputs overlap no input partly and have no internal overlap (Note [Overlapping writes]);
// - an output that needed a cast or a fresh allocation is computed in a temporary that
//   finish() copies back into the caller's tensor.
#include <functional>
#include <optional>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl {

// torch.result_type; wrapped numbers (Note [Wrapped numbers]) are weak.
ScalarType result_type(TensorList tensors);
// torch.can_cast: float -> int and non-bool -> bool are not allowed.
bool can_cast(ScalarType from, ScalarType to);
// Broadcast shape of two shapes; RuntimeError names both when they are incompatible.
std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b);

class TensorIterator;

class TensorIteratorConfig {
 public:
  // Outputs first, then inputs. An undefined output is allocated.
  TensorIteratorConfig& add_output(const Tensor& t);
  TensorIteratorConfig& add_input(const Tensor& t);
  // Promote inputs to a common dtype (default on) and optionally ints/bools to float (div).
  TensorIteratorConfig& promote_inputs_to_common_dtype(bool v) { promote_ = v; return *this; }
  TensorIteratorConfig& promote_integer_inputs_to_float(bool v) { int_to_float_ = v; return *this; }
  // Fixed output dtype (comparisons -> bool); otherwise outputs get the common dtype.
  TensorIteratorConfig& output_dtype(ScalarType t) { output_dtype_ = t; return *this; }
  // Compute dtype chosen by the caller instead of by promotion (e.g. sum(dtype=...)).
  TensorIteratorConfig& common_dtype(ScalarType t) { common_dtype_ = t; return *this; }
  // For in-place ops and copy_: outputs join the broadcast and are never resized.
  TensorIteratorConfig& resize_outputs(bool v) { resize_ = v; return *this; }
  // Off for copy_, which converts between any dtypes.
  TensorIteratorConfig& enforce_safe_casting_to_output(bool v) { safe_cast_ = v; return *this; }
  // Refuse outputs with internal overlap or that partly overlap an input (Note [Overlapping
  // writes]); off only for fills, which write one value everywhere.
  TensorIteratorConfig& check_mem_overlap(bool v) { check_overlap_ = v; return *this; }
  // The op name used in error messages.
  TensorIteratorConfig& name(const char* n) { name_ = n; return *this; }

  TensorIterator build();

 private:
  friend class TensorIterator;
  std::vector<Tensor> outputs_;
  std::vector<Tensor> inputs_;
  bool promote_ = true;
  bool int_to_float_ = false;
  bool resize_ = true;
  bool safe_cast_ = true;
  bool check_overlap_ = true;
  std::optional<ScalarType> output_dtype_;
  std::optional<ScalarType> common_dtype_;
  const char* name_ = "op";
};

class TensorIterator {
 public:
  static constexpr int kMaxOperands = 8;
  static constexpr int kMaxDims = 25;

  // data[i] points at operand i (outputs first); strides[i] is its byte stride along dim 0.
  using Loop = std::function<void(char** data, const int64_t* strides, int64_t n)>;

  int ntensors() const { return static_cast<int>(operands_.size()); }
  int noutputs() const { return noutputs_; }
  int ninputs() const { return ntensors() - noutputs_; }
  int ndim() const { return ndim_; }
  std::vector<int64_t> shape() const { return {shape_, shape_ + ndim_}; }
  int64_t numel() const { return numel_; }
  ScalarType common_dtype() const { return common_dtype_; }
  ScalarType dtype(int arg) const { return operands_[arg].dtype(); }
  Device device() const { return device_; }
  // Byte strides of operand `arg`, one per (reordered, coalesced) dim.
  std::vector<int64_t> strides(int arg) const { return {strides_[arg], strides_[arg] + ndim_}; }
  void* data_ptr(int arg) const { return operands_[arg].data_ptr(); }
  const Tensor& operand(int arg) const { return operands_[arg]; }
  bool is_contiguous() const;  // one dim left and every operand dense along it

  // Runs `loop` over every element, in parallel chunks above `grain_size` elements.
  void for_each(const Loop& loop, int64_t grain_size = 32768) const;
  // Runs `loop` over elements [begin, end) of the iteration space, in order.
  void serial_for_each(const Loop& loop, int64_t begin, int64_t end) const;

  // Copies temporaries back into the caller's outputs; returns output `i` as the caller
  // should see it (the provided out= tensor, or the fresh allocation). Version counters of
  // written tensors are bumped by the generated operator entry points, not here.
  Tensor output(int i = 0);

 private:
  friend class TensorIteratorConfig;
  void compute_shape(const TensorIteratorConfig& c);
  void check_overlap(const TensorIteratorConfig& c) const;
  void compute_types(TensorIteratorConfig& c);
  void allocate_or_check_outputs(const TensorIteratorConfig& c);
  std::vector<int64_t> input_layout_strides() const;
  void compute_strides_and_coalesce();

  std::vector<Tensor> operands_;          // outputs then inputs, as computed on
  std::vector<Tensor> original_outputs_;  // what the caller passed (may be undefined)
  // The coalesced iteration space, innermost dim first. Fixed arrays: a small op's handful of
  // one-element vectors overflowed glibc's per-size thread cache, and each op then paid for
  // the slow malloc and free paths.
  void push_dim(int64_t size, const int64_t* byte_strides);
  int ndim_ = 0;
  int64_t shape_[kMaxDims] = {};
  int64_t strides_[kMaxOperands][kMaxDims] = {};
  std::vector<int64_t> broadcast_shape_;
  int noutputs_ = 0;
  int64_t numel_ = 0;
  ScalarType common_dtype_ = ScalarType::Float;
  Device device_;
  bool finished_ = false;
};

}  // namespace tl
