#pragma once
// Note [Reduction engine]: one CPU engine runs every value reduction (sum, prod, mean,
// amax/amin, all/any). ReduceOps.cpp (device-independent) turns an op's arguments into
//   - `in`:   the input, already in the dtype the op reads (sum/prod cast first),
//   - `out`:  a fresh contiguous tensor with the keepdim=True shape (reduced dims size 1),
//   - `mask`: which input dims are reduced;
// run_reduce<In, Out>(in, out, mask, op) then fills `out`. An Op is a small struct shared
// with the CUDA engine (ReduceFunctors.h):
//   acc_t; acc_t identity(); acc_t reduce(acc_t, In); acc_t combine(acc_t, acc_t);
//   Out project(acc_t)
//
// Geometry: size-1 dims are dropped; kept dims and reduced dims are each sorted by input
// stride (innermost first) and coalesced where memory allows. Three paths:
//   A. inner reduction: the innermost reduced dim has input stride 1. Each output walks its
//      reduced index space in contiguous runs; a run is reduced with kAcc independent
//      accumulators (vectorised). When each output is one run (sum(dim=-1)), equally spaced
//      runs are reduced four at a time (short runs in order, without per-output set-up).
//      Parallel over outputs, or, when there are fewer outputs than threads, over fixed-size
//      chunks of the reduced space (deterministic combine).
//   B. outer reduction: the innermost kept dim is contiguous in input and output (e.g.
//      sum(dim=0) of a row-major matrix). A block of up to kColBlock outputs is accumulated
//      into an acc_t buffer (vectorised across outputs), four rows per pass over it when the
//      reduced dims coalesce into one (each output still reduces its rows in order). Parallel
//      over blocks (narrowed so every thread gets one when there are few).
//   C. anything else: per output, a strided walk of the reduced space. Parallel over outputs.
// Work below kGrain elements runs serially.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/ReduceFunctors.h"
#include "generated/ops/empty.h"

namespace tl::native::cpu_reduce {

constexpr int64_t kGrain = 32768;
constexpr int64_t kColBlock = 1024;  // outputs per block in path B (acc buffer stays in L1)
constexpr int64_t kChunk = 1 << 16;  // reduced elements per parallel chunk (path A, few outputs)

struct Geometry {
  // innermost first, element strides
  std::vector<int64_t> kept_size, kept_in, kept_out;
  std::vector<int64_t> red_size, red_in;
  int64_t n_out = 1, n_red = 1;
};

inline Geometry make_geometry(const Tensor& in, const std::vector<bool>& mask) {
  Geometry g;
  const int64_t nd = in.dim();
  // Output (keepdim shape) is contiguous: its strides follow from the kept sizes.
  std::vector<int64_t> out_stride(nd, 1);
  for (int64_t d = nd - 2; d >= 0; --d) out_stride[d] = out_stride[d + 1] * (mask[d + 1] ? 1 : in.sizes()[d + 1]);
  struct D { int64_t size, in, out; };
  std::vector<D> kept, red;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t s = in.sizes()[d];
    if (mask[d]) g.n_red *= s; else g.n_out *= s;
    if (s == 1) continue;
    (mask[d] ? red : kept).push_back({s, in.strides()[d], out_stride[d]});
  }
  auto by_in = [](const D& a, const D& b) { return std::abs(a.in) < std::abs(b.in); };
  std::stable_sort(kept.begin(), kept.end(), by_in);
  std::stable_sort(red.begin(), red.end(), by_in);
  for (auto& d : kept) {
    if (!g.kept_size.empty() && g.kept_in.back() * g.kept_size.back() == d.in &&
        g.kept_out.back() * g.kept_size.back() == d.out) {
      g.kept_size.back() *= d.size;
      continue;
    }
    g.kept_size.push_back(d.size); g.kept_in.push_back(d.in); g.kept_out.push_back(d.out);
  }
  for (auto& d : red) {
    if (!g.red_size.empty() && g.red_in.back() * g.red_size.back() == d.in) {
      g.red_size.back() *= d.size;
      continue;
    }
    g.red_size.push_back(d.size); g.red_in.push_back(d.in);
  }
  return g;
}

// Offsets (input, output) of output number `o` (kept dims, innermost first).
inline void kept_offsets(const Geometry& g, int64_t o, int64_t& in_off, int64_t& out_off, size_t first = 0) {
  in_off = 0; out_off = 0;
  for (size_t d = first; d < g.kept_size.size(); ++d) {
    int64_t i = o % g.kept_size[d];
    o /= g.kept_size[d];
    in_off += i * g.kept_in[d];
    out_off += i * g.kept_out[d];
  }
}

// Accumulators per run: independent chains hide the latency of each reduce step and let the
// loop vectorise.
template <typename Op>
constexpr int kAcc = sizeof(typename Op::acc_t) >= 8 ? 16 : 32;

// Reduces R contiguous runs of n >= kAcc<Op> elements each, the r-th starting at p + r * ld, from
// the identity into out[0..R). Several rows at once keep more independent loads in flight
// (inner-dim reductions are bound by memory).
template <int R, typename In, typename Op>
inline void reduce_rows(const Op& op, const In* __restrict p, int64_t ld, int64_t n, typename Op::acc_t* out) {
  using acc_t = typename Op::acc_t;
  constexpr int K = kAcc<Op>;
  acc_t a[R][K];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < K; ++j) a[r][j] = op.identity();
  int64_t i = 0;
  for (; i + K <= n; i += K)
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < K; ++j) a[r][j] = op.reduce(a[r][j], p[r * ld + i + j]);
  for (int r = 0; r < R; ++r) {
    for (int s = K / 2; s > 0; s /= 2)
      for (int j = 0; j < s; ++j) a[r][j] = op.combine(a[r][j], a[r][j + s]);
    acc_t acc = a[r][0];
    for (int64_t k = i; k < n; ++k) acc = op.reduce(acc, p[r * ld + k]);
    out[r] = acc;
  }
}

// Reduces a contiguous run into acc (vectorised when the run is long enough).
template <typename In, typename Op>
inline typename Op::acc_t reduce_run(const Op& op, const In* __restrict p, int64_t n, typename Op::acc_t acc) {
  if (n >= 2 * kAcc<Op>) {
    typename Op::acc_t part;
    reduce_rows<1>(op, p, 0, n, &part);
    return op.combine(acc, part);
  }
  for (int64_t i = 0; i < n; ++i) acc = op.reduce(acc, p[i]);
  return acc;
}

// Reduces flat reduced indices [r0, r1) starting from input pointer `base`.
template <typename In, typename Op>
inline typename Op::acc_t reduce_range(const Op& op, const Geometry& g, const In* base, int64_t r0, int64_t r1,
                                       typename Op::acc_t acc) {
  if (g.red_size.empty()) {  // nothing to reduce (all reduced dims have size 1)
    return r0 < r1 ? op.reduce(acc, base[0]) : acc;
  }
  const size_t nr = g.red_size.size();
  const int64_t s0 = g.red_size[0], st0 = g.red_in[0];
  // Multi-index of r0 over red dims 1..
  int64_t idx[16] = {0};
  int64_t rest = r0 / s0, i0 = r0 % s0, off = 0;
  for (size_t d = 1; d < nr; ++d) {
    idx[d] = rest % g.red_size[d];
    rest /= g.red_size[d];
    off += idx[d] * g.red_in[d];
  }
  int64_t r = r0;
  while (r < r1) {
    int64_t len = std::min(s0 - i0, r1 - r);
    const In* p = base + off + i0 * st0;
    if (st0 == 1) {
      acc = reduce_run(op, p, len, acc);
    } else {
      for (int64_t i = 0; i < len; ++i) acc = op.reduce(acc, p[i * st0]);
    }
    r += len;
    i0 = 0;
    for (size_t d = 1; d < nr; ++d) {  // advance the outer multi-index
      off += g.red_in[d];
      if (++idx[d] < g.red_size[d]) break;
      off -= idx[d] * g.red_in[d];
      idx[d] = 0;
    }
  }
  return acc;
}

template <typename In, typename Out, typename Op>
void run_reduce(const Tensor& in, const Tensor& out, const std::vector<bool>& mask, const Op& op) {
  using acc_t = typename Op::acc_t;
  const Geometry g = make_geometry(in, mask);
  TL_CHECK(g.red_size.size() < 16, "reduction over too many non-contiguous dims");
  const In* src = static_cast<const In*>(in.data_ptr());
  Out* dst = static_cast<Out*>(out.data_ptr());
  const int64_t n_out = g.n_out, n_red = g.n_red;
  if (n_out == 0) return;
  const bool parallel = n_out * n_red >= kGrain && omp_get_max_threads() > 1;

  if (n_red == 0) {
    for (int64_t o = 0; o < n_out; ++o) dst[o] = op.project(op.identity());
    return;
  }

  const bool inner = !g.red_size.empty() && g.red_in[0] == 1;
  const bool outer = !inner && !g.kept_size.empty() && g.kept_in[0] == 1 && g.kept_out[0] == 1 &&
                     !g.red_size.empty();

  if (outer) {  // path B
    const int64_t m = g.kept_size[0];
    const int64_t n_outer = n_out / m;
    // Wide column blocks keep the walk over rows sequential in memory; narrower ones only
    // when there are too few blocks to keep every thread busy.
    int64_t blk = std::min<int64_t>(m, kColBlock);
    const int nth = parallel ? omp_get_max_threads() : 1;
    if (n_outer * ((m + blk - 1) / blk) < nth) blk = std::max<int64_t>(64, (m + nth - 1) / nth);
    const int64_t nblk = (m + blk - 1) / blk;
    const int64_t tasks = n_outer * nblk;
    const size_t nr = g.red_size.size();
#pragma omp parallel if (parallel)
    {
      std::unique_ptr<acc_t[]> accbuf(new acc_t[static_cast<size_t>(blk)]);
#pragma omp for schedule(static)
      for (int64_t t = 0; t < tasks; ++t) {
        int64_t b = t % nblk, ob = t / nblk;
        int64_t in_off, out_off;
        kept_offsets(g, ob * m, in_off, out_off, 0);  // ob*m: index with inner coordinate 0
        const int64_t j0 = b * blk, len = std::min(blk, m - j0);
        acc_t* __restrict acc = accbuf.get();
        for (int64_t j = 0; j < len; ++j) acc[j] = op.identity();
        int64_t r = 0, off = 0;
        if (nr == 1) {
          // Four rows per pass over the buffer: a quarter of its loads and stores, and four
          // input streams in flight. Each element still reduces the rows in order.
          const int64_t st = g.red_in[0];
          for (; r + 4 <= n_red; r += 4, off += 4 * st) {
            const In* __restrict r0 = src + in_off + j0 + off;
            const In* __restrict r1 = r0 + st;
            const In* __restrict r2 = r1 + st;
            const In* __restrict r3 = r2 + st;
            for (int64_t j = 0; j < len; ++j)
              acc[j] = op.reduce(op.reduce(op.reduce(op.reduce(acc[j], r0[j]), r1[j]), r2[j]), r3[j]);
          }
        }
        int64_t idx[16] = {0};
        if (nr == 1) idx[0] = r;
        for (; r < n_red; ++r) {
          const In* __restrict row = src + in_off + j0 + off;
          for (int64_t j = 0; j < len; ++j) acc[j] = op.reduce(acc[j], row[j]);
          for (size_t d = 0; d < nr; ++d) {
            off += g.red_in[d];
            if (++idx[d] < g.red_size[d]) break;
            off -= idx[d] * g.red_in[d];
            idx[d] = 0;
          }
        }
        Out* __restrict o = dst + out_off + j0;
        for (int64_t j = 0; j < len; ++j) o[j] = op.project(acc[j]);
      }
    }
    return;
  }

  // Paths A and C share reduce_range (contiguous runs when the inner reduced stride is 1).
  const int nthreads = omp_get_max_threads();
  if (inner && parallel && n_out < nthreads && n_red >= 2 * kChunk) {
    const int64_t nchunks = (n_red + kChunk - 1) / kChunk;
    std::unique_ptr<acc_t[]> part(new acc_t[static_cast<size_t>(nchunks)]);  // not vector<bool>
    for (int64_t o = 0; o < n_out; ++o) {
      int64_t in_off, out_off;
      kept_offsets(g, o, in_off, out_off);
#pragma omp parallel for schedule(static)
      for (int64_t c = 0; c < nchunks; ++c) {
        int64_t r0 = c * kChunk, r1 = std::min(n_red, r0 + kChunk);
        part[c] = reduce_range(op, g, src + in_off, r0, r1, op.identity());
      }
      acc_t acc = op.identity();
      for (int64_t c = 0; c < nchunks; ++c) acc = op.combine(acc, part[c]);
      dst[out_off] = op.project(acc);
    }
    return;
  }
  if (inner && g.red_size.size() == 1) {
    // Each output reduces one contiguous run (e.g. sum(dim=-1)): kRows outputs at a time when
    // their runs are equally spaced (consecutive rows of a matrix). Runs too short for the
    // accumulators are reduced in order, as reduce_run would (no per-output range set-up).
    constexpr int kRows = 4;
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t o0 = 0; o0 < n_out; o0 += kRows) {
      int64_t in_offs[kRows] = {}, out_offs[kRows];
      acc_t acc[kRows];
      const int nr = static_cast<int>(std::min<int64_t>(kRows, n_out - o0));
      for (int r = 0; r < nr; ++r) kept_offsets(g, o0 + r, in_offs[r], out_offs[r]);
      if (n_red < 2 * kAcc<Op>) {
        // The rows' in-order chains interleaved; a last group of fewer rows re-reads its first.
        const In* p[kRows];
        for (int r = 0; r < kRows; ++r) p[r] = src + in_offs[r < nr ? r : 0];
        for (int r = 0; r < kRows; ++r) acc[r] = op.identity();
        for (int64_t k = 0; k < n_red; ++k)
          for (int r = 0; r < kRows; ++r) acc[r] = op.reduce(acc[r], p[r][k]);
        for (int r = 0; r < nr; ++r) dst[out_offs[r]] = op.project(acc[r]);
        continue;
      }
      const int64_t ld = nr > 1 ? in_offs[1] - in_offs[0] : 0;
      bool even = nr == kRows;
      for (int r = 2; r < nr; ++r) even = even && in_offs[r] - in_offs[r - 1] == ld;
      if (even) {
        reduce_rows<kRows>(op, src + in_offs[0], ld, n_red, acc);
      } else {
        for (int r = 0; r < nr; ++r) reduce_rows<1>(op, src + in_offs[r], 0, n_red, acc + r);
      }
      for (int r = 0; r < nr; ++r) dst[out_offs[r]] = op.project(acc[r]);
    }
    return;
  }
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t in_off, out_off;
    kept_offsets(g, o, in_off, out_off);
    dst[out_off] = op.project(reduce_range(op, g, src + in_off, 0, n_red, op.identity()));
  }
}

}  // namespace tl::native::cpu_reduce
