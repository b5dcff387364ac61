#pragma once
// Portability macros shared by CPU and CUDA translation units.
#if defined(__CUDACC__)
#define TL_HOST_DEVICE __host__ __device__
#define TL_DEVICE __device__
#else
#define TL_HOST_DEVICE
#define TL_DEVICE
#endif

// Note [Outlined device math]: a heavy scalar function (a series, a recurrence, a continued
// fraction) stays one out-of-line copy per CUDA kernel. Inlined, it was copied into each unrolled
// lane of the vectorized elementwise kernel and into the strided one: the special functions were
// about 45% of the stub shards' device code, and ptxas time follows code size. Per element the
// call costs little next to the function's own loop. CPU builds inline as before.
#if defined(__CUDACC__)
#define TL_DEVICE_OUTLINED __noinline__
#else
#define TL_DEVICE_OUTLINED
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
