#pragma once
// Note [FFT plan]: one-dimensional complex FFTs for the spectral operators (SpectralOps.cpp).
// A Plan<T> for length n is built once and cached per (n, T) (get_fft_plan):
//  - n whose prime factors are all <= kMaxGenericRadix: a mixed-radix Stockham (self-sorting,
//    so no bit reversal) decimation-in-frequency Cooley-Tukey. Each stage of radix p turns a
//    length-L = p*m sub-transform with batch stride s into p sub-transforms of length m with
//    stride s*p, multiplying by the precomputed twiddles w_L^{jk}; radix 2, 3, 4 and 5 have
//    butterflies of their own, any other prime runs the generic O(p^2) one.
//  - any other n: Bluestein's chirp-z algorithm, a circular convolution computed with a
//    power-of-two plan of length >= 2n - 1, so every length is O(n log n).
// Twiddles and chirps are computed in double (index products reduced mod n first), then rounded
// to T. Plans only read their tables, so one plan serves many threads; each caller passes its
// own work buffer of work_size() elements.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace tl::native {

template <typename T>
class FFTPlan {
 public:
  using C = std::complex<T>;
  static constexpr int64_t kMaxGenericRadix = 31;

  explicit FFTPlan(int64_t n) : n_(n) {
    std::vector<int64_t> factors = factorize(n);
    if (!factors.empty() && factors.back() > kMaxGenericRadix) {
      build_bluestein();
    } else {
      build_stages(factors);
    }
  }

  int64_t size() const { return n_; }
  int64_t work_size() const { return bluestein_ ? 2 * m_ + sub_->work_size() : n_; }
  // Whether forward_interleaved runs (Bluestein plans transform one signal at a time).
  bool interleavable() const { return !bluestein_; }

  // x[0..n) <- sum_j x[j] exp(-2 pi i jk / n), in place; `work` holds work_size() elements.
  void forward(C* x, C* work) const {
    if (bluestein_) return bluestein(x, work);
    forward_interleaved(x, work, 1);
  }

  // `batch` signals at once, element i of signal b at x[i * batch + b] (a [n, batch] block):
  // the Stockham stages see the batch as a longer inner stride, so their inner loops run over
  // batch contiguous elements. `work` holds n * batch elements. Not for Bluestein plans.
  void forward_interleaved(C* x, C* work, int64_t batch) const {
    C* src = x;
    C* dst = work;
    for (const Stage& st : stages_) {
      run_stage(st, src, dst, batch);
      std::swap(src, dst);
    }
    if (src != x) std::copy(src, src + n_ * batch, x);
  }

 private:
  struct Stage {
    int64_t p, m, s;     // radix, sub-transform length after the stage, batch stride before it
    std::vector<C> tw;   // tw[j*(p-1) + k-1] = w_{p*m}^{jk}
    std::vector<C> dft;  // generic radix: dft[t] = w_p^t
  };

  // std::complex's operator* handles inf/NaN through a library call; FFT data needs the plain formula.
  // (Public: RealFFTPlan uses it.)
 public:
  static C mul(const C& a, const C& b) {
    return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  }

  // x * tw[j], where tw[0] is 1: skipping that product keeps an infinite input from turning into
  // NaN (inf * 0) where pocketfft, which PyTorch runs, keeps it infinite.
  static C twiddle(const C& x, const C& w, int64_t j) { return j == 0 ? x : mul(x, w); }

 private:
  static C unit(int64_t num, int64_t den) {  // exp(-2 pi i num / den), num reduced mod den
    const double a = -2.0 * M_PI * static_cast<double>(num % den) / static_cast<double>(den);
    return C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
  }

  // 4s first (fewest passes), then 2, 3, 5 and the other primes in increasing order.
  static std::vector<int64_t> factorize(int64_t n) {
    std::vector<int64_t> f;
    while (n % 4 == 0) { f.push_back(4); n /= 4; }
    for (int64_t p = 2; p * p <= n; p += (p == 2 ? 1 : 2)) {
      while (n % p == 0) { f.push_back(p); n /= p; }
    }
    if (n > 1) f.push_back(n);
    std::vector<int64_t> small, rest;  // keep the 4s first, sort the primes after them
    for (int64_t p : f) (p == 4 ? small : rest).push_back(p);
    std::sort(rest.begin(), rest.end());
    small.insert(small.end(), rest.begin(), rest.end());
    return small;
  }

  void build_stages(const std::vector<int64_t>& factors) {
    int64_t len = n_, s = 1;
    for (int64_t p : factors) {
      Stage st{p, len / p, s, {}, {}};
      st.tw.resize(static_cast<size_t>(st.m * (p - 1)));
      for (int64_t j = 0; j < st.m; ++j)
        for (int64_t k = 1; k < p; ++k) st.tw[j * (p - 1) + k - 1] = unit(j * k, len);
      if (p > 5) {
        st.dft.resize(static_cast<size_t>(p));
        for (int64_t t = 0; t < p; ++t) st.dft[t] = unit(t, p);
      }
      stages_.push_back(std::move(st));
      len /= p;
      s *= p;
    }
  }

  void build_bluestein() {
    bluestein_ = true;
    m_ = 1;
    while (m_ < 2 * n_ - 1) m_ *= 2;
    sub_ = std::make_shared<const FFTPlan<T>>(m_);
    chirp_.resize(static_cast<size_t>(n_));
    std::vector<C> b(static_cast<size_t>(m_), C(0));
    for (int64_t j = 0; j < n_; ++j) {
      // exp(-pi i j^2 / n) = exp(-2 pi i (j^2 mod 2n) / 2n)
      chirp_[j] = unit((j * j) % (2 * n_), 2 * n_);
      b[j] = std::conj(chirp_[j]);
      if (j > 0) b[m_ - j] = b[j];
    }
    std::vector<C> work(static_cast<size_t>(sub_->work_size()));
    sub_->forward(b.data(), work.data());
    const T inv_m = T(1) / static_cast<T>(m_);
    for (C& v : b) v *= inv_m;  // fold the inverse transform's 1/m in
    kernel_ = std::move(b);
  }

  // X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k-j]) with c[j] = exp(-pi i j^2 / n).
  void bluestein(C* x, C* work) const {
    C* a = work;
    C* sub_work = work + 2 * m_;
    for (int64_t j = 0; j < n_; ++j) a[j] = mul(x[j], chirp_[j]);
    std::fill(a + n_, a + m_, C(0));
    sub_->forward(a, sub_work);
    // The inverse transform as conj(forward(conj(.))).
    for (int64_t k = 0; k < m_; ++k) a[k] = std::conj(mul(a[k], kernel_[k]));
    sub_->forward(a, sub_work);
    for (int64_t k = 0; k < n_; ++k) x[k] = mul(std::conj(a[k]), chirp_[k]);
  }

  static void run_stage(const Stage& st, const C* x, C* y, int64_t batch) {
    const int64_t p = st.p, m = st.m, s = st.s * batch;
    const C* tw = st.tw.data();
    switch (p) {
      case 2:
        for (int64_t j = 0; j < m; ++j) {
          const C w1 = tw[j];
          for (int64_t q = 0; q < s; ++q) {
            const C a0 = x[q + s * j], a1 = x[q + s * (j + m)];
            y[q + s * (2 * j)] = a0 + a1;
            y[q + s * (2 * j + 1)] = twiddle(a0 - a1, w1, j);
          }
        }
        return;
      case 3: {
        const T h = static_cast<T>(0.86602540378443864676);  // sin(2 pi / 3)
        for (int64_t j = 0; j < m; ++j) {
          const C w1 = tw[2 * j], w2 = tw[2 * j + 1];
          for (int64_t q = 0; q < s; ++q) {
            const C a0 = x[q + s * j], a1 = x[q + s * (j + m)], a2 = x[q + s * (j + 2 * m)];
            const C t = a1 + a2, d = a1 - a2;
            const C m1 = a0 - t * T(0.5), m2(d.imag() * h, -d.real() * h);  // -i h d
            y[q + s * (3 * j)] = a0 + t;
            y[q + s * (3 * j + 1)] = twiddle(m1 + m2, w1, j);
            y[q + s * (3 * j + 2)] = twiddle(m1 - m2, w2, j);
          }
        }
        return;
      }
      case 4:
        for (int64_t j = 0; j < m; ++j) {
          const C w1 = tw[3 * j], w2 = tw[3 * j + 1], w3 = tw[3 * j + 2];
          for (int64_t q = 0; q < s; ++q) {
            const C a0 = x[q + s * j], a1 = x[q + s * (j + m)];
            const C a2 = x[q + s * (j + 2 * m)], a3 = x[q + s * (j + 3 * m)];
            const C t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, d = a1 - a3;
            const C t3(d.imag(), -d.real());  // -i d
            y[q + s * (4 * j)] = t0 + t2;
            y[q + s * (4 * j + 1)] = twiddle(t1 + t3, w1, j);
            y[q + s * (4 * j + 2)] = twiddle(t0 - t2, w2, j);
            y[q + s * (4 * j + 3)] = twiddle(t1 - t3, w3, j);
          }
        }
        return;
      case 5: {
        const T c1 = static_cast<T>(0.30901699437494742410), c2 = static_cast<T>(-0.80901699437494742410);
        const T s1 = static_cast<T>(0.95105651629515357212), s2 = static_cast<T>(0.58778525229247312917);
        for (int64_t j = 0; j < m; ++j) {
          const C* w = tw + 4 * j;
          for (int64_t q = 0; q < s; ++q) {
            const C a0 = x[q + s * j], a1 = x[q + s * (j + m)], a2 = x[q + s * (j + 2 * m)];
            const C a3 = x[q + s * (j + 3 * m)], a4 = x[q + s * (j + 4 * m)];
            const C t1 = a1 + a4, t2 = a2 + a3, t3 = a1 - a4, t4 = a2 - a3;
            const C r1 = a0 + c1 * t1 + c2 * t2, r2 = a0 + c2 * t1 + c1 * t2;
            const C u1 = s1 * t3 + s2 * t4, u2 = s2 * t3 - s1 * t4;
            const C i1(u1.imag(), -u1.real()), i2(u2.imag(), -u2.real());  // -i u
            y[q + s * (5 * j)] = a0 + t1 + t2;
            y[q + s * (5 * j + 1)] = twiddle(r1 + i1, w[0], j);
            y[q + s * (5 * j + 2)] = twiddle(r2 + i2, w[1], j);
            y[q + s * (5 * j + 3)] = twiddle(r2 - i2, w[2], j);
            y[q + s * (5 * j + 4)] = twiddle(r1 - i1, w[3], j);
          }
        }
        return;
      }
      default: {
        C a[kMaxGenericRadix];
        for (int64_t j = 0; j < m; ++j) {
          for (int64_t q = 0; q < s; ++q) {
            for (int64_t r = 0; r < p; ++r) a[r] = x[q + s * (j + r * m)];
            for (int64_t k = 0; k < p; ++k) {
              C b = a[0];
              for (int64_t r = 1; r < p; ++r) b += (r * k) % p == 0 ? a[r] : mul(a[r], st.dft[(r * k) % p]);
              y[q + s * (p * j + k)] = k == 0 ? b : twiddle(b, tw[j * (p - 1) + k - 1], j);
            }
          }
        }
      }
    }
  }

  int64_t n_;
  std::vector<Stage> stages_;
  bool bluestein_ = false;
  int64_t m_ = 0;                        // Bluestein: the power-of-two convolution length
  std::vector<C> chirp_, kernel_;        // Bluestein: c[j], and FFT(conj chirp, wrapped) / m
  std::shared_ptr<const FFTPlan<T>> sub_;
};

// The cached plan of type P for length n (plans are immutable; the cache keeps the most recent few).
template <typename P>
std::shared_ptr<const P> cached_plan(int64_t n) {
  static std::mutex mutex;
  static std::map<int64_t, std::shared_ptr<const P>> cache;
  constexpr size_t kMaxCached = 64;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  if (cache.size() >= kMaxCached) cache.clear();
  auto plan = std::make_shared<const P>(n);
  cache.emplace(n, plan);
  return plan;
}

template <typename T>
std::shared_ptr<const FFTPlan<T>> get_fft_plan(int64_t n) {
  return cached_plan<FFTPlan<T>>(n);
}

// The onesided transform of a real signal of even length n through one complex FFT of length
// n/2: z[j] = x[2j] + i x[2j+1] is transformed, then X[k] = E[k] + w_n^k O[k] with
// E[k] = (Z[k] + conj Z[h-k]) / 2 and O[k] = (Z[k] - conj Z[h-k]) / 2i the transforms of the
// even and odd samples.
template <typename T>
struct RealFFTPlan {
  using C = std::complex<T>;
  explicit RealFFTPlan(int64_t n) : half(get_fft_plan<T>(n / 2)) {
    for (int64_t k = 0; k < n / 2; ++k) {
      const double a = -2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      w.emplace_back(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
    }
  }
  int64_t work_size() const { return half->work_size() + half->size(); }

  // out[0..n/2] <- the onesided transform of x[0..n), times scale; work holds work_size() elements.
  void forward(const T* x, C* out, C* work, T scale) const {
    const int64_t h = half->size();
    C* z = work + half->work_size();
    for (int64_t j = 0; j < h; ++j) z[j] = C(x[2 * j], x[2 * j + 1]);
    half->forward(z, work);
    const T s = scale * T(0.5);
    for (int64_t k = 0; k <= h; ++k) {
      const C zk = z[k % h], zm = std::conj(z[(h - k) % h]);
      const C e = zk + zm, d = zk - zm;
      const C o(d.imag(), -d.real());  // (zk - zm) / i
      // w_n^0 = 1 and w_n^h = -1 are not multiplied (an infinite input stays infinite).
      const C wo = k == 0 ? o : k == h ? -o : FFTPlan<T>::mul(o, w[k]);
      out[k] = (e + wo) * s;
    }
  }

  std::shared_ptr<const FFTPlan<T>> half;
  std::vector<C> w;  // w_n^k for k < n/2
};

}  // namespace tl::native
