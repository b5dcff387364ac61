#pragma once
// Note [Overlapping writes]: an operator that writes a tensor must never give a wrong answer
// because the written memory is also read, or is written twice. Two questions decide it:
//
// - internal overlap: do two elements of one tensor share memory (an expanded tensor, an
//   as_strided window)? Writing such a tensor is refused, except by ops that write one value
//   everywhere (fill_, zero_).
// - overlap between a written tensor and an input: none, full (the same elements in the same
//   layout: true in-place, allowed), or partial (a shifted or transposed view of the same
//   memory: refused with PyTorch's message).
//
// PyTorch answers "too hard to tell" for any layout that is not dense and lets such calls
// through. We answer exactly wherever a small enumeration can (MemoryOverlap.cpp), and the
// generated operator entry points read an input from a copy whenever its overlap with a
// written tensor is full but the op is not elementwise (mm(a, a, out=a)), or still too hard to
// tell. The checks run in every operator entry point (generated Operators.cpp) and again in
// TensorIterator, so hand-written paths that build an iterator are covered too.
#include <optional>
#include <vector>

#include "aten/core/Tensor.h"
#include "generated/ops/empty.h"

namespace tl {

enum class MemOverlap { No, Yes, TooHard };
enum class MemOverlapStatus { Full, Partial, No, TooHard };

MemOverlap has_internal_overlap(const Tensor& t);
MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b);

// RuntimeError (PyTorch's message) when `t` has internal overlap.
void assert_no_internal_overlap(const Tensor& t);
// RuntimeError when `a` and `b` share some but not all of their elements.
void assert_no_partial_overlap(const Tensor& a, const Tensor& b);
// RuntimeError when `a` and `b` share any memory at all.
void assert_no_overlap(const Tensor& a, const Tensor& b);

// The entry-point policy for one (written, input) pair: raises on partial overlap; true when
// the op must read `input` from a copy (full overlap in an op that is not elementwise, or an
// overlap too hard to tell).
bool must_copy_input(const Tensor& written, const Tensor& input, bool elementwise);
// A dense copy of `t` made below autograd, for an input that must not be read in place.
Tensor copy_for_read(const Tensor& t);

// ---- the guard of a generated operator entry point (codegen/overlap.py) -------------------
// A written argument: no internal overlap.
inline void check_written(const Tensor& w) {
  if (w.defined()) assert_no_internal_overlap(w);
}
inline void check_written(TensorList ws) {
  for (const Tensor& w : ws) check_written(w);
}
// An input read in place unless it aliases a written tensor: then a copy (undefined /
// nullopt / empty when none was needed).
template <typename... W>
Tensor copy_if_aliased(const Tensor& in, bool elementwise, const W&... written) {
  if (!in.defined()) return Tensor();
  return (must_copy_input(written, in, elementwise) || ...) ? copy_for_read(in) : Tensor();
}
template <typename... W>
std::optional<Tensor> copy_if_aliased(const std::optional<Tensor>& in, bool elementwise, const W&... written) {
  if (!in) return std::nullopt;
  Tensor copy = copy_if_aliased(*in, elementwise, written...);
  return copy.defined() ? std::optional<Tensor>(copy) : std::nullopt;
}
namespace detail {
inline bool copy_made(const Tensor& t) { return t.defined(); }
inline bool copy_made(const std::optional<Tensor>& t) { return t.has_value(); }
}  // namespace detail
template <typename T, typename... W>
std::vector<T> copy_if_aliased(const ArrayRef<T>& in, bool elementwise, const W&... written) {
  std::vector<T> copies;
  for (size_t i = 0; i < in.size(); ++i) {
    T copy = copy_if_aliased(in[i], elementwise, written...);
    if (!detail::copy_made(copy)) continue;
    if (copies.empty()) copies.assign(in.begin(), in.end());
    copies[i] = copy;
  }
  return copies;
}
template <typename... W>
std::vector<std::optional<Tensor>> copy_if_aliased(const std::vector<std::optional<Tensor>>& in, bool elementwise,
                                                   const W&... written) {
  return copy_if_aliased(ArrayRef<std::optional<Tensor>>(in), elementwise, written...);
}

}  // namespace tl
