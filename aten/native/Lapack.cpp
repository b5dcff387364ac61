// Note [LAPACK source] (Lapack.h): dlopen scipy-openblas32 once, resolve `scipy_<name>_`.
#include "aten/native/Lapack.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "aten/core/Exception.h"

namespace tl::native::lapack {

namespace {

// Fortran passes every argument by pointer; character arguments also get a hidden length.
using fchar_len = size_t;

std::function<std::string()>& resolver() {
  static std::function<std::string()> r;
  return r;
}

void* library() {
  static std::mutex mutex;
  static void* handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (handle) return handle;
  }
  // The resolver may take the GIL: call it with no lock of ours held.
  std::string path;
  if (const char* env = std::getenv("TORCHLITE_LAPACK_LIBRARY"); env && *env) {
    path = env;
  } else {
    TL_CHECK(resolver(), "torchlite.linalg needs LAPACK from the scipy-openblas32 package "
                         "(pip install scipy-openblas32), or TORCHLITE_LAPACK_LIBRARY set to its library");
    path = resolver()();
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (!handle) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    TL_CHECK(handle, "torchlite.linalg could not load LAPACK from ", path, ": ", dlerror(),
             " (install scipy-openblas32: pip install scipy-openblas32)");
  }
  return handle;
}

template <typename Fn>
Fn resolve(const char* name) {
  void* sym = dlsym(library(), (std::string("scipy_") + name + "_").c_str());
  TL_CHECK(sym, "torchlite.linalg: LAPACK routine ", name, " is missing from the scipy-openblas32 library");
  return reinterpret_cast<Fn>(sym);
}

// One pointer per routine and dtype, looked up at its first call. The library is loaded first,
// outside the static's initialisation: loading may wait for the GIL, and a thread holding the GIL
// may be waiting on that initialisation (a second thread calling the same routine).
#define TL_LAPACK_FN(var, name, type) \
  (void)library();                    \
  static const auto var = resolve<type>(name)

template <typename T> constexpr char prefix() { return std::is_same_v<T, float> ? 's' : 'd'; }
template <typename T> std::string routine(const char* base) { return std::string(1, prefix<T>()) + base; }

// LAPACK's workspace query: lwork = -1 returns the optimal size in work[0].
template <typename T> int query_size(T w) { return std::max(1, static_cast<int>(w)); }

}  // namespace

void set_library_resolver(std::function<std::string()> r) { resolver() = std::move(r); }

template <typename T>
void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) {
  using Fn = void (*)(const int*, const int*, T*, const int*, int*, int*);
  TL_LAPACK_FN(fn, routine<T>("getrf").c_str(), Fn);
  fn(&m, &n, a, &lda, ipiv, info);
}

template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("getrs").c_str(), Fn);
  fn(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}

template <typename T>
void getri(int n, T* a, int lda, const int* ipiv, int* info) {
  using Fn = void (*)(const int*, T*, const int*, const int*, T*, const int*, int*);
  TL_LAPACK_FN(fn, routine<T>("getri").c_str(), Fn);
  T wq;
  int lwork = -1;
  fn(&n, a, &lda, ipiv, &wq, &lwork, info);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&n, a, &lda, ipiv, work.data(), &lwork, info);
}

template <typename T>
void potrf(char uplo, int n, T* a, int lda, int* info) {
  using Fn = void (*)(const char*, const int*, T*, const int*, int*, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("potrf").c_str(), Fn);
  fn(&uplo, &n, a, &lda, info, 1);
}

template <typename T>
void potrs(char uplo, int n, int nrhs, const T* a, int lda, T* b, int ldb, int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("potrs").c_str(), Fn);
  fn(&uplo, &n, &nrhs, a, &lda, b, &ldb, info, 1);
}

template <typename T>
void potri(char uplo, int n, T* a, int lda, int* info) {
  using Fn = void (*)(const char*, const int*, T*, const int*, int*, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("potri").c_str(), Fn);
  fn(&uplo, &n, a, &lda, info, 1);
}

template <typename T>
void sytrf(char uplo, int n, T* a, int lda, int* ipiv, int* info) {
  using Fn = void (*)(const char*, const int*, T*, const int*, int*, T*, const int*, int*, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("sytrf").c_str(), Fn);
  T wq;
  int lwork = -1;
  fn(&uplo, &n, a, &lda, ipiv, &wq, &lwork, info, 1);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&uplo, &n, a, &lda, ipiv, work.data(), &lwork, info, 1);
}

template <typename T>
void sytrs(char uplo, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*,
                      fchar_len);
  TL_LAPACK_FN(fn, routine<T>("sytrs").c_str(), Fn);
  fn(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}

template <typename T>
void geqrf(int m, int n, T* a, int lda, T* tau, int* info) {
  using Fn = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  TL_LAPACK_FN(fn, routine<T>("geqrf").c_str(), Fn);
  T wq;
  int lwork = -1;
  fn(&m, &n, a, &lda, tau, &wq, &lwork, info);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&m, &n, a, &lda, tau, work.data(), &lwork, info);
}

template <typename T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau, int* info) {
  using Fn = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
  TL_LAPACK_FN(fn, routine<T>("orgqr").c_str(), Fn);
  T wq;
  int lwork = -1;
  fn(&m, &n, &k, a, &lda, tau, &wq, &lwork, info);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&m, &n, &k, a, &lda, tau, work.data(), &lwork, info);
}

template <typename T>
void ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c, int ldc, int* info) {
  using Fn = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const int*, const T*, T*,
                      const int*, T*, const int*, int*, fchar_len, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("ormqr").c_str(), Fn);
  T wq;
  int lwork = -1;
  fn(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, &wq, &lwork, info, 1, 1);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork, info, 1, 1);
}

template <typename T>
void syevd(char jobz, char uplo, int n, T* a, int lda, T* w, int* info) {
  using Fn = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*, const int*, int*,
                      fchar_len, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("syevd").c_str(), Fn);
  T wq;
  int iwq, lwork = -1, liwork = -1;
  fn(&jobz, &uplo, &n, a, &lda, w, &wq, &lwork, &iwq, &liwork, info, 1, 1);
  lwork = query_size(wq);
  liwork = std::max(1, iwq);
  std::vector<T> work(lwork);
  std::vector<int> iwork(liwork);
  fn(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, info, 1, 1);
}

template <typename T>
void geev(char jobvr, int n, T* a, int lda, T* wr, T* wi, T* vr, int ldvr, int* info) {
  using Fn = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, T*, const int*, T*, const int*, T*,
                      const int*, int*, fchar_len, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("geev").c_str(), Fn);
  const char jobvl = 'N';
  const int ldvl = 1;
  T vl, wq;
  int lwork = -1;
  fn(&jobvl, &jobvr, &n, a, &lda, wr, wi, &vl, &ldvl, vr, &ldvr, &wq, &lwork, info, 1, 1);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&jobvl, &jobvr, &n, a, &lda, wr, wi, &vl, &ldvl, vr, &ldvr, work.data(), &lwork, info, 1, 1);
}

template <typename T>
void gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt, int* info) {
  using Fn = void (*)(const char*, const int*, const int*, T*, const int*, T*, T*, const int*, T*, const int*, T*,
                      const int*, int*, int*, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("gesdd").c_str(), Fn);
  std::vector<int> iwork(8 * static_cast<size_t>(std::max(1, std::min(m, n))));
  T wq;
  int lwork = -1;
  fn(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &wq, &lwork, iwork.data(), info, 1);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), info, 1);
}

template <typename T>
void gels(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const int*, T*, const int*, T*, const int*, T*, const int*,
                      int*, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("gels").c_str(), Fn);
  const char trans = 'N';
  T wq;
  int lwork = -1;
  fn(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, &wq, &lwork, info, 1);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work.data(), &lwork, info, 1);
}

template <typename T>
void gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T rcond, int* rank, int* info) {
  using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, int*, const T*, int*, T*,
                      const int*, int*);
  TL_LAPACK_FN(fn, routine<T>("gelsy").c_str(), Fn);
  std::vector<int> jpvt(std::max(1, n), 0);  // 0: every column is free to move
  T wq;
  int lwork = -1;
  fn(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt.data(), &rcond, rank, &wq, &lwork, info);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt.data(), &rcond, rank, work.data(), &lwork, info);
}

template <typename T>
void gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, int* info) {
  using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, T*, const T*, int*, T*,
                      const int*, int*, int*);
  TL_LAPACK_FN(fn, routine<T>("gelsd").c_str(), Fn);
  T wq;
  int iwq, lwork = -1;
  fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, &wq, &lwork, &iwq, info);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  std::vector<int> iwork(std::max(1, iwq));
  fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work.data(), &lwork, iwork.data(), info);
}

template <typename T>
void gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, int* info) {
  using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, T*, const T*, int*, T*,
                      const int*, int*);
  TL_LAPACK_FN(fn, routine<T>("gelss").c_str(), Fn);
  T wq;
  int lwork = -1;
  fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, &wq, &lwork, info);
  lwork = query_size(wq);
  std::vector<T> work(lwork);
  fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work.data(), &lwork, info);
}

template <typename T>
void trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T* a, int lda, T* b, int ldb) {
  using Fn = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,
                      const int*, T*, const int*, fchar_len, fchar_len, fchar_len, fchar_len);
  TL_LAPACK_FN(fn, routine<T>("trsm").c_str(), Fn);
  fn(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

#define TL_INSTANTIATE(T)                                                                                          \
  template void getrf<T>(int, int, T*, int, int*, int*);                                                           \
  template void getrs<T>(char, int, int, const T*, int, const int*, T*, int, int*);                                \
  template void getri<T>(int, T*, int, const int*, int*);                                                          \
  template void potrf<T>(char, int, T*, int, int*);                                                                \
  template void potrs<T>(char, int, int, const T*, int, T*, int, int*);                                            \
  template void potri<T>(char, int, T*, int, int*);                                                                \
  template void sytrf<T>(char, int, T*, int, int*, int*);                                                          \
  template void sytrs<T>(char, int, int, const T*, int, const int*, T*, int, int*);                                \
  template void geqrf<T>(int, int, T*, int, T*, int*);                                                             \
  template void orgqr<T>(int, int, int, T*, int, const T*, int*);                                                  \
  template void ormqr<T>(char, char, int, int, int, const T*, int, const T*, T*, int, int*);                       \
  template void syevd<T>(char, char, int, T*, int, T*, int*);                                                      \
  template void geev<T>(char, int, T*, int, T*, T*, T*, int, int*);                                               \
  template void gesdd<T>(char, int, int, T*, int, T*, T*, int, T*, int, int*);                                     \
  template void gels<T>(int, int, int, T*, int, T*, int, int*);                                                    \
  template void gelsy<T>(int, int, int, T*, int, T*, int, T, int*, int*);                                          \
  template void gelsd<T>(int, int, int, T*, int, T*, int, T*, T, int*, int*);                                      \
  template void gelss<T>(int, int, int, T*, int, T*, int, T*, T, int*, int*);                                      \
  template void trsm<T>(char, char, char, char, int, int, T, const T*, int, T*, int);
TL_INSTANTIATE(float)
TL_INSTANTIATE(double)
#undef TL_INSTANTIATE

}  // namespace tl::native::lapack
