// Layer, batch and group normalisation. The native forward kernels return the statistics the fused
// backward kernels reuse (mean and 1/sqrt(var + eps)); statistics accumulate in double for double
// inputs and in float otherwise (Half/BFloat16 run in float). Rows / channels are independent and
// OpenMP splits them when the work is large enough.
#include <array>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/BatchNorm.h"
#include "aten/native/OptionalTensor.h"
#include "aten/native/Parallel.h"
#include "aten/native/cpu/ReduceEngine.h"
#include "generated/ops/add.h"
#include "generated/ops/batch_norm.h"
#include "generated/ops/batch_norm_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/div.h"
#include "generated/ops/group_norm.h"
#include "generated/ops/group_norm_native.h"
#include "generated/ops/layer_norm.h"
#include "generated/ops/layer_norm_native.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/native_batch_norm.h"
#include "generated/ops/native_batch_norm_backward_native.h"
#include "generated/ops/native_batch_norm_native.h"
#include "generated/ops/native_layer_norm.h"
#include "generated/ops/native_layer_norm_backward_native.h"
#include "generated/ops/native_layer_norm_native.h"
#include "generated/ops/neg.h"
#include "generated/ops/reshape.h"
#include "generated/ops/rsqrt.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {


std::string sizes_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

bool has(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

// A defined optional tensor as a contiguous tensor of `dt`, else an undefined tensor.
Tensor opt(const std::optional<Tensor>& t, ScalarType dt) { return has(t) ? t->to(dt).contiguous() : Tensor(); }

// Layer norm's row statistics as reduction ops, run by the reduction engine's multi-accumulator
// loop (cpu_reduce::reduce_run): one accumulator chain would wait on every add's latency.
template <typename T>
struct RowSumOp {
  using acc_t = T;
  T identity() const { return T(0); }
  T reduce(T a, T x) const { return a + x; }
  T combine(T a, T b) const { return a + b; }
};

template <typename T>
struct SquaredDeviationSumOp : RowSumOp<T> {
  T mu;
  explicit SquaredDeviationSumOp(T m) : mu(m) {}
  T reduce(T a, T x) const { return a + (x - mu) * (x - mu); }
};

// Splits input sizes into M rows of N normalised elements (layer norm).
std::pair<int64_t, int64_t> check_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                             const std::optional<Tensor>& weight,
                                             const std::optional<Tensor>& bias) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  TL_CHECK(nd >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, ",
           "but got normalized_shape = ", sizes_str(normalized_shape));
  TL_CHECK(!has(weight) || weight->sizes().equals(normalized_shape),
           "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
           sizes_str(weight->sizes()), " and normalized_shape = ", sizes_str(normalized_shape));
  TL_CHECK(!has(bias) || bias->sizes().equals(normalized_shape),
           "Expected bias to be of same shape as normalized_shape, but got bias of shape ", sizes_str(bias->sizes()),
           " and normalized_shape = ", sizes_str(normalized_shape));
  const int64_t axis = input.dim() - nd;
  bool ok = axis >= 0;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.sizes()[axis + i] == normalized_shape[i];
  if (!ok) {
    std::ostringstream expected;
    expected << "[*";
    for (int64_t s : normalized_shape) expected << ", " << s;
    expected << "]";
    TL_ERROR("Given normalized_shape=", sizes_str(normalized_shape), ", expected input with shape ", expected.str(),
             ", but got input of size", sizes_str(input.sizes()));
  }
  int64_t M = 1, N = 1;
  for (int64_t i = 0; i < input.dim(); ++i) (i < axis ? M : N) *= input.sizes()[i];
  return {M, N};
}

std::vector<int64_t> stat_shape(const Tensor& input, int64_t nd) {
  std::vector<int64_t> s(input.sizes().begin(), input.sizes().end());
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) s[i] = 1;
  return s;
}

// Batch norm: (N, C, *) as N x C planes of S elements.
BatchNormPlanes planes_of(const Tensor& input) {
  TL_CHECK(input.dim() >= 2, "batch_norm: expected input with at least 2 dimensions (N, C, ...), but got input of size",
           sizes_str(input.sizes()));
  const int64_t N = input.sizes()[0], C = input.sizes()[1];
  return {N, C, C > 0 && N > 0 ? input.numel() / (N * C) : 0};
}

// A per-channel argument of batch norm: C elements (the generated check has put it on the input's
// device, Note [Device check]).
void check_channel_tensor(const std::optional<Tensor>& t, int64_t C, const char* name) {
  if (!has(t)) return;
  TL_CHECK(t->numel() == C, name, " should contain ", C, " elements not ", t->numel());
}

// The mean and 1/std the batch-norm backward uses, as contiguous (C) tensors of dt: the saved
// batch statistics, or in evaluation mode the running ones.
std::pair<Tensor, Tensor> batch_norm_backward_stats(const BatchNormPlanes& p, const std::optional<Tensor>& running_mean,
                                                    const std::optional<Tensor>& running_var,
                                                    const std::optional<Tensor>& save_mean,
                                                    const std::optional<Tensor>& save_invstd, bool train, double eps,
                                                    ScalarType dt) {
  if (has(save_mean) && has(save_invstd) && save_mean->numel() == p.C && save_invstd->numel() == p.C)
    return {save_mean->to(dt).contiguous(), save_invstd->to(dt).contiguous()};
  TL_CHECK(!train, "native_batch_norm_backward: training mode needs save_mean and save_invstd of ", p.C, " elements");
  TL_CHECK(has(running_mean) && has(running_var) && running_mean->numel() == p.C && running_var->numel() == p.C,
           "native_batch_norm_backward: evaluation mode needs running_mean and running_var of ", p.C, " elements");
  return {running_mean->to(dt).contiguous(), running_var->to(dt).add(eps).rsqrt().contiguous()};
}

}  // namespace

// ---- layer norm -----------------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_cpu(const Tensor& input, IntArrayRef normalized_shape,
                                                         const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias, double eps) {
  const auto rows = check_layer_norm(input, normalized_shape, weight, bias);
  const int64_t M = rows.first, N = rows.second;
  if (low_precision(input.dtype())) {
    auto [y, mean, rstd] = native_layer_norm_cpu(input.to(ScalarType::Float), normalized_shape,
                                                 has(weight) ? std::optional<Tensor>(weight->to(ScalarType::Float))
                                                             : std::nullopt,
                                                 has(bias) ? std::optional<Tensor>(bias->to(ScalarType::Float))
                                                           : std::nullopt,
                                                 eps);
    return {y.to(input.dtype()), mean.to(input.dtype()), rstd.to(input.dtype())};
  }
  const auto sshape = stat_shape(input, static_cast<int64_t>(normalized_shape.size()));
  Tensor x = input.contiguous(), w = opt(weight, input.dtype()), b = opt(bias, input.dtype());
  Tensor y = empty_tensor(input.sizes(), input.options());
  Tensor mean = empty_tensor(sshape, input.options()), rstd = empty_tensor(sshape, input.options());
  dispatch_float_double(input.dtype(), "native_layer_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *xp = x.data_ptr<T>(), *wp = ptr_or_null<T>(w), *bp = ptr_or_null<T>(b);
    T *yp = y.data_ptr<T>(), *mp = mean.data_ptr<T>(), *rp = rstd.data_ptr<T>();
#pragma omp parallel for schedule(static) if (worth_parallel(M, M * N))
    for (int64_t i = 0; i < M; ++i) {
      const T* xr = xp + i * N;
      T* yr = yp + i * N;
      const T mu = cpu_reduce::reduce_run(RowSumOp<T>{}, xr, N, T(0)) / N;
      // Two passes: no cancellation for large means.
      const T var = cpu_reduce::reduce_run(SquaredDeviationSumOp<T>(mu), xr, N, T(0));
      const T r = T(1) / std::sqrt(var / N + static_cast<T>(eps));
#pragma omp simd
      for (int64_t j = 0; j < N; ++j) yr[j] = (xr[j] - mu) * r * (wp ? wp[j] : T(1)) + (bp ? bp[j] : T(0));
      mp[i] = mu;
      rp[i] = r;
    }
  });
  return {y, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_cpu(const Tensor& grad_out, const Tensor& input,
                                                                  IntArrayRef normalized_shape, const Tensor& mean,
                                                                  const Tensor& rstd,
                                                                  const std::optional<Tensor>& weight,
                                                                  const std::optional<Tensor>& bias,
                                                                  std::array<bool, 3> output_mask) {
  const auto rows = check_layer_norm(input, normalized_shape, weight, bias);
  const int64_t M = rows.first, N = rows.second;
  TL_CHECK(grad_out.sizes().equals(input.sizes()), "native_layer_norm_backward: grad_out of size ",
           sizes_str(grad_out.sizes()), " does not match input of size ", sizes_str(input.sizes()));
  TL_CHECK(mean.numel() == M && rstd.numel() == M, "native_layer_norm_backward: mean and rstd must have ", M,
           " elements");
  const ScalarType dt = low_precision(input.dtype()) ? ScalarType::Float : input.dtype();
  Tensor go = grad_out.to(dt).contiguous(), x = input.to(dt).contiguous();
  Tensor mu = mean.to(dt).contiguous(), rs = rstd.to(dt).contiguous(), w = opt(weight, dt);
  Tensor gx = output_mask[0] ? empty_tensor(input.sizes(), x.options()) : Tensor();
  Tensor gw = output_mask[1] && has(weight) ? empty_tensor(normalized_shape, x.options()).zero_() : Tensor();
  Tensor gb = output_mask[2] && has(bias) ? empty_tensor(normalized_shape, x.options()).zero_() : Tensor();
  dispatch_float_double(dt, "native_layer_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *gp = go.data_ptr<T>(), *xp = x.data_ptr<T>(), *mp = mu.data_ptr<T>(), *rp = rs.data_ptr<T>();
    const T* wp = ptr_or_null<T>(w);
    T* gxp = gx.defined() ? gx.data_ptr<T>() : nullptr;
#pragma omp parallel for schedule(static) if (worth_parallel(M, M * N))
    for (int64_t i = 0; i < (gxp ? M : 0); ++i) {  // input gradient, unless output_mask[0] is false
      const T *g = gp + i * N, *xr = xp + i * N;
      const T m = mp[i], r = rp[i];
      T sum_g = 0, sum_gx = 0;  // sums of g = grad * w and of g * xhat
#pragma omp simd reduction(+ : sum_g, sum_gx)
      for (int64_t j = 0; j < N; ++j) {
        const T gj = wp ? g[j] * wp[j] : g[j];
        sum_g += gj;
        sum_gx += gj * (xr[j] - m) * r;
      }
      const T a = sum_g / N, c = sum_gx / N;
#pragma omp simd
      for (int64_t j = 0; j < N; ++j) {
        const T gj = wp ? g[j] * wp[j] : g[j];
        gxp[i * N + j] = r * (gj - a - (xr[j] - m) * r * c);
      }
    }
    // weight / bias gradients: column sums over the rows (one pass, vectorisable inner loop).
    T* gwp = gw.defined() ? gw.data_ptr<T>() : nullptr;
    T* gbp = gb.defined() ? gb.data_ptr<T>() : nullptr;
    if (gwp || gbp) {
      for (int64_t i = 0; i < M; ++i) {
        const T *g = gp + i * N, *xr = xp + i * N;
        const T m = mp[i], r = rp[i];
        if (gwp)
          for (int64_t j = 0; j < N; ++j) gwp[j] += g[j] * (xr[j] - m) * r;
        if (gbp)
          for (int64_t j = 0; j < N; ++j) gbp[j] += g[j];
      }
    }
  });
  const ScalarType out_dt = input.dtype();
  auto back = [&](const Tensor& t) { return t.defined() && t.dtype() != out_dt ? t.to(out_dt) : t; };
  return {back(gx), back(gw), back(gb)};
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enable) {
  return std::get<0>(tl::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

// ---- batch norm -----------------------------------------------------------------------------------

DispatchStub<void(const BatchNormForward&)> batch_norm_stub("batch_norm_stub");
DispatchStub<void(const BatchNormBackward&)> batch_norm_backward_stub("batch_norm_backward_stub");

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  const BatchNormPlanes p = planes_of(input);
  check_channel_tensor(weight, p.C, "weight");
  check_channel_tensor(bias, p.C, "bias");
  check_channel_tensor(running_mean, p.C, "running_mean");
  check_channel_tensor(running_var, p.C, "running_var");
  TL_CHECK(training || (has(running_mean) && has(running_var)),
           "running_mean and running_var must be defined in evaluation mode");
  TL_CHECK(!training || p.N * p.S > 0 || p.C == 0, "batch_norm: cannot compute batch statistics of an empty input");
  const ScalarType dt = low_precision(input.dtype()) ? ScalarType::Float : input.dtype();
  BatchNormForward a;
  a.p = p;
  a.training = training;
  a.momentum = momentum;
  a.eps = eps;
  a.x = input.to(dt).contiguous();
  a.weight = opt(weight, dt);
  a.bias = opt(bias, dt);
  a.running_mean = opt(running_mean, dt);
  a.running_var = opt(running_var, dt);
  a.y = empty_tensor(input.sizes(), a.x.options());
  // Eval mode returns the running statistics used (PyTorch's CPU kernel returns empty tensors): the
  // backward then never reads running_mean / running_var, which training updates in place.
  a.save_mean = empty_tensor({p.C}, a.x.options());
  a.save_invstd = empty_tensor({p.C}, a.x.options());
  if (p.C > 0 && (p.N * p.S > 0 || !training)) batch_norm_stub(input.device().type, a);
  if (training) {  // write the running statistics back in place (they may be non-contiguous or another dtype)
    if (has(running_mean) && !a.running_mean.is_same(*running_mean)) running_mean->copy_(a.running_mean);
    if (has(running_var) && !a.running_var.is_same(*running_var)) running_var->copy_(a.running_var);
    if (has(running_mean)) running_mean->bump_version();
    if (has(running_var)) running_var->bump_version();
  }
  const ScalarType out_dt = input.dtype();
  return {out_dt != dt ? a.y.to(out_dt) : a.y, a.save_mean, a.save_invstd};
}

namespace {

// The planes of input, after the backward's checks.
BatchNormPlanes check_batch_norm_backward(const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight) {
  const BatchNormPlanes p = planes_of(input);
  TL_CHECK(grad_out.sizes().equals(input.sizes()), "native_batch_norm_backward: grad_out of size ",
           sizes_str(grad_out.sizes()), " does not match input of size ", sizes_str(input.sizes()));
  check_channel_tensor(weight, p.C, "weight");
  return p;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const BatchNormPlanes p = check_batch_norm_backward(grad_out, input, weight);
  const ScalarType dt = low_precision(input.dtype()) ? ScalarType::Float : input.dtype();
  auto [mean, invstd] = batch_norm_backward_stats(p, running_mean, running_var, save_mean, save_invstd, train, eps, dt);
  BatchNormBackward a;
  a.p = p;
  a.train = train;
  a.grad_out = grad_out.to(dt).contiguous();
  a.x = input.to(dt).contiguous();
  a.weight = opt(weight, dt);
  a.mean = mean;
  a.invstd = invstd;
  if (output_mask[0]) a.grad_input = empty_tensor(input.sizes(), a.x.options());
  if (output_mask[1] && has(weight)) a.grad_weight = empty_tensor({p.C}, a.x.options());
  if (output_mask[2]) a.grad_bias = empty_tensor({p.C}, a.x.options());
  if (p.C > 0) batch_norm_backward_stub(input.device().type, a);
  const ScalarType out_dt = input.dtype();
  auto back = [&](const Tensor& t) { return t.defined() && t.dtype() != out_dt ? t.to(out_dt) : t; };
  return {back(a.grad_input), back(a.grad_weight), back(a.grad_bias)};
}

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  return std::get<0>(
      tl::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

// ---- the CUDA path of layer norm: composed of reductions and pointwise ops -------------------------
// Same checks, statistics and dtypes as the kernels above (Half/BFloat16 run in float; the mean
// and the variance are two passes, and the reductions accumulate float32 sums in double).

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_composite(const Tensor& input, IntArrayRef normalized_shape,
                                                               const std::optional<Tensor>& weight,
                                                               const std::optional<Tensor>& bias, double eps) {
  check_layer_norm(input, normalized_shape, weight, bias);
  const ScalarType dt = low_precision(input.dtype()) ? ScalarType::Float : input.dtype();
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = axis; d < input.dim(); ++d) dims.push_back(d);
  Tensor x = input.to(dt);
  Tensor mean = x.mean(IntArrayRef(dims), true);
  Tensor xc = x.sub(mean);
  Tensor rstd = xc.mul(xc).mean(IntArrayRef(dims), true).add(eps).rsqrt();
  Tensor y = xc.mul(rstd);
  if (has(weight)) y = y.mul(weight->to(dt));
  if (has(bias)) y = y.add(bias->to(dt));
  const ScalarType out_dt = input.dtype();
  return {y.to(out_dt), mean.to(out_dt), rstd.to(out_dt)};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_composite(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, std::array<bool, 3> output_mask) {
  const auto rows = check_layer_norm(input, normalized_shape, weight, bias);
  const int64_t M = rows.first;
  TL_CHECK(grad_out.sizes().equals(input.sizes()), "native_layer_norm_backward: grad_out of size ",
           sizes_str(grad_out.sizes()), " does not match input of size ", sizes_str(input.sizes()));
  TL_CHECK(mean.numel() == M && rstd.numel() == M, "native_layer_norm_backward: mean and rstd must have ", M,
           " elements");
  const ScalarType dt = low_precision(input.dtype()) ? ScalarType::Float : input.dtype();
  const int64_t nd = static_cast<int64_t>(normalized_shape.size()), axis = input.dim() - nd;
  std::vector<int64_t> norm_dims, batch_dims;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? batch_dims : norm_dims).push_back(d);
  const auto sshape = stat_shape(input, nd);
  Tensor go = grad_out.to(dt), r = rstd.to(dt).reshape(sshape);
  Tensor xhat = input.to(dt).sub(mean.to(dt).reshape(sshape)).mul(r);
  // Column sums over the batch dims; with none (one row), the row itself.
  auto batch_sum = [&](const Tensor& t) { return batch_dims.empty() ? t : t.sum(IntArrayRef(batch_dims), false); };
  Tensor gx, gw, gb;
  if (output_mask[0]) {
    Tensor g = has(weight) ? go.mul(weight->to(dt)) : go;
    Tensor a = g.mean(IntArrayRef(norm_dims), true), c = g.mul(xhat).mean(IntArrayRef(norm_dims), true);
    gx = r.mul(g.sub(a).sub(xhat.mul(c)));
  }
  if (output_mask[1] && has(weight)) gw = batch_sum(go.mul(xhat)).reshape(normalized_shape);
  if (output_mask[2] && has(bias)) gb = batch_sum(go).reshape(normalized_shape);
  const ScalarType out_dt = input.dtype();
  auto back = [&](const Tensor& t) { return t.defined() && t.dtype() != out_dt ? t.to(out_dt) : t; };
  return {back(gx), back(gw), back(gb)};
}

// ---- group norm: layer norm over (C/G * spatial) per group, then the per-channel affine ---------------

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enabled) {
  TL_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  const int64_t N = input.sizes()[0], C = input.sizes()[1];
  TL_CHECK(num_groups > 0 && C % num_groups == 0, "Expected number of channels in input to be divisible by ",
           "num_groups, but got input of shape ", sizes_str(input.sizes()), " and num_groups=", num_groups);
  TL_CHECK(!has(weight) || (weight->dim() == 1 && weight->numel() == C), "Expected weight to be a vector of size ",
           "equal to the number of channels in input, but got weight of shape ",
           has(weight) ? sizes_str(weight->sizes()) : "", " and input of shape ", sizes_str(input.sizes()));
  TL_CHECK(!has(bias) || (bias->dim() == 1 && bias->numel() == C), "Expected bias to be a vector of size equal to ",
           "the number of channels in input, but got bias of shape ", has(bias) ? sizes_str(bias->sizes()) : "",
           " and input of shape ", sizes_str(input.sizes()));
  const int64_t per_group = N * C > 0 ? input.numel() / (N * num_groups) : 0;
  Tensor y = std::get<0>(
      tl::native_layer_norm(input.reshape({N, num_groups, per_group}), {per_group}, std::nullopt, std::nullopt, eps));
  y = y.reshape(input.sizes());
  std::vector<int64_t> affine(input.dim(), 1);
  affine[1] = C;
  if (has(weight)) y = y.mul(weight->reshape(affine));
  if (has(bias)) y = y.add(bias->reshape(affine));
  return y;
}

}  // namespace tl::native
