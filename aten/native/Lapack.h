#pragma once
// LAPACK and the BLAS triangular solve, resolved at run time from the scipy-openblas32 wheel.
//
// Note [LAPACK source]: torchlite's factorizations (LU, Cholesky, QR, symmetric eigen, SVD,
// least squares) call LAPACK rather than blocked factorizations of our own. We take it from
// `scipy-openblas32`, the OpenBLAS build the NumPy/SciPy team maintains and tests for their own
// wheels (32-bit LAPACK integers, every symbol prefixed `scipy_`, so it never clashes with
// another BLAS in the process). It is a pip dependency; the library is dlopen'ed at the first
// linalg call (the path comes from $TORCHLITE_LAPACK_LIBRARY, else from the package's
// get_lib_dir()/get_library() through the resolver the extension registers), so `import
// torchlite` and the CUDA build never need it. A missing library raises a RuntimeError that
// names the package. Writing LU/QR/SVD/eigen solvers ourselves would take far longer to make
// as accurate (pivoting, divide-and-conquer SVD, scaling) and as fast. Measured with
// benchmarks/bench_linalg.py (one thread, float32, n = 64..1024): solve, inv, det and cholesky
// take 0.2-0.8x PyTorch's time, svd and eigh 0.85-1.35x, qr 1.1-4x (small n).
//
// All matrices are column-major (Fortran) with leading dimension `ld*`.
#include <functional>
#include <string>

namespace tl::native::lapack {

// Returns the shared library's path; registered by the Python extension (lapack_resolver.cpp).
void set_library_resolver(std::function<std::string()> resolver);

template <typename T> void getrf(int m, int n, T* a, int lda, int* ipiv, int* info);
template <typename T> void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info);
template <typename T> void getri(int n, T* a, int lda, const int* ipiv, int* info);
template <typename T> void potrf(char uplo, int n, T* a, int lda, int* info);
template <typename T> void potrs(char uplo, int n, int nrhs, const T* a, int lda, T* b, int ldb, int* info);
template <typename T> void potri(char uplo, int n, T* a, int lda, int* info);
template <typename T> void sytrf(char uplo, int n, T* a, int lda, int* ipiv, int* info);
template <typename T> void sytrs(char uplo, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info);
template <typename T> void geqrf(int m, int n, T* a, int lda, T* tau, int* info);
template <typename T> void orgqr(int m, int n, int k, T* a, int lda, const T* tau, int* info);
template <typename T> void ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c, int ldc, int* info);
template <typename T> void syevd(char jobz, char uplo, int n, T* a, int lda, T* w, int* info);
// General eigenproblem: eigenvalues wr + i wi; right eigenvectors in vr (jobvr 'V'), a complex
// pair's vectors stored as the real and imaginary columns of the first of the two.
template <typename T> void geev(char jobvr, int n, T* a, int lda, T* wr, T* wi, T* vr, int ldvr, int* info);
template <typename T> void gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt, int* info);
template <typename T> void gels(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* info);
template <typename T> void gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T rcond, int* rank, int* info);
template <typename T> void gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, int* info);
template <typename T> void gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, int* info);
// BLAS: op(A) X = alpha B (side 'L') or X op(A) = alpha B (side 'R'), B overwritten by X.
template <typename T> void trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T* a, int lda, T* b, int ldb);

}  // namespace tl::native::lapack
