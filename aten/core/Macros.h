#pragma once
// Portability macros shared by CPU and CUDA translation units.
#if defined(__CUDACC__)
#define TL_HOST_DEVICE __host__ __device__
#define TL_DEVICE __device__
#else
#define TL_HOST_DEVICE
#define TL_DEVICE
#endif

#if defined(__GNUC__)
#define TL_LIKELY(x) __builtin_expect(!!(x), 1)
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)
// A rarely taken path kept out of line: its callees are not inlined into it, nor it into callers.
#define TL_COLD __attribute__((noinline, cold))
#else
#define TL_LIKELY(x) (x)
#define TL_UNLIKELY(x) (x)
#define TL_COLD
#endif
