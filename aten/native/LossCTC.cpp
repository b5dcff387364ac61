// Connectionist temporal classification loss (Graves et al., 2006), in log space. A target of L
// labels is extended with blanks to l' = (blank, y1, blank, y2, ..., yL, blank), S = 2L + 1
// states; alpha[t][s] is the log probability of all prefixes of alignments that are in state s
// at time t, beta[t][s] that of all suffixes from state s at time t. A state is entered from
// itself, the state before, or the one two before when that skips a blank between two
// different labels. Samples run in parallel; each one's recursion is sequential in time.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/Reduction.h"
#include "aten/core/Tensor.h"
#include "aten/native/LossCTC.h"
#include "generated/ops/_ctc_loss.h"
#include "generated/ops/_ctc_loss_backward_native.h"
#include "generated/ops/_ctc_loss_native.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/ctc_loss.h"
#include "generated/ops/ctc_loss_native.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/mean.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

std::string sizes_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

CtcGeom check_ctc(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                  IntArrayRef target_lengths, int64_t blank) {
  TL_CHECK(log_probs.dim() == 3, "ctc_loss: log_probs must be 3-D (T, N, C), but got shape ",
           sizes_str(log_probs.sizes()));
  TL_CHECK(log_probs.numel() > 0, "log_probs tensor must not be empty");
  CtcGeom g{log_probs.sizes()[0], log_probs.sizes()[1], log_probs.sizes()[2], 0, {}, Tensor()};
  TL_CHECK(blank >= 0 && blank < g.C, "blank must be in label range");
  TL_CHECK(static_cast<int64_t>(input_lengths.size()) == g.N, "input_lengths must be of size batch_size");
  TL_CHECK(static_cast<int64_t>(target_lengths.size()) == g.N, "target_lengths must be of size batch_size");
  TL_CHECK(!is_complex(targets.dtype()) && targets.dtype() != ScalarType::Bool,
           "ctc_loss: targets must hold class indices, but got dtype ", dtype_name(targets.dtype()));
  int64_t total = 0;
  for (int64_t n = 0; n < g.N; ++n) {
    TL_CHECK(input_lengths[n] >= 0, "Expected input_lengths to have value at least 0, but got value ",
             input_lengths[n], " (while checking arguments for ctc_loss)");
    TL_CHECK(input_lengths[n] <= g.T, "Expected input_lengths to have value at most ", g.T, ", but got value ",
             input_lengths[n], " (while checking arguments for ctc_loss)");
    TL_CHECK(target_lengths[n] >= 0, "Expected target_lengths to have value at least 0, but got value ",
             target_lengths[n], " (while checking arguments for ctc_loss)");
    g.max_target = std::max(g.max_target, target_lengths[n]);
    g.target_start.push_back(targets.dim() == 2 ? n * (targets.sizes()[1]) : total);
    total += target_lengths[n];
  }
  if (targets.dim() == 1) {
    TL_CHECK(targets.sizes()[0] == total, "Expected tensor to have size ", total, " at dimension 0, but got size ",
             targets.sizes()[0], " for argument #2 'targets' (while checking arguments for ctc_loss)");
  } else if (targets.dim() == 2) {
    TL_CHECK(targets.sizes()[0] == g.N, "Expected tensor to have size ", g.N, " at dimension 0, but got size ",
             targets.sizes()[0], " for argument #2 'targets' (while checking arguments for ctc_loss)");
    TL_CHECK(targets.sizes()[1] >= g.max_target, "Expected tensor to have size at least ", g.max_target,
             " at dimension 1, but got size ", targets.sizes()[1],
             " for argument #2 'targets' (while checking arguments for ctc_loss)");
  } else {
    TL_CHECK(false, "Expected 1 to 2 dimensions, but got ", targets.dim(),
             "-dimensional tensor for argument #2 'targets' (while checking arguments for ctc_loss)");
  }
  g.labels = targets.to(ScalarType::Long).to(Device(DeviceType::CPU)).contiguous();
  const int64_t* lp = g.labels.data_ptr<int64_t>();
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t k = 0; k < target_lengths[n]; ++k) {
      const int64_t c = lp[g.target_start[n] + k];
      TL_CHECK_INDEX(c >= 0 && c < g.C, "ctc_loss: target label ", c, " (sample ", n, ", position ", k,
                     ") is out of range for ", g.C, " classes");
    }
  }
  return g;
}

std::vector<int64_t> lengths_of(const Tensor& t, const char* name) {
  TL_CHECK(!t.is_floating_point() && !is_complex(t.dtype()) && t.dtype() != ScalarType::Bool, name, " must be integral");
  TL_CHECK(t.dim() <= 1, name, " must be a 0-D or 1-D tensor, but got shape ", sizes_str(t.sizes()));
  Tensor c = t.to(ScalarType::Long).to(Device(DeviceType::CPU)).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

}  // namespace

std::tuple<Tensor, Tensor> _ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                                     IntArrayRef target_lengths, int64_t blank, bool zero_infinity) {
  const CtcGeom g = check_ctc(log_probs, targets, input_lengths, target_lengths, blank);
  const int64_t Smax = 2 * g.max_target + 1;
  Tensor nll = empty_tensor({g.N}, log_probs.options());
  Tensor log_alpha = empty_tensor({g.N, g.T, Smax}, log_probs.options());
  if (g.N > 0)
    ctc_loss_stub(log_probs.device().type, g, log_probs.contiguous(), input_lengths, target_lengths, blank, nll,
                  log_alpha);
  return {nll, log_alpha};
}

namespace {

// The CPU recursions: samples in parallel.
void ctc_loss_kernel(const CtcGeom& g, const Tensor& x, IntArrayRef input_lengths, IntArrayRef target_lengths,
                     int64_t blank, const Tensor& nll, const Tensor& log_alpha) {
  const int64_t Smax = 2 * g.max_target + 1;
  const int64_t* labels = g.labels.data_ptr<int64_t>();
  dispatch_float_double(x.dtype(), "ctc_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    const T* xp = x.data_ptr<T>();
    T* nllp = nll.data_ptr<T>();
    T* lap = log_alpha.data_ptr<T>();
#pragma omp parallel for schedule(dynamic, 1) if (g.N > 1 && g.T * Smax > 4096)
    for (int64_t n = 0; n < g.N; ++n) {
      const int64_t Tn = input_lengths[n], L = target_lengths[n], S = 2 * L + 1;
      const ctc::Extended label{labels + g.target_start[n], blank};
      auto lp = [&](int64_t t, int64_t c) { return xp[(t * g.N + n) * g.C + c]; };
      T* la = lap + n * g.T * Smax;
      std::fill(la, la + g.T * Smax, kNegInf);
      if (Tn == 0) {  // no frames: only the empty target has an alignment
        nllp[n] = L == 0 ? T(0) : std::numeric_limits<T>::infinity();
        continue;
      }
      la[0] = lp(0, blank);
      if (L > 0) la[1] = lp(0, label(1));
      for (int64_t t = 1; t < Tn; ++t) {
        const T* prev = la + (t - 1) * Smax;
        T* cur = la + t * Smax;
        for (int64_t s = 0; s < S; ++s) {
          const T stay = prev[s], step = s > 0 ? prev[s - 1] : kNegInf;
          const T skip = s > 1 && label(s) != label(s - 2) ? prev[s - 2] : kNegInf;
          cur[s] = ctc::log_sum3(stay, step, skip) + lp(t, label(s));
        }
      }
      const T* last = la + (Tn - 1) * Smax;
      nllp[n] = -(S > 1 ? ctc::log_add(last[S - 1], last[S - 2]) : last[0]);
    }
  });
}

// The CPU gradient (see _ctc_loss_backward): samples in parallel.
void ctc_loss_backward_kernel(const CtcGeom& g, const Tensor& go, const Tensor& x, IntArrayRef input_lengths,
                              IntArrayRef target_lengths, const Tensor& nll, const Tensor& la_all, int64_t blank,
                              bool zero_infinity, const Tensor& result) {
  const int64_t Smax = 2 * g.max_target + 1;
  const ScalarType dt = x.dtype();
  const int64_t* labels = g.labels.data_ptr<int64_t>();
  dispatch_float_double(dt, "ctc_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    const T* xp = x.data_ptr<T>();
    const T* gp = go.data_ptr<T>();
    const T* nllp = nll.data_ptr<T>();
    const T* lap = la_all.data_ptr<T>();
    T* rp = result.data_ptr<T>();
#pragma omp parallel for schedule(dynamic, 1) if (g.N > 1 && g.T * Smax > 4096)
    for (int64_t n = 0; n < g.N; ++n) {
      const int64_t Tn = input_lengths[n], L = target_lengths[n], S = 2 * L + 1;
      const T loss = nllp[n];
      if (Tn == 0 || (zero_infinity && loss == std::numeric_limits<T>::infinity())) continue;
      const ctc::Extended label{labels + g.target_start[n], blank};
      auto lp = [&](int64_t t, int64_t c) { return xp[(t * g.N + n) * g.C + c]; };
      std::vector<T> lb(static_cast<size_t>(Tn * S), kNegInf);
      std::vector<T> occupancy(static_cast<size_t>(g.C));
      T* end = lb.data() + (Tn - 1) * S;
      end[S - 1] = lp(Tn - 1, label(S - 1));
      if (S > 1) end[S - 2] = lp(Tn - 1, label(S - 2));
      for (int64_t t = Tn - 2; t >= 0; --t) {
        const T* next = lb.data() + (t + 1) * S;
        T* cur = lb.data() + t * S;
        for (int64_t s = 0; s < S; ++s) {
          const T stay = next[s], step = s + 1 < S ? next[s + 1] : kNegInf;
          const T skip = s + 2 < S && label(s + 2) != label(s) ? next[s + 2] : kNegInf;
          cur[s] = ctc::log_sum3(stay, step, skip) + lp(t, label(s));
        }
      }
      const T gn = gp[n];
      for (int64_t t = 0; t < Tn; ++t) {
        std::fill(occupancy.begin(), occupancy.end(), kNegInf);
        const T* a = lap + (n * g.T + t) * Smax;
        const T* b = lb.data() + t * S;
        for (int64_t s = 0; s < S; ++s) {
          T& o = occupancy[static_cast<size_t>(label(s))];
          o = ctc::log_add(o, a[s] + b[s]);
        }
        T* r = rp + (t * g.N + n) * g.C;
        for (int64_t c = 0; c < g.C; ++c) {
          const T v = lp(t, c);
          r[c] = (std::exp(v) - std::exp(occupancy[static_cast<size_t>(c)] + loss - v)) * gn;
        }
      }
    }
  });
}

}  // namespace

DispatchStub<void(const CtcGeom&, const Tensor&, IntArrayRef, IntArrayRef, int64_t, const Tensor&, const Tensor&)>
    ctc_loss_stub("ctc_loss");
DispatchStub<void(const CtcGeom&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, const Tensor&, const Tensor&,
                  int64_t, bool, const Tensor&)>
    ctc_loss_backward_stub("ctc_loss_backward");
TL_REGISTER_STUB(ctc_loss_stub, CPU, &ctc_loss_kernel);
TL_REGISTER_STUB(ctc_loss_backward_stub, CPU, &ctc_loss_backward_kernel);

// PyTorch's gradient: exp(lp) - exp(log(sum of alpha * beta over the states labelled c) + nll - lp),
// times grad; zero past each input length, and for samples of infinite loss under zero_infinity.
Tensor _ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                          IntArrayRef input_lengths, IntArrayRef target_lengths, const Tensor& neg_log_likelihood,
                          const Tensor& log_alpha, int64_t blank, bool zero_infinity) {
  const CtcGeom g = check_ctc(log_probs, targets, input_lengths, target_lengths, blank);
  const int64_t Smax = 2 * g.max_target + 1;
  TL_CHECK(grad.numel() == g.N && neg_log_likelihood.numel() == g.N,
           "ctc_loss_backward: expected grad and neg_log_likelihood of ", g.N, " elements, got ", grad.numel(),
           " and ", neg_log_likelihood.numel());
  TL_CHECK(log_alpha.dim() == 3 && log_alpha.sizes()[0] == g.N && log_alpha.sizes()[1] == g.T &&
               log_alpha.sizes()[2] == Smax,
           "ctc_loss_backward: log_alpha of shape ", sizes_str(log_alpha.sizes()), " does not match (", g.N, ", ",
           g.T, ", ", Smax, ")");
  const ScalarType dt = log_probs.dtype();
  Tensor x = log_probs.contiguous(), go = grad.to(dt).contiguous();
  Tensor nll = neg_log_likelihood.to(dt).contiguous(), la_all = log_alpha.to(dt).contiguous();
  Tensor result = tl::zeros({g.T, g.N, g.C}, dt, std::nullopt, log_probs.device());
  if (g.N > 0)
    ctc_loss_backward_stub(log_probs.device().type, g, go, x, input_lengths, target_lengths, nll, la_all, blank,
                           zero_infinity, result);
  return result;
}

std::tuple<Tensor, Tensor> _ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                                     const Tensor& target_lengths, int64_t blank, bool zero_infinity) {
  return tl::_ctc_loss(log_probs, targets, lengths_of(input_lengths, "input_lengths"),
                       lengths_of(target_lengths, "target_lengths"), blank, zero_infinity);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths, IntArrayRef target_lengths,
                int64_t blank, int64_t reduction, bool zero_infinity) {
  TL_CHECK(reduction >= Reduction::None && reduction <= Reduction::Sum, reduction, " is not a valid value for reduction");
  TL_CHECK(log_probs.dim() == 2 || log_probs.dim() == 3,
           "ctc_loss: log_probs must be (T, C) or (T, N, C), but got shape ", sizes_str(log_probs.sizes()));
  // Unbatched: (T, C) log_probs and (S,) targets are one sample.
  const bool unbatched = log_probs.dim() == 2;
  auto [nll, log_alpha] = tl::_ctc_loss(unbatched ? log_probs.unsqueeze(1) : log_probs,
                                        unbatched ? targets.unsqueeze(0) : targets, input_lengths, target_lengths,
                                        blank, zero_infinity);
  if (zero_infinity) nll = tl::where(nll.eq(std::numeric_limits<double>::infinity()), Scalar(0.0), nll);
  if (reduction == Reduction::Mean) {
    Tensor lengths = empty_tensor({static_cast<int64_t>(target_lengths.size())}, TensorOptions(ScalarType::Long));
    std::copy(target_lengths.begin(), target_lengths.end(), lengths.data_ptr<int64_t>());
    return nll.div(lengths.clamp_min(1).to(nll.device(), nll.dtype())).mean();  // lengths are host values
  }
  if (reduction == Reduction::Sum) return nll.sum();
  return unbatched ? nll.squeeze(0) : nll;
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  return tl::ctc_loss(log_probs, targets, lengths_of(input_lengths, "input_lengths"),
                      lengths_of(target_lengths, "target_lengths"), blank, reduction, zero_infinity);
}

}  // namespace tl::native
