"""Registry entries: convolution (forward, transposed, backward operators), pooling, padding,
interpolation. The NumPy references loop over kernel taps, independently of the im2col kernels."""

from itertools import product

import numpy as np

from opinfo.core import OpInfo, SampleInput, rand


def _tup(v, nd):
    v = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    return v * nd if len(v) == 1 else v


# ---- NumPy references: everything as 2-d (1-d gets a height of 1) ------------------------------

def _as2d(x, nd):
    return x[:, :, None] if nd == 1 else x


def _np_conv2d(x, w, stride, padding, dilation, groups, out_size=None):
    """Forward convolution of batched 2-d x (N, C, H, W) with w (O, C/g, KH, KW)."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1 if out_size is None else out_size[0]
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1 if out_size is None else out_size[1]
    og = o // groups
    out = np.zeros((n, o, oh, ow), dtype=np.result_type(x, w))
    for g in range(groups):
        xg = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                win = xg[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, g * og:(g + 1) * og] += np.einsum("ncij,oc->noij", win, w[g * og:(g + 1) * og, :, i, j])
    return out


def _np_conv2d_adjoint_input(gy, w, in_size, stride, padding, dilation, groups):
    """The transpose of _np_conv2d in x: gy (N, O, OH, OW) -> (N, C, *in_size)."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, o, oh, ow = gy.shape
    _, cg, kh, kw = w.shape
    og = o // groups
    hf = max(in_size[0] + 2 * ph, dh * (kh - 1) + sh * (oh - 1) + 1)
    wf = max(in_size[1] + 2 * pw, dw * (kw - 1) + sw * (ow - 1) + 1)
    full = np.zeros((n, cg * groups, hf, wf), dtype=np.result_type(gy, w))
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                full[:, g * cg:(g + 1) * cg, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw] \
                    += np.einsum("noij,oc->ncij", gy[:, g * og:(g + 1) * og], w[g * og:(g + 1) * og, :, i, j])
    return full[:, :, ph:ph + in_size[0], pw:pw + in_size[1]]


def _np_conv2d_adjoint_weight(x, gy, w_size, stride, padding, dilation, groups):
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    o, cg, kh, kw = w_size
    _, _, oh, ow = gy.shape
    og = o // groups
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph + sh * oh + dh * kh), (pw, pw + sw * ow + dw * kw)))
    gw = np.zeros(tuple(w_size), dtype=np.result_type(x, gy))
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                win = xp[:, g * cg:(g + 1) * cg, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                gw[g * og:(g + 1) * og, :, i, j] = np.einsum("ncij,noij->oc", win, gy[:, g * og:(g + 1) * og])
    return gw


# ---- N-d references (the 3-d entries use them) ------------------------------------------------------

def _tap_slices(taps, dilation, stride, out_size):
    """For each spatial dim, the input positions one kernel tap meets at every output position."""
    return tuple(slice(t * d, t * d + s * (o - 1) + 1, s) for t, d, s, o in zip(taps, dilation, stride, out_size))


def _np_conv_nd(x, w, stride, padding, dilation, groups):
    """Forward convolution of batched x (N, C, *sp) with w (O, C/g, *k), any number of spatial dims."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out_size = [(x.shape[2 + i] + 2 * padding[i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1
                for i in range(nd)]
    o, cg = w.shape[:2]
    og = o // groups
    out = np.zeros((x.shape[0], o, *out_size), dtype=np.result_type(x, w))
    for g, taps in product(range(groups), product(*[range(k) for k in w.shape[2:]])):
        win = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + _tap_slices(taps, dilation, stride, out_size)]
        out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", win, w[(slice(g * og, (g + 1) * og), slice(None))
                                                                          + taps])
    return out


def _np_conv_nd_adjoint_input(gy, w, in_size, stride, padding, dilation, groups):
    """The transpose of _np_conv_nd in x: gy (N, O, *out) -> (N, C, *in_size)."""
    nd = gy.ndim - 2
    o, cg = w.shape[:2]
    og = o // groups
    out_size = gy.shape[2:]
    full_size = [max(in_size[i] + 2 * padding[i], dilation[i] * (w.shape[2 + i] - 1) + stride[i] * (out_size[i] - 1) + 1)
                 for i in range(nd)]
    full = np.zeros((gy.shape[0], cg * groups, *full_size), dtype=np.result_type(gy, w))
    for g, taps in product(range(groups), product(*[range(k) for k in w.shape[2:]])):
        full[(slice(None), slice(g * cg, (g + 1) * cg)) + _tap_slices(taps, dilation, stride, out_size)] += np.einsum(
            "no...,oc->nc...", gy[:, g * og:(g + 1) * og], w[(slice(g * og, (g + 1) * og), slice(None)) + taps])
    return full[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in zip(padding, in_size))]


def _np_conv_nd_adjoint_weight(x, gy, w_size, stride, padding, dilation, groups):
    o, cg = w_size[:2]
    og = o // groups
    out_size = gy.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p + s * n + d * k) for p, s, n, d, k in
                                       zip(padding, stride, out_size, dilation, w_size[2:])])
    gw = np.zeros(tuple(w_size), dtype=np.result_type(x, gy))
    for g, taps in product(range(groups), product(*[range(k) for k in w_size[2:]])):
        win = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + _tap_slices(taps, dilation, stride, out_size)]
        gyg = gy[:, g * og:(g + 1) * og]
        gw[(slice(g * og, (g + 1) * og), slice(None)) + taps] = np.einsum(
            "ncl,nol->oc", win.reshape(*win.shape[:2], -1), gyg.reshape(*gyg.shape[:2], -1))
    return gw


def _params2d(nd, *vals):
    return [(1, *_tup(v, 1)) if nd == 1 else _tup(v, 2) for v in vals]


def np_convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    nd = x.ndim - 2
    if nd == 3:
        s, p, d, op = (_tup(v, 3) for v in (stride, padding, dilation, output_padding))
        if not transposed:
            y = _np_conv_nd(x, w, s, p, d, groups)
        else:
            size = [(x.shape[2 + k] - 1) * s[k] - 2 * p[k] + d[k] * (w.shape[2 + k] - 1) + op[k] + 1 for k in range(3)]
            y = _np_conv_nd_adjoint_input(x, w, size, s, p, d, groups)
        return y if b is None else y + b.reshape(1, -1, 1, 1, 1)
    s, p, d, op = _params2d(nd, stride, padding, dilation, output_padding)
    if nd == 1:
        s, p, d, op = (1, s[-1]), (0, p[-1]), (1, d[-1]), (0, op[-1])
    x2, w2 = _as2d(x, nd), _as2d(w, nd)
    if not transposed:
        y = _np_conv2d(x2, w2, s, p, d, groups)
    else:
        size = [(x2.shape[2 + k] - 1) * s[k] - 2 * p[k] + d[k] * (w2.shape[2 + k] - 1) + op[k] + 1 for k in range(2)]
        cin, cog = w2.shape[:2]
        # a transposed convolution's weight (Cin, Cout/g, ...) is the forward weight of its adjoint
        y = _np_conv2d_adjoint_input(x2, w2, size, s, p, d, groups)
        assert y.shape[1] == cog * groups and cin == x2.shape[1]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y[:, :, 0] if nd == 1 else y


def _conv_wrapper_ref(nd, transposed):
    """Reference for conv1d/conv2d (transposed=False) and conv_transpose1d/2d."""
    names = ["output_padding", "groups", "dilation"] if transposed else ["dilation", "groups"]

    def ref(x, w, b=None, stride=1, padding=0, *rest, **kw):
        opts = {"output_padding": 0, "groups": 1, "dilation": 1, **dict(zip(names, rest)), **kw}
        unbatched = x.ndim == nd + 1
        x = x[None] if unbatched else x
        if padding == "valid":
            padding = 0
        elif padding == "same":  # PyTorch puts the odd element of the total padding at the end
            dil = _tup(opts["dilation"], nd)
            total = [dil[k] * (w.shape[2 + k] - 1) for k in range(nd)]
            x = np.pad(x, [(0, 0), (0, 0)] + [(t // 2, t - t // 2) for t in total])
            padding = 0
        y = np_convolution(x, w, b, stride, padding, opts["dilation"], transposed, opts["output_padding"],
                           opts["groups"])
        return y[0] if unbatched else y
    return ref


def np_conv_backward_input(gy, w, input_size, stride, padding, dilation, groups):
    nd = gy.ndim - 2
    if nd == 3:
        return _np_conv_nd_adjoint_input(gy, w, input_size[2:], *(_tup(v, 3) for v in (stride, padding, dilation)),
                                         groups)
    s, p, d = _params2d(nd, stride, padding, dilation)
    if nd == 1:
        s, p, d = (1, s[-1]), (0, p[-1]), (1, d[-1])
    size = (1, input_size[-1]) if nd == 1 else tuple(input_size[2:])
    gx = _np_conv2d_adjoint_input(_as2d(gy, nd), _as2d(w, nd), size, s, p, d, groups)
    return gx[:, :, 0] if nd == 1 else gx


def np_conv_backward_weight(gy, x, weight_size, stride, padding, dilation, groups):
    nd = gy.ndim - 2
    if nd == 3:
        return _np_conv_nd_adjoint_weight(x, gy, weight_size, *(_tup(v, 3) for v in (stride, padding, dilation)),
                                          groups)
    s, p, d = _params2d(nd, stride, padding, dilation)
    if nd == 1:
        s, p, d = (1, s[-1]), (0, p[-1]), (1, d[-1])
    wsize = (*weight_size[:2], 1, weight_size[-1]) if nd == 1 else tuple(weight_size)
    gw = _np_conv2d_adjoint_weight(_as2d(x, nd), _as2d(gy, nd), wsize, s, p, d, groups)
    return gw[:, :, 0] if nd == 1 else gw


# ---- samples --------------------------------------------------------------------------------------

def _convolution_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 5, 5), r(4, 3, 3, 3), r(4), [1, 1], [0, 0], [1, 1], False, [0, 0], 1))
    yield SampleInput((r(1, 4, 6, 5), r(6, 2, 2, 3), r(6), [2, 1], [1, 2], [2, 1], False, [0, 0], 2))
    yield SampleInput((r(2, 2, 7), r(3, 2, 3), None, [2], [1], [1], False, [0], 1))
    yield SampleInput((r(2, 4, 3, 3), r(4, 3, 3, 2), r(6), [2, 1], [1, 0], [1, 2], True, [1, 0], 2))
    yield SampleInput((r(1, 3, 4), r(3, 2, 3), r(2), [3], [1], [1], True, [2], 1))
    yield SampleInput((r(2, 3, 4, 4), r(5, 3, 1, 1), r(5), [1], [0], [1], False, [0], 1))  # pointwise
    yield SampleInput((r(2, 3, 4, 3), r(3, 2, 3, 2), r(6), [2, 1], [1, 0], [1, 1], True, [1, 0], 3))  # depthwise^T
    yield SampleInput((r(0, 3, 4, 4), r(5, 3, 2, 2), r(5), [1, 1], [0, 0], [1, 1], False, [0, 0], 1), grad=False)
    yield SampleInput((r(2, 2, 4, 3, 4), r(3, 2, 2, 2, 3), r(3), [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1))
    yield SampleInput((r(1, 4, 2, 3, 2), r(4, 1, 2, 2, 2), r(2), [2, 1, 1], [1, 0, 0], [1], True, [1, 0, 0], 2))
    # transposed without bias, several samples and groups, strided and dilated
    yield SampleInput((r(3, 4, 2, 3), r(4, 2, 2, 2), None, [2, 3], [0, 1], [2, 1], True, [1, 2], 2))


def _conv2d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 5, 5), r(4, 3, 3, 3), r(4)))
    yield SampleInput((r(1, 3, 6, 6), r(2, 3, 3, 3)), {"stride": 2, "padding": 1})
    yield SampleInput((r(1, 4, 7, 6), r(4, 2, 2, 3), None, (2, 1), (1, 2), 2, 2))
    yield SampleInput((r(3, 5, 5), r(2, 3, 3, 3), r(2)), {"padding": "same"})
    yield SampleInput((r(1, 2, 5, 6), r(2, 2, 2, 3), r(2)), {"padding": "same", "dilation": (1, 2)})
    yield SampleInput((r(1, 2, 4, 4), r(3, 2, 3, 3)), {"padding": "valid"})
    yield SampleInput((r(1, 4, 4, 4), r(4, 1, 3, 3), r(4)), {"groups": 4, "padding": 1})  # depthwise
    # depthwise with two filters per channel, strided and dilated
    yield SampleInput((r(2, 2, 5, 6), r(4, 1, 3, 2), r(4)), {"groups": 2, "stride": (2, 1), "dilation": (1, 2)})
    yield SampleInput((r(2, 3, 3, 3), r(2, 3, 3, 3), r(2)))  # kernel covers the input
    yield SampleInput((r(0, 3, 4, 4), r(2, 3, 3, 3), r(2)), grad=False)


def _conv3d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 4, 4, 4), r(2, 3, 3, 3, 3), r(2)))
    yield SampleInput((r(1, 2, 5, 4, 5), r(4, 2, 3, 2, 3)), {"stride": (2, 1, 2), "padding": 1})
    yield SampleInput((r(1, 4, 5, 4, 6), r(4, 2, 2, 2, 3), None, (1, 2, 1), (1, 0, 2), (2, 1, 1), 2))
    yield SampleInput((r(2, 4, 4, 4), r(2, 2, 3, 2, 2), r(2)), {"padding": "same"})  # unbatched
    yield SampleInput((r(1, 2, 4, 5, 3), r(2, 2, 2, 3, 2), r(2)), {"padding": "same", "dilation": (2, 1, 1)})
    yield SampleInput((r(1, 2, 3, 3, 3), r(3, 2, 2, 2, 2)), {"padding": "valid"})
    yield SampleInput((r(1, 3, 3, 4, 4), r(3, 1, 1, 3, 3), r(3)), {"groups": 3, "padding": (0, 1, 1)})  # depthwise
    yield SampleInput((r(2, 3, 2, 3, 3), r(5, 3, 1, 1, 1), r(5)))  # pointwise
    yield SampleInput((r(0, 3, 3, 3, 3), r(2, 3, 2, 2, 2), r(2)), grad=False)


def _conv_transpose3d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 2, 3, 3), r(3, 2, 3, 2, 3), r(2)))
    yield SampleInput((r(1, 4, 2, 3, 2), r(4, 3, 2, 3, 2), r(6)), {"stride": 2, "padding": 1, "output_padding": 1,
                                                                  "groups": 2})
    yield SampleInput((r(1, 2, 2, 2, 3), r(2, 2, 2, 2, 2)), {"stride": (2, 1, 2), "dilation": (1, 2, 1),
                                                            "output_padding": (1, 0, 1)})
    yield SampleInput((r(2, 3, 2, 3), r(2, 2, 2, 3, 2), r(2)))  # unbatched


def _conv1d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 7), r(4, 3, 3), r(4)))
    yield SampleInput((r(2, 4, 9), r(6, 2, 3)), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2})
    yield SampleInput((r(3, 6), r(2, 3, 2)), {"padding": "same"})
    yield SampleInput((r(1, 2, 5), r(2, 2, 1), r(2)))


def _conv_transpose2d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 3, 3), r(3, 2, 3, 3), r(2)))
    yield SampleInput((r(1, 4, 3, 2), r(4, 3, 3, 2), r(6)), {"stride": 2, "padding": 1, "output_padding": 1,
                                                            "groups": 2})
    yield SampleInput((r(1, 2, 3, 3), r(2, 2, 2, 2)), {"stride": (1, 2), "dilation": 2, "output_padding": (1, 0)})
    yield SampleInput((r(2, 3, 3), r(2, 2, 3, 3), r(2)))  # unbatched


def _conv_transpose1d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 4), r(3, 2, 3), r(2)))
    yield SampleInput((r(1, 4, 5), r(4, 1, 4)), {"stride": 3, "padding": 1, "output_padding": 2, "groups": 2})
    yield SampleInput((r(3, 4), r(3, 2, 2), r(2)), {"dilation": 2})


def _conv_backward_input_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 4, 3, 3), r(4, 3, 3, 3), [2, 3, 5, 5], [1, 1], [0, 0], [1, 1], 1))
    yield SampleInput((r(1, 6, 3, 4), r(6, 2, 2, 3), [1, 4, 6, 5], [2, 1], [1, 2], [2, 1], 2))
    yield SampleInput((r(2, 3, 4), r(3, 2, 3), [2, 2, 8], [2], [1], [1], 1))
    yield SampleInput((r(1, 4, 3, 3, 2), r(4, 1, 2, 2, 3), [1, 2, 4, 5, 4], [2, 1, 2], [1, 0, 1], [1, 2, 1], 2))
    # stride 3 over a dilated kernel: some input elements meet no tap
    yield SampleInput((r(3, 4, 3), r(4, 1, 2), [3, 2, 9], [3], [1], [2], 2))


def _conv_backward_weight_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 4, 3, 3), r(2, 3, 5, 5), [4, 3, 3, 3], [1, 1], [0, 0], [1, 1], 1))
    yield SampleInput((r(1, 6, 3, 4), r(1, 4, 6, 5), [6, 2, 2, 3], [2, 1], [1, 2], [2, 1], 2))
    yield SampleInput((r(2, 3, 4), r(2, 2, 8), [3, 2, 3], [2], [1], [1], 1))
    yield SampleInput((r(1, 4, 3, 3, 2), r(1, 2, 4, 5, 4), [4, 1, 2, 2, 3], [2, 1, 2], [1, 0, 1], [1, 2, 1], 2))
    yield SampleInput((r(3, 2, 3, 2), r(3, 3, 5, 4), [2, 3, 2, 2], [2, 2], [1, 1], [1, 2], 1))


OPS = [
    OpInfo("convolution", _convolution_samples, ref=np_convolution, atol=1e-4),
    OpInfo("convolution_backward_input", _conv_backward_input_samples, ref=np_conv_backward_input, torch=False,
           atol=1e-4),
    OpInfo("convolution_backward_weight", _conv_backward_weight_samples, ref=np_conv_backward_weight, torch=False,
           atol=1e-4),
    OpInfo("conv1d", _conv1d_samples, ref=_conv_wrapper_ref(1, False), atol=1e-4),
    OpInfo("conv2d", _conv2d_samples, ref=_conv_wrapper_ref(2, False), atol=1e-4),
    OpInfo("conv_transpose1d", _conv_transpose1d_samples, ref=_conv_wrapper_ref(1, True), atol=1e-4),
    OpInfo("conv_transpose2d", _conv_transpose2d_samples, ref=_conv_wrapper_ref(2, True), atol=1e-4),
    OpInfo("conv3d", _conv3d_samples, ref=_conv_wrapper_ref(3, False), atol=1e-4),
    OpInfo("conv_transpose3d", _conv_transpose3d_samples, ref=_conv_wrapper_ref(3, True), atol=1e-4),
]


# ---- pooling ----------------------------------------------------------------------------------------

def _pooled(n, k, p, s, d, ceil_mode):
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _pool_planes(x, nd):
    """x (..., [H,] W) as (planes, H, W)."""
    x = x[..., None, :] if nd == 1 else x
    return x.reshape(-1, *x.shape[-2:]), x.shape[:-2]


def np_max_pool(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, nd=2, indices=False):
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = [(1, *_tup(v, 1)) if nd == 1 else _tup(v, 2)
                                              for v in (kernel_size, stride or kernel_size, padding, dilation)]
    if nd == 1:
        ph, dh = 0, 1
    planes, lead = _pool_planes(x, nd)
    h, w = planes.shape[1:]
    oh, ow = _pooled(h, kh, ph, sh, dh, ceil_mode), _pooled(w, kw, pw, sw, dw, ceil_mode)
    out = np.empty((planes.shape[0], oh, ow), dtype=x.dtype)
    idx = np.empty((planes.shape[0], oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            rows = [r for r in range(i * sh - ph, i * sh - ph + dh * kh, dh) if 0 <= r < h]
            cols = [c for c in range(j * sw - pw, j * sw - pw + dw * kw, dw) if 0 <= c < w]
            flat = np.array([r * w + c for r in rows for c in cols])
            vals = planes.reshape(planes.shape[0], h * w)[:, flat]
            out[:, i, j] = vals.max(axis=1)
            idx[:, i, j] = flat[vals.argmax(axis=1)]
    shape = (*lead, ow) if nd == 1 else (*lead, oh, ow)
    return (out.reshape(shape), idx.reshape(shape)) if indices else out.reshape(shape)


def np_avg_pool(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None, nd=2):
    (kh, kw), (sh, sw), (ph, pw) = [(1, *_tup(v, 1)) if nd == 1 else _tup(v, 2)
                                    for v in (kernel_size, stride or kernel_size, padding)]
    if nd == 1:
        ph = 0
    planes, lead = _pool_planes(x, nd)
    h, w = planes.shape[1:]
    oh, ow = _pooled(h, kh, ph, sh, 1, ceil_mode), _pooled(w, kw, pw, sw, 1, ceil_mode)
    out = np.empty((planes.shape[0], oh, ow), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * sh - ph, j * sw - pw
            h1, w1 = min(h0 + kh, h + ph), min(w0 + kw, w + pw)
            padded = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            div = divisor_override or (padded if count_include_pad else (h1 - h0) * (w1 - w0))
            out[:, i, j] = planes[:, h0:h1, w0:w1].sum(axis=(1, 2)) / div
    return out.reshape((*lead, ow) if nd == 1 else (*lead, oh, ow))


def np_adaptive_pool(x, output_size, nd=2, kind="avg"):
    planes, lead = _pool_planes(x, nd)
    h, w = planes.shape[1:]
    oh, ow = (1, *_tup(output_size, 1)) if nd == 1 else _tup(output_size, 2)
    out = np.empty((planes.shape[0], oh, ow), dtype=x.dtype)
    idx = np.empty((planes.shape[0], oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            h0, h1 = i * h // oh, -(-(i + 1) * h // oh)
            w0, w1 = j * w // ow, -(-(j + 1) * w // ow)
            cell = planes[:, h0:h1, w0:w1].reshape(planes.shape[0], (h1 - h0) * (w1 - w0))
            if kind == "avg":
                out[:, i, j] = cell.mean(axis=1)
            else:
                k = cell.argmax(axis=1)
                out[:, i, j] = cell.max(axis=1)
                idx[:, i, j] = (h0 + k // (w1 - w0)) * w + w0 + k % (w1 - w0)
    shape = (*lead, ow) if nd == 1 else (*lead, oh, ow)
    return out.reshape(shape) if kind == "avg" else (out.reshape(shape), idx.reshape(shape))


def _window_cells(x, nd, kernel, stride, padding, dilation, ceil_mode):
    """Yields (output position, flat in-volume indices of the window's elements inside the input)
    over the last nd dims of x; and returns the output size first."""
    sp = x.shape[-nd:]
    out = [_pooled(n, k, p, s, d, ceil_mode) for n, k, p, s, d in zip(sp, kernel, padding, stride, dilation)]
    cells = []
    for o in product(*[range(n) for n in out]):
        axes = [[c for c in range(oi * s - p, oi * s - p + d * k, d) if 0 <= c < n]
                for oi, s, p, d, k, n in zip(o, stride, padding, dilation, kernel, sp)]
        cells.append((o, np.array([np.ravel_multi_index(c, sp) for c in product(*axes)], dtype=np.int64)))
    return out, cells


def np_max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, indices=False):
    k, s, p, d = (_tup(v, 3) for v in (kernel_size, stride or kernel_size, padding, dilation))
    out_size, cells = _window_cells(x, 3, k, s, p, d, ceil_mode)
    flat = x.reshape(-1, int(np.prod(x.shape[-3:])))
    out = np.empty((flat.shape[0], *out_size), dtype=x.dtype)
    idx = np.empty((flat.shape[0], *out_size), dtype=np.int64)
    for o, where in cells:
        vals = flat[:, where]
        out[(slice(None), *o)] = vals.max(axis=1)
        idx[(slice(None), *o)] = where[vals.argmax(axis=1)]
    shape = (*x.shape[:-3], *out_size)
    return (out.reshape(shape), idx.reshape(shape)) if indices else out.reshape(shape)


def np_avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                  divisor_override=None):
    k, s, p = (_tup(v, 3) for v in (kernel_size, stride or kernel_size, padding))
    sp = x.shape[-3:]
    out_size, cells = _window_cells(x, 3, k, s, p, (1, 1, 1), ceil_mode)
    flat = x.reshape(-1, int(np.prod(sp)))
    out = np.empty((flat.shape[0], *out_size), dtype=x.dtype)
    for o, where in cells:
        # the window clipped to the input plus its padding (count_include_pad's divisor)
        padded = np.prod([min(oi * si - pi + ki, n + pi) - (oi * si - pi) for oi, si, pi, ki, n in zip(o, s, p, k, sp)])
        div = divisor_override or (padded if count_include_pad else len(where))
        out[(slice(None), *o)] = flat[:, where].sum(axis=1) / div
    return out.reshape((*x.shape[:-3], *out_size))


def np_adaptive_pool3d(x, output_size, kind="avg"):
    sp = x.shape[-3:]
    out_size = [n if o is None else o for n, o in zip(sp, _tup(output_size, 3))]
    flat = x.reshape(-1, int(np.prod(sp)))
    out = np.empty((flat.shape[0], *out_size), dtype=x.dtype)
    idx = np.empty((flat.shape[0], *out_size), dtype=np.int64)
    for o in product(*[range(n) for n in out_size]):
        axes = [range(oi * n // m, -(-(oi + 1) * n // m)) for oi, n, m in zip(o, sp, out_size)]
        where = np.array([np.ravel_multi_index(c, sp) for c in product(*axes)], dtype=np.int64)
        vals = flat[:, where]
        if kind == "avg":
            out[(slice(None), *o)] = vals.mean(axis=1)
        else:
            out[(slice(None), *o)] = vals.max(axis=1)
            idx[(slice(None), *o)] = where[vals.argmax(axis=1)]
    shape = (*x.shape[:-3], *out_size)
    return out.reshape(shape) if kind == "avg" else (out.reshape(shape), idx.reshape(shape))


def _distinct(shape, dtype, rng):
    """Values far apart (ties would make max pooling's gradient ill-defined for finite differences)."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.37 - 3.0).astype(rand((1,), dtype).dtype)


def _max_pool2d_samples(dtype, rng):
    d = lambda *s: _distinct(s, dtype, rng)  # noqa: E731
    yield SampleInput((d(2, 3, 4, 4), 2))
    yield SampleInput((d(1, 2, 5, 5), 3), {"stride": 2, "padding": 1})
    yield SampleInput((d(1, 2, 7, 6), (3, 2)), {"stride": (2, 1), "dilation": (2, 1), "padding": (1, 1)})
    yield SampleInput((d(2, 5, 5), 2), {"ceil_mode": True})
    yield SampleInput((d(1, 1, 7, 7), 3), {"stride": 2, "padding": 1, "ceil_mode": True})
    yield SampleInput((d(0, 2, 4, 4), 2), grad=False)


def _max_pool3d_samples(dtype, rng):
    d = lambda *s: _distinct(s, dtype, rng)  # noqa: E731
    yield SampleInput((d(2, 2, 4, 4, 4), 2))
    yield SampleInput((d(1, 2, 5, 4, 5), 3), {"stride": 2, "padding": 1})
    yield SampleInput((d(1, 1, 5, 7, 6), (2, 3, 2)), {"stride": (1, 2, 1), "dilation": (2, 2, 1), "padding": (1, 1, 0)})
    yield SampleInput((d(2, 3, 5, 5), 2), {"ceil_mode": True})  # unbatched
    yield SampleInput((d(1, 1, 5, 5, 5), 3), {"stride": 2, "padding": 1, "ceil_mode": True})
    yield SampleInput((d(0, 2, 2, 4, 4), 2), grad=False)


def _max_pool1d_samples(dtype, rng):
    d = lambda *s: _distinct(s, dtype, rng)  # noqa: E731
    yield SampleInput((d(2, 3, 8), 2))
    yield SampleInput((d(1, 2, 9), 3), {"stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True})
    yield SampleInput((d(3, 7), 3), {"stride": 1})


def _avg_pool2d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 4, 4), 2))
    yield SampleInput((r(1, 2, 5, 5), 3), {"stride": 2, "padding": 1})
    yield SampleInput((r(1, 2, 5, 5), 3), {"stride": 2, "padding": 1, "count_include_pad": False})
    yield SampleInput((r(1, 2, 7, 6), (3, 2)), {"stride": (2, 1), "padding": (1, 1), "ceil_mode": True})
    yield SampleInput((r(1, 1, 6, 6), 3), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
    yield SampleInput((r(2, 5, 5), 2), {"divisor_override": 3})
    yield SampleInput((r(0, 2, 4, 4), 2), grad=False)


def _avg_pool3d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 2, 4, 4, 4), 2))
    yield SampleInput((r(1, 2, 5, 4, 5), 3), {"stride": 2, "padding": 1})
    yield SampleInput((r(1, 2, 5, 5, 4), 3), {"stride": (2, 1, 2), "padding": 1, "count_include_pad": False})
    yield SampleInput((r(1, 1, 5, 6, 5), (3, 2, 3)), {"stride": (2, 2, 1), "padding": (1, 1, 0), "ceil_mode": True})
    yield SampleInput((r(1, 1, 4, 4, 4), 3), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
    yield SampleInput((r(2, 3, 5, 4), 2), {"divisor_override": 3})  # unbatched
    yield SampleInput((r(0, 2, 2, 4, 4), 2), grad=False)


def _avg_pool1d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 8), 2))
    yield SampleInput((r(1, 2, 9), 3), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
    yield SampleInput((r(3, 7), 3), {"stride": 1, "padding": 1})


def _adaptive2d_samples(dtype, rng, distinct=False):
    r = (lambda *s: _distinct(s, dtype, rng)) if distinct else (lambda *s: rand(s, dtype, rng))
    yield SampleInput((r(2, 3, 5, 7), (2, 3)))
    yield SampleInput((r(1, 2, 4, 4), 1))
    yield SampleInput((r(2, 3, 3), (5, 4)))  # output larger than the input: overlapping cells
    yield SampleInput((r(1, 2, 6, 6), (3, 2)))


def _adaptive3d_samples(dtype, rng, distinct=False):
    r = (lambda *s: _distinct(s, dtype, rng)) if distinct else (lambda *s: rand(s, dtype, rng))
    yield SampleInput((r(2, 2, 5, 4, 7), (2, 3, 3)))
    yield SampleInput((r(1, 2, 3, 4, 4), 1))
    yield SampleInput((r(2, 2, 3, 3), (3, 5, 4)))  # unbatched; output larger than the input
    yield SampleInput((r(1, 2, 4, 6, 6), (None, 3, 2)))


def _adaptive1d_samples(dtype, rng, distinct=False):
    r = (lambda *s: _distinct(s, dtype, rng)) if distinct else (lambda *s: rand(s, dtype, rng))
    yield SampleInput((r(2, 3, 8), 3))
    yield SampleInput((r(3, 5), 5))
    yield SampleInput((r(1, 2, 3), 4))


def _gather_samples(dtype, rng):
    yield SampleInput((rand((2, 3, 4), dtype, rng), rng.integers(0, 12, size=(2, 2, 2))))
    yield SampleInput((rand((1, 2, 2), dtype, rng), np.array([[[0, 3, 3]]])))


def _scatter_samples(dtype, rng):
    yield SampleInput((rand((2, 2, 2), dtype, rng), rng.integers(0, 12, size=(2, 2, 2)), [2, 3, 4]))
    yield SampleInput((rand((1, 1, 3), dtype, rng), np.array([[[0, 3, 3]]]), [1, 2, 2]))


def np_gather(x, idx):
    flat = x.reshape(*x.shape[:-2], -1)
    return np.take_along_axis(flat, idx.reshape(*idx.shape[:-2], -1), axis=-1).reshape(idx.shape)


def np_scatter(g, idx, size):
    out = np.zeros((*size[:-2], size[-2] * size[-1]), dtype=g.dtype)
    lead = int(np.prod(size[:-2]))
    o2, i2, g2 = out.reshape(lead, -1), idx.reshape(lead, -1), g.reshape(lead, -1)
    for p in range(lead):
        np.add.at(o2[p], i2[p], g2[p])
    return out.reshape(size)


def _F(name):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k)


OPS += [
    OpInfo("max_pool2d", _max_pool2d_samples, ref=np_max_pool, op=_F("max_pool2d")),
    OpInfo("max_pool2d_with_indices", _max_pool2d_samples, op=_F("max_pool2d_with_indices"),
           ref=lambda *a, **k: np_max_pool(*a, **k, indices=True)),
    OpInfo("max_pool1d", _max_pool1d_samples, op=_F("max_pool1d"), ref=lambda *a, **k: np_max_pool(*a, **k, nd=1)),
    OpInfo("max_pool1d_with_indices", _max_pool1d_samples, op=_F("max_pool1d_with_indices"),
           ref=lambda *a, **k: np_max_pool(*a, **k, nd=1, indices=True)),
    OpInfo("avg_pool2d", _avg_pool2d_samples, op=_F("avg_pool2d"), ref=np_avg_pool, covers=("avg_pool2d_backward",)),
    OpInfo("avg_pool1d", _avg_pool1d_samples, op=_F("avg_pool1d"), ref=lambda *a, **k: np_avg_pool(*a, **k, nd=1)),
    OpInfo("adaptive_avg_pool2d", _adaptive2d_samples, op=_F("adaptive_avg_pool2d"), ref=np_adaptive_pool,
           covers=("_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward")),
    OpInfo("adaptive_avg_pool1d", _adaptive1d_samples, op=_F("adaptive_avg_pool1d"),
           ref=lambda x, o: np_adaptive_pool(x, o, nd=1)),
    OpInfo("adaptive_max_pool2d", lambda d, r: _adaptive2d_samples(d, r, True),
           op=lambda lib, x, o: lib.nn.functional.adaptive_max_pool2d(x, o, return_indices=True),
           ref=lambda x, o: np_adaptive_pool(x, o, kind="max")),
    OpInfo("adaptive_max_pool1d", lambda d, r: _adaptive1d_samples(d, r, True),
           op=lambda lib, x, o: lib.nn.functional.adaptive_max_pool1d(x, o, return_indices=True),
           ref=lambda x, o: np_adaptive_pool(x, o, nd=1, kind="max")),
    OpInfo("max_pool3d", _max_pool3d_samples, ref=np_max_pool3d, op=_F("max_pool3d")),
    OpInfo("max_pool3d_with_indices", _max_pool3d_samples, op=_F("max_pool3d_with_indices"),
           ref=lambda *a, **k: np_max_pool3d(*a, **k, indices=True)),
    OpInfo("avg_pool3d", _avg_pool3d_samples, op=_F("avg_pool3d"), ref=np_avg_pool3d,
           covers=("avg_pool3d_backward",)),
    OpInfo("adaptive_avg_pool3d", _adaptive3d_samples, op=_F("adaptive_avg_pool3d"), ref=np_adaptive_pool3d,
           covers=("_adaptive_avg_pool3d", "_adaptive_avg_pool3d_backward")),
    OpInfo("adaptive_max_pool3d", lambda d, r: _adaptive3d_samples(d, r, True),
           op=lambda lib, x, o: lib.nn.functional.adaptive_max_pool3d(x, o, return_indices=True),
           ref=lambda x, o: np_adaptive_pool3d(x, o, kind="max")),
    OpInfo("_max_pool_gather", _gather_samples, op=lambda lib, x, i: lib._C._max_pool_gather(x, i), ref=np_gather,
           torch=False),
    OpInfo("_max_pool_scatter", _scatter_samples, op=lambda lib, g, i, s: lib._C._max_pool_scatter(g, i, s),
           ref=np_scatter, torch=False),
]


# ---- padding --------------------------------------------------------------------------------------

def np_pad(x, pad, mode="constant", value=None):
    """F.pad: pad[2i], pad[2i+1] pad dimension -1-i; negative pads crop (first, as PyTorch's
    index maps come out the same for every mode)."""
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        d = x.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        x = np.take(x, np.arange(max(-before, 0), x.shape[d] - max(-after, 0)), axis=d)
        widths[d] = (max(before, 0), max(after, 0))
    if mode == "constant":
        return np.pad(x, widths, constant_values=value or 0)
    return np.pad(x, widths, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])


def _constant_pad_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 4), [1, 2]))
    yield SampleInput((r(2, 3, 4), [1, 0, 0, 2, 1, 1], 1.5))
    yield SampleInput((r(3, 5), [-1, 2, 1, -2]))  # negative pads crop
    yield SampleInput((r(3, 5), [-2, -3]), {"value": -1.0})
    yield SampleInput((r(4), [0, 0]))
    yield SampleInput((r(0, 3), [1, 1, 2, 0]), grad=False)
    yield SampleInput((r(2, 1, 3), [2, 1, 0, 1]))


def _pad1d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 5), [2, 1]))
    yield SampleInput((r(3, 4), [3, 3]))  # unbatched
    yield SampleInput((r(1, 2, 6), [-2, 3]))
    yield SampleInput((r(2, 1, 4), [0, -1]))
    yield SampleInput((r(0, 2, 4), [1, 1]), grad=False)


def _pad2d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 2, 3, 4), [1, 2, 2, 1]))
    yield SampleInput((r(2, 3, 3), [2, 0, 1, 2]))  # unbatched
    yield SampleInput((r(1, 1, 4, 5), [-1, 2, 1, -2]))
    yield SampleInput((r(1, 2, 1, 3), [1, 1, 0, 0]))
    yield SampleInput((r(0, 2, 3, 3), [1, 1, 1, 1]), grad=False)


def _pad3d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(1, 2, 3, 3, 4), [1, 2, 2, 1, 0, 2]))
    yield SampleInput((r(2, 3, 3, 4), [2, 0, 1, 2, 1, 1]))  # unbatched
    yield SampleInput((r(1, 1, 4, 3, 5), [-1, 2, 1, -1, 2, -1]))
    yield SampleInput((r(1, 2, 1, 2, 3), [1, 1, 0, 0, 0, 0]))
    yield SampleInput((r(0, 2, 3, 3, 3), [1, 1, 1, 1, 1, 1]), grad=False)


def _pad_circular_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 5), [2, 1]))
    yield SampleInput((r(2, 3, 4), [1, 2, 3, 0]))
    yield SampleInput((r(1, 2, 3, 4), [4, 4, -1, 1]))
    yield SampleInput((r(3, 4), [-2, 1]))
    yield SampleInput((r(1, 2, 3, 2, 4), [1, 2, 0, 1, 2, 1]))  # 3-d
    yield SampleInput((r(2, 3, 3, 4), [-1, 2, 1, 1, 1, 0]))  # 3-d unbatched


def _pad_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 4), (1, 2)))
    yield SampleInput((r(2, 3, 4), (1, 2, 0, 1)), {"value": 2.0})
    yield SampleInput((r(2, 3, 4), (-1, 2)), {"mode": "constant"})
    yield SampleInput((r(2, 3, 5), (2, 3)), {"mode": "reflect"})
    yield SampleInput((r(1, 2, 3, 4), (1, 2, 2, 1)), {"mode": "reflect"})
    yield SampleInput((r(2, 3, 5), (2, 3)), {"mode": "replicate"})
    yield SampleInput((r(2, 3, 4), (3, 1, 1, 2)), {"mode": "replicate"})
    yield SampleInput((r(2, 3, 5), (2, 3)), {"mode": "circular"})
    yield SampleInput((r(1, 2, 3, 4), (1, 2, 2, 1)), {"mode": "circular"})
    yield SampleInput((r(1, 2, 3, 2, 4), (1, 2, 0, 1, 2, 1)), {"mode": "circular"})
    yield SampleInput((r(1, 2, 3, 2, 4), (1, 2, 0, 1, 2, 1)), {"mode": "reflect"})
    yield SampleInput((r(2, 3, 2, 4), (1, 2, 0, 1, 2, 1)), {"mode": "replicate"})
    yield SampleInput((r(1, 2, 3, 2, 4), (1, 2, 0, 1, 2, 1)), {"value": -1.0})


def _nn(name):
    return lambda lib, *a, **k: getattr(lib._C._nn, name)(*a, **k)


def _pad_ref(mode):
    return lambda x, p: np_pad(x, p, mode)


OPS += [
    OpInfo("constant_pad_nd", _constant_pad_samples, ref=lambda x, p, value=0: np_pad(x, p, "constant", value)),
    OpInfo("reflection_pad1d", _pad1d_samples, op=_nn("reflection_pad1d"), ref=_pad_ref("reflect"),
           covers=("reflection_pad1d_backward",)),
    OpInfo("reflection_pad2d", _pad2d_samples, op=_nn("reflection_pad2d"), ref=_pad_ref("reflect"),
           covers=("reflection_pad2d_backward",)),
    OpInfo("replication_pad1d", _pad1d_samples, op=_nn("replication_pad1d"), ref=_pad_ref("replicate"),
           covers=("replication_pad1d_backward",)),
    OpInfo("replication_pad2d", _pad2d_samples, op=_nn("replication_pad2d"), ref=_pad_ref("replicate"),
           covers=("replication_pad2d_backward",)),
    OpInfo("reflection_pad3d", _pad3d_samples, op=_nn("reflection_pad3d"), ref=_pad_ref("reflect"),
           covers=("reflection_pad3d_backward",)),
    OpInfo("replication_pad3d", _pad3d_samples, op=_nn("replication_pad3d"), ref=_pad_ref("replicate"),
           covers=("replication_pad3d_backward",)),
    OpInfo("_pad_circular", _pad_circular_samples, op=_nn("_pad_circular"), ref=_pad_ref("circular")),
    OpInfo("pad", _pad_samples, op=_F("pad"), ref=np_pad),
]


# ---- max unpooling ---------------------------------------------------------------------------------

def _unpool_indices(lead, in_plane, out_plane, rng):
    """Distinct flat positions per plane (distinct so the gradient is well defined)."""
    planes = int(np.prod(lead))
    idx = np.stack([rng.permutation(out_plane)[:in_plane] for _ in range(planes)])
    return idx.reshape(planes, in_plane)


def _unpool_samples(nd):
    def samples(dtype, rng):
        shapes = {2: [((2, 3), (2, 3), (4, 5)), ((2,), (3, 2), (6, 4)), ((1, 1), (1, 1), (1, 1))],
                  3: [((2, 2), (2, 2, 3), (3, 4, 5)), ((3,), (1, 2, 2), (2, 3, 4))]}[nd]
        for lead, sp, out in shapes:
            x = rand((*lead, *sp), dtype, rng)
            idx = _unpool_indices(lead, int(np.prod(sp)), int(np.prod(out)), rng).reshape(x.shape)
            extra = ([2] * 3, [0] * 3) if nd == 3 else ()
            yield SampleInput((x, idx, list(out), *extra))
    return samples


def np_max_unpool(x, idx, output_size, *stride_padding):
    nd = len(output_size)
    lead = x.shape[:x.ndim - nd]
    out = np.zeros((int(np.prod(lead)), int(np.prod(output_size))), dtype=x.dtype)
    np.put_along_axis(out, idx.reshape(out.shape[0], -1), x.reshape(out.shape[0], -1), axis=1)
    return out.reshape(*lead, *output_size)


OPS += [
    OpInfo("max_unpool2d", _unpool_samples(2), op=_nn("max_unpool2d"), ref=np_max_unpool),
    OpInfo("max_unpool3d", _unpool_samples(3), op=_nn("max_unpool3d"), ref=np_max_unpool),
]


# ---- upsampling, pixel shuffle ---------------------------------------------------------------------

def _nearest_index(n_in, n_out, scale):
    ratio = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
    o = np.arange(n_out)
    if n_out == n_in:
        return o
    if n_out == 2 * n_in:
        return o >> 1
    return np.minimum(np.floor(o.astype(np.float32) * ratio).astype(np.int64), n_in - 1)


def np_upsample_nearest(x, output_size, scales_h=None, scales_w=None, scales=None):
    if x.ndim == 3:
        return x[..., _nearest_index(x.shape[-1], output_size[0], scales)]
    ih = _nearest_index(x.shape[-2], output_size[0], scales_h)
    return x[..., ih, :][..., _nearest_index(x.shape[-1], output_size[1], scales_w)]


def _linear_taps(n_in, n_out, align_corners, scale):
    o = np.arange(n_out, dtype=np.float64)
    if n_in == n_out:
        return o.astype(np.int64), o.astype(np.int64), np.zeros(n_out)
    if align_corners:
        src = o * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        ratio = 1.0 / scale if scale else n_in / n_out
        src = np.maximum(ratio * (o + 0.5) - 0.5, 0.0)
    i0 = np.minimum(src.astype(np.int64), n_in - 1)
    return i0, np.minimum(i0 + 1, n_in - 1), np.clip(src - i0, 0.0, 1.0)


def np_upsample_bilinear(x, output_size, align_corners, scales_h=None, scales_w=None):
    h0, h1, lh = _linear_taps(x.shape[-2], output_size[0], align_corners, scales_h)
    w0, w1, lw = _linear_taps(x.shape[-1], output_size[1], align_corners, scales_w)
    rows = x[..., h0, :] * (1 - lh)[:, None] + x[..., h1, :] * lh[:, None]
    return (rows[..., w0] * (1 - lw) + rows[..., w1] * lw).astype(x.dtype)


def _nearest1d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 4), [8]))
    yield SampleInput((r(1, 2, 5), [3]))
    yield SampleInput((r(1, 2, 3), [7]), {"scales": 2.5})
    yield SampleInput((r(2, 1, 4), [4]))
    yield SampleInput((r(0, 2, 4), [6]), grad=False)


def _nearest2d_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 3, 3, 4), [6, 8]))
    yield SampleInput((r(1, 2, 5, 4), [3, 7]))
    yield SampleInput((r(1, 2, 3, 4), [7, 9]), {"scales_h": 2.5, "scales_w": 2.3})
    yield SampleInput((r(1, 1, 1, 1), [2, 3]))
    yield SampleInput((r(0, 2, 3, 3), [6, 6]), grad=False)


def _bilinear_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 2, 3, 4), [5, 7], False))
    yield SampleInput((r(2, 2, 3, 4), [5, 7], True))
    yield SampleInput((r(1, 2, 5, 6), [2, 3], False))  # downsampling
    yield SampleInput((r(1, 2, 5, 6), [1, 4], True))  # a single output row
    yield SampleInput((r(1, 1, 3, 4), [3, 9], False))  # rows unchanged
    yield SampleInput((r(1, 2, 3, 4), [7, 9], False), {"scales_h": 2.5, "scales_w": 2.3})
    yield SampleInput((r(0, 2, 3, 3), [6, 6], False), grad=False)


def np_pixel_shuffle(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    y = np.moveaxis(y, [-5, -4, -3, -2, -1], [-5, -3, -1, -4, -2])
    return y.reshape(*lead, c // (r * r), h * r, w * r)


def np_pixel_unshuffle(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c, h // r, r, w // r, r)
    y = np.moveaxis(y, [-5, -4, -3, -2, -1], [-5, -2, -4, -1, -3])
    return y.reshape(*lead, c * r * r, h // r, w // r)


def _pixel_shuffle_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 8, 2, 3), 2))
    yield SampleInput((r(9, 2, 2), 3))
    yield SampleInput((r(2, 1, 4, 1, 2), 2))
    yield SampleInput((r(1, 3, 2, 2), 1))
    yield SampleInput((r(1, 4, 1, 1), 2))  # (no empty sample: PyTorch's backward mis-shapes it)


def _pixel_unshuffle_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 2, 4, 6), 2))
    yield SampleInput((r(1, 6, 3), 3))
    yield SampleInput((r(2, 1, 1, 2, 4), 2))
    yield SampleInput((r(1, 1, 1, 1), 1))


OPS += [
    OpInfo("upsample_nearest1d", _nearest1d_samples, op=_nn("upsample_nearest1d"), ref=np_upsample_nearest,
           covers=("upsample_nearest1d_backward",)),
    OpInfo("upsample_nearest2d", _nearest2d_samples, op=_nn("upsample_nearest2d"), ref=np_upsample_nearest,
           covers=("upsample_nearest2d_backward",)),
    OpInfo("upsample_bilinear2d", _bilinear_samples, op=_nn("upsample_bilinear2d"), ref=np_upsample_bilinear,
           covers=("upsample_bilinear2d_backward",), atol=1e-5),
    OpInfo("pixel_shuffle", _pixel_shuffle_samples, ref=np_pixel_shuffle),
    OpInfo("pixel_unshuffle", _pixel_unshuffle_samples, ref=np_pixel_unshuffle),
]
