"""Zoo: programs from the eighteenth bug hunt, aimed at convolutions and
the layers around them as JAX and Flax-style code writes them.

lax.conv_general_dilated in every dimension order (NHWC/HWIO,
NCHW/OIHW, NWC/WIO, NDHWC/DHWIO, and mixed or unusual orders such as
('NHWC', 'OIHW', 'NCHW') and ('CNHW', 'IOHW', 'HWNC')), feature groups
(depthwise with channel multipliers 1 and 2, ResNeXt groups), batch
groups written directly, strides past the window, SAME/VALID/explicit
asymmetric and negative padding, lhs (base) and rhs (window) dilation
together, windows larger than the input, 1-D, 2-D and 3-D;
lax.conv_transpose with and without transpose_kernel;
conv_general_dilated_patches and conv_general_dilated_local. Layers:
MobileNet depthwise-separable blocks, ConvNeXt blocks (7x7 depthwise,
layer norm, MLP, layer scale), ResNeXt grouped bottlenecks, a U-Net
down/up step, sub-pixel (pixel shuffle) upsampling, a WaveNet/TCN stack
of causal dilated convolutions, ConvLSTM cells in lax.scan, batch and
group norm around convolutions, max/avg pooling with padding (and their
gradients: select-and-scatter and pad/reduce-window), vmapped
convolutions over per-example filters and over a non-leading axis.
Gradients w.r.t. inputs and filters (the filter gradients of grouped and
depthwise convolutions are batch-group convolutions), jvps and a
gradient penalty (grad of grad). Types: f32, f64, bf16 and f16 (with
f32 accumulation through preferred_element_type), int8 into int32, and
complex64. Past the CPU backend's parallel split (conv_medium_parallel),
convolutions without spatial dimensions ('NC', 'OI', 'NC': a grouped
matmul) and reduce-window over a scalar, zero-size outputs, pooling with
inits that are not the reducer's identity, argmax pooling (a variadic
reduce-window), max pooling over NaN and -inf, integer and f16 pooling,
DeepLab's ASPP (dilations past the input), a Conformer convolution
module, BlurPool's constant filter, Inception with squeeze-and-excitation,
quantization-aware training (fake quantization, int8 into int32,
requantization), spectral normalization, dropout and stochastic depth;
bf16 pooling and its gradients, pooling by a reducer that is no monoid
(log-sum-exp), cumulative sums written as reduce_window, int8 and u8
accumulated into f32 and int16, f16 and bf16 into f64, depthwise f64 and
complex128 transposed convolutions, convolutions in switch/cond branches
and a data-dependent while loop, heads with one to three output features
(the CPU's transposed GEMM walk), a filter Hessian (the tangent basis as
groups), vmap of vmap, circular padding and resize-then-conv decoders.

One bug found: XLA's text and protos omit an empty window, and hloc's IR
keeps that form, but the evaluator (convolution, reduce-window,
select-and-scatter), the CPU convolution and select-and-scatter kernels
and the elemental reduce-window and convolution generators refused an
instruction without a window, where shape inference read it as empty:
conv_general_dilated with dimension_numbers ('NC', 'OI', 'NC'), grouped
by features or batches, and lax.reduce_window of a scalar failed on every
target (conv_no_spatial_dims, windows_over_scalars). They now read an
absent window as the empty one (tests: hlo/evaluator ConvolutionTest.
NoSpatialDimensionsHasNoWindow, ReduceWindowTest.ScalarOperandHasNoWindow;
tests/lit/runtime/windows_without_dimensions.hlo, x86 and AArch64 with no
fallback).

XLA's, seen and reshaped around: whether a zero of the padding times an
infinite filter tap gives NaN depends on XLA:CPU's choice of kernel: its
Eigen convolutions (f32, f16 and bf16, dense, grouped and depthwise, any
dimension order) multiply the padding's zeros (0 * -inf = NaN), its own
loops (f64, lhs dilation) skip them, as XLA's HloEvaluator and hloc's
evaluator do, and hloc's cpu multiplies them in its GEMM kernels and
skips them in its depthwise loop; conv_nan_inf_inputs keeps its -inf on
the window's centre tap, which never reads padding. The gradient of
lax.reduce_window over a scalar (a select-and-scatter with an empty
window) aborts XLA:CPU's SelectAndScatterExpander, so
windows_over_scalars leaves it out (the lit test above runs it). XLA
folds (a * c1) / c2 into a * (c1 / c2), which moved a requantized
product off an exact .5 (round(-0.50000006) is -1 in IEEE, XLA:CPU gave
0): qat_fake_quant_conv's scales are powers of two.
"""

import jax
import jax.numpy as jnp
import jax.scipy.signal as jss
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints, prng_key

_HI = lax.Precision.HIGHEST


def _conv(x, w, strides=None, padding="SAME", dn=("NHWC", "HWIO", "NHWC"),
          groups=1, lhs_dil=None, rhs_dil=None, batch_groups=1, pet=None):
    nsp = len(dn[0]) - 2
    return lax.conv_general_dilated(
        x, w, strides or (1,) * nsp, padding, lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil, dimension_numbers=dn,
        feature_group_count=groups, batch_group_count=batch_groups,
        precision=_HI, preferred_element_type=pet)


def _bf16(r, shape, scale=1.0):
    return (floats(r, shape) * scale).astype(jnp.bfloat16)


def _f16(r, shape, scale=1.0):
    return (floats(r, shape) * scale).astype(np.float16)


def _ln(x, g, b, eps=1e-6):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.mean(jnp.square(x - m), -1, keepdims=True)
    return (x - m) * lax.rsqrt(v + eps) * g + b


# --- dimension orders ---------------------------------------------------

def conv_nhwc_even_kernel_strides(x, w):
    # SAME with an even window and a stride pads asymmetrically.
    return (_conv(x, w, (2, 2), "SAME"), _conv(x, w, (2, 3), "VALID"),
            _conv(x, w, (3, 1), "SAME"), _conv(x, w, (1, 1), "SAME"))


def conv_nchw_explicit_asymmetric(x, w):
    dn = ("NCHW", "OIHW", "NCHW")
    return (_conv(x, w, (1, 1), ((1, 2), (0, 3)), dn),
            _conv(x, w, (2, 1), ((3, 0), (2, 2)), dn),
            _conv(x, w, (1, 2), ((0, 0), (4, 1)), dn))


def conv_mixed_orders(x, w):
    # The same convolution in six dimension orders, each given its own
    # transposed operands: every result must agree with XLA's.
    outs = []
    specs = [("NHWC", "HWIO", "NHWC"), ("NHWC", "OIHW", "NCHW"),
             ("NCHW", "HWIO", "NHWC"), ("CNHW", "IOHW", "HWNC"),
             ("HWCN", "OHWI", "CHWN"), ("NWHC", "WHIO", "NCWH")]
    for lhs, rhs, out in specs:
        xp = jnp.transpose(x, ["NHWC".index(c) for c in lhs])
        wp = jnp.transpose(w, ["HWIO".index(c) for c in rhs])
        outs.append(_conv(xp, wp, (2, 1), ((1, 0), (2, 1)),
                          (lhs, rhs, out)))
    return tuple(outs)


def conv1d_nwc_causal_dilated(x, w, w2):
    dn = ("NWC", "WIO", "NWC")
    k = w.shape[0]
    y1 = _conv(x, w, (1,), [((k - 1) * 3, 0)], dn, rhs_dil=(3,))
    y2 = _conv(x, w, (2,), "SAME", dn, rhs_dil=(2,))
    y3 = _conv(x, w2, (1,), "VALID", ("NCW", "OIW", "NCW"))
    y4 = _conv(jnp.swapaxes(x, 1, 2), jnp.transpose(w, (2, 1, 0)), (3,),
               [(-1, -2)],
               ("NCW", "OIW", "NWC"))
    return y1, y2, y3, y4


def conv_negative_and_mixed_padding(x, w):
    dn = ("NHWC", "HWIO", "NHWC")
    return (_conv(x, w, (1, 1), ((-1, -2), (0, -1)), dn),
            _conv(x, w, (2, 2), ((-2, 3), (3, -1)), dn),
            _conv(x, w, (1, 1), ((-1, 0), (-2, 0)), dn, lhs_dil=(2, 2)),
            _conv(x, w, (1, 2), ((2, -1), (-1, 2)), dn, rhs_dil=(2, 1)))


def conv3d_every_order(x, w, wg):
    y1 = _conv(x, w, (1, 2, 2), "SAME", ("NDHWC", "DHWIO", "NDHWC"))
    xc = jnp.moveaxis(x, -1, 1)
    y2 = _conv(xc, jnp.transpose(w, (4, 3, 0, 1, 2)), (2, 1, 1),
               ((1, 0), (0, 1), (1, 1)), ("NCDHW", "OIDHW", "NCDHW"))
    y3 = _conv(x, wg, (1, 1, 2), "VALID", ("NDHWC", "DHWIO", "NCDHW"),
               groups=2, rhs_dil=(1, 2, 1))
    return y1, y2, y3


def conv_window_past_input(x, w):
    # Windows larger than the input (padding makes room) and strides
    # larger than the window (inputs skipped).
    return (_conv(x, w, (1, 1), ((4, 4), (3, 5))),
            _conv(x, w, (5, 4), "SAME"),
            _conv(x, w[:2, :2], (3, 3), "VALID"),
            _conv(x[:, :2, :3], w, (1, 1), "SAME"))


def conv_lhs_rhs_dilation_together(x, w):
    dn = ("NHWC", "HWIO", "NHWC")
    return (_conv(x, w, (1, 1), ((2, 2), (1, 1)), dn, lhs_dil=(2, 3),
                  rhs_dil=(2, 1)),
            _conv(x, w, (2, 3), ((0, 1), (3, 2)), dn, lhs_dil=(3, 2),
                  rhs_dil=(1, 2)),
            _conv(x, w, (1, 1), ((0, 0), (0, 0)), dn, lhs_dil=(2, 2)))


def conv_pointwise_and_strided_1x1(x, w):
    return (_conv(x, w, (1, 1), "VALID"), _conv(x, w, (2, 2), "VALID"),
            _conv(x, w, (2, 2), ((1, 0), (0, 1))),
            jnp.einsum("nhwc,co->nhwo", x, w[0, 0], precision=_HI))


# --- groups ---------------------------------------------------------------

def depthwise_multiplier_one_and_two(x, w1, w2):
    c = x.shape[-1]
    y1 = _conv(x, w1, (1, 1), "SAME", groups=c)
    y2 = _conv(x, w2, (2, 2), "SAME", groups=c)
    xc = jnp.moveaxis(x, -1, 1)
    y3 = _conv(xc, jnp.transpose(w2, (3, 2, 0, 1)), (1, 1),
               ((1, 1), (2, 0)), ("NCHW", "OIHW", "NCHW"), groups=c,
               rhs_dil=(2, 2))
    return y1, y2, y3


def grouped_conv_every_count(x, w2, w4, w8):
    return (_conv(x, w2, (1, 1), "SAME", groups=2),
            _conv(x, w4, (2, 2), "SAME", groups=4),
            _conv(x, w8, (1, 1), "VALID", groups=8, rhs_dil=(1, 2)))


def batch_group_conv_direct(x, w, x1, w1):
    # batch_group_count written by hand: the output feature dimension is
    # split into groups, each reading its own slice of the batch.
    y = _conv(x, w, (1, 1), "VALID", batch_groups=2)
    z = _conv(x, w, (2, 1), ((1, 0), (1, 1)), ("NHWC", "HWIO", "NCHW"),
              batch_groups=2)
    y1 = _conv(x1, w1, (1,), "SAME", ("NWC", "WIO", "NWC"), batch_groups=4)
    return y, z, y1


def grouped_and_depthwise_grads(x, wg, wd):
    def loss(x, wg, wd):
        y = _conv(x, wg, (1, 1), "SAME", groups=4)
        z = _conv(jax.nn.relu(y), wd, (2, 2), "SAME", groups=8)
        return jnp.sum(jnp.tanh(z) * jnp.arange(z.size).reshape(z.shape)
                       / z.size)
    return jax.grad(loss, argnums=(0, 1, 2))(x, wg, wd)


def depthwise_multiplier_grad_nchw(x, w):
    dn = ("NCHW", "OIHW", "NCHW")

    def loss(x, w):
        y = _conv(x, w, (2, 1), ((1, 2), (1, 1)), dn, groups=x.shape[1],
                  rhs_dil=(1, 2))
        return jnp.sum(jnp.sin(y))
    return jax.grad(loss, argnums=(0, 1))(x, w)


# --- transposed convolutions ----------------------------------------------

def conv_transpose_every_padding(x, w, wt):
    return (lax.conv_transpose(x, w, (2, 2), "SAME", precision=_HI),
            lax.conv_transpose(x, w, (2, 2), "VALID", precision=_HI),
            lax.conv_transpose(x, w, (3, 2), ((1, 2), (0, 1)),
                               precision=_HI),
            lax.conv_transpose(x, wt, (2, 2), "SAME", transpose_kernel=True,
                               precision=_HI),
            lax.conv_transpose(x, w, (1, 1), "SAME", rhs_dilation=(2, 2),
                               precision=_HI))


def conv_transpose_1d_3d(x1, w1, x3, w3):
    return (lax.conv_transpose(x1, w1, (3,), "SAME",
                               dimension_numbers=("NWC", "WIO", "NWC"),
                               precision=_HI),
            lax.conv_transpose(x1, w1, (2,), [(2, 1)],
                               dimension_numbers=("NWC", "WIO", "NWC"),
                               precision=_HI),
            lax.conv_transpose(x3, w3, (2, 1, 2), "SAME",
                               dimension_numbers=("NDHWC", "DHWIO", "NDHWC"),
                               precision=_HI))


def conv_transpose_grads(x, w):
    def loss(x, w):
        y = lax.conv_transpose(x, w, (2, 2), "SAME", precision=_HI)
        z = lax.conv_transpose(y, w[:, :, :2, :], (2, 1),
                               ((1, 1), (0, 2)), transpose_kernel=True,
                               precision=_HI)
        return jnp.sum(jnp.cos(z)) + jnp.sum(y * y)
    return jax.grad(loss, argnums=(0, 1))(x, w)


# --- layers and blocks ---------------------------------------------------

def _bn_infer(x, p):
    return (x - p["mean"]) * lax.rsqrt(p["var"] + 1e-5) * p["g"] + p["b"]


def mobilenet_v2_block(p, x):
    h = _conv(x, p["expand"], (1, 1), "VALID")
    h = jnp.clip(_bn_infer(h, p["bn1"]), 0, 6)
    h = _conv(h, p["dw"], (1, 1), "SAME", groups=h.shape[-1])
    h = jnp.clip(_bn_infer(h, p["bn2"]), 0, 6)
    h = _conv(h, p["project"], (1, 1), "VALID")
    return x + _bn_infer(h, p["bn3"])


def _bn_params(r, c):
    return {"mean": floats(r, (c,)) * 0.1, "var": r.uniform(0.5, 2, c)
            .astype(np.float32), "g": 1 + 0.1 * floats(r, (c,)),
            "b": 0.1 * floats(r, (c,))}


def _mobilenet_inputs(r):
    c, e = 8, 24
    p = {"expand": floats(r, (1, 1, c, e)) * 0.3,
         "dw": floats(r, (3, 3, 1, e)) * 0.3,
         "project": floats(r, (1, 1, e, c)) * 0.2,
         "bn1": _bn_params(r, e), "bn2": _bn_params(r, e),
         "bn3": _bn_params(r, c)}
    return [p, floats(r, (2, 8, 8, c))]


def mobilenet_v2_block_grad(p, x):
    def loss(p, x):
        return jnp.mean(jnp.square(mobilenet_v2_block(p, x)))
    return mobilenet_v2_block(p, x), jax.grad(loss, argnums=(0, 1))(p, x)


def mobilenet_v1_strided_bf16(p, x):
    # Depthwise stride 2, then pointwise, in bf16, as a mixed-precision
    # policy runs it.
    p = jax.tree_util.tree_map(lambda a: a.astype(jnp.bfloat16), p)
    h = _conv(x.astype(jnp.bfloat16), p["dw"], (2, 2), "SAME",
              groups=x.shape[-1])
    h = jax.nn.relu6(h)
    h = _conv(h, p["pw"], (1, 1), "VALID")
    return jax.nn.relu6(h).astype(jnp.float32)


def _mobilenet_v1_inputs(r):
    return [{"dw": floats(r, (3, 3, 1, 8)) * 0.4,
             "pw": floats(r, (1, 1, 8, 16)) * 0.3}, floats(r, (2, 10, 10, 8))]


def convnext_block(p, x):
    c = x.shape[-1]
    h = _conv(x, p["dw"], (1, 1), ((3, 3), (3, 3)), groups=c) + p["dw_b"]
    h = _ln(h, p["ln_g"], p["ln_b"])
    h = jnp.dot(h, p["w1"], precision=_HI) + p["b1"]
    h = jax.nn.gelu(h, approximate=False)
    h = jnp.dot(h, p["w2"], precision=_HI) + p["b2"]
    return x + p["gamma"] * h


def _convnext_inputs(r):
    c = 8
    return [{"dw": floats(r, (7, 7, 1, c)) * 0.2, "dw_b": floats(r, (c,)),
             "ln_g": 1 + 0.1 * floats(r, (c,)), "ln_b": floats(r, (c,)) * 0.1,
             "w1": floats(r, (c, 4 * c)) * 0.3, "b1": floats(r, (4 * c,)),
             "w2": floats(r, (4 * c, c)) * 0.2, "b2": floats(r, (c,)),
             "gamma": np.full((c,), 0.5, np.float32)},
            floats(r, (2, 9, 9, c))]


def convnext_block_grad(p, x):
    def loss(p, x):
        y = convnext_block(p, x)
        return jnp.mean(y * jnp.tanh(y))
    return convnext_block(p, x), jax.grad(loss, argnums=(0, 1))(p, x)


def convnext_downsample_stem_nchw(p, x):
    # ConvNeXt's stem (4x4 stride 4 "patchify") and a downsampling layer
    # (layer norm, 2x2 stride 2), written channels first.
    dn = ("NCHW", "OIHW", "NCHW")
    h = _conv(x, p["stem"], (4, 4), "VALID", dn)
    h = jnp.moveaxis(_ln(jnp.moveaxis(h, 1, -1), p["g"], p["b"]), -1, 1)
    h = _conv(h, p["down"], (2, 2), "VALID", dn)
    return h, jax.grad(lambda q: jnp.sum(jnp.square(
        _conv(x, q, (4, 4), "VALID", dn))))(p["stem"])


def resnext_bottleneck(p, x):
    h = jax.nn.relu(_conv(x, p["w1"], (1, 1), "VALID"))
    h = jax.nn.relu(_conv(h, p["w2"], (2, 2), "SAME", groups=4))
    h = _conv(h, p["w3"], (1, 1), "VALID")
    sc = _conv(x, p["ws"], (2, 2), "VALID")
    return jax.nn.relu(h + sc)


def _resnext_inputs(r):
    return [{"w1": floats(r, (1, 1, 8, 16)) * 0.3,
             "w2": floats(r, (3, 3, 4, 16)) * 0.3,
             "w3": floats(r, (1, 1, 16, 12)) * 0.3,
             "ws": floats(r, (1, 1, 8, 12)) * 0.3},
            floats(r, (2, 8, 8, 8))]


def resnext_bottleneck_grad(p, x):
    def loss(p, x):
        return jnp.sum(jnp.square(resnext_bottleneck(p, x))) / x.shape[0]
    return resnext_bottleneck(p, x), jax.grad(loss, argnums=(0, 1))(p, x)


def unet_down_up(p, x):
    def block(h, w1, w2):
        h = jax.nn.relu(_conv(h, w1))
        return jax.nn.relu(_conv(h, w2))
    e1 = block(x, p["e1a"], p["e1b"])
    d = lax.reduce_window(e1, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                          "VALID")
    m = block(d, p["ma"], p["mb"])
    u = lax.conv_transpose(m, p["up"], (2, 2), "SAME", precision=_HI)
    out = _conv(jnp.concatenate([u, e1], -1), p["out"], (1, 1), "VALID")
    return out


def _unet_inputs(r):
    return [{"e1a": floats(r, (3, 3, 3, 8)) * 0.3,
             "e1b": floats(r, (3, 3, 8, 8)) * 0.2,
             "ma": floats(r, (3, 3, 8, 16)) * 0.2,
             "mb": floats(r, (3, 3, 16, 16)) * 0.15,
             "up": floats(r, (2, 2, 16, 8)) * 0.2,
             "out": floats(r, (1, 1, 16, 2)) * 0.3},
            floats(r, (2, 8, 8, 3))]


def unet_down_up_grad(p, x):
    return unet_down_up(p, x), jax.grad(
        lambda p: jnp.mean(jnp.square(unet_down_up(p, x))))(p)


def pixel_shuffle_upsample(x, w):
    # ESPCN: conv to r*r*C channels, then depth-to-space.
    y = _conv(x, w, (1, 1), "SAME")
    n, h, wd, c = y.shape
    r = 2
    y = y.reshape(n, h, wd, r, r, c // 4).transpose(0, 1, 3, 2, 4, 5)
    y = y.reshape(n, h * r, wd * r, c // 4)
    g = jax.grad(lambda w: jnp.sum(jnp.sin(_conv(x, w, (1, 1), "SAME"))))(w)
    return y, g


def wavenet_stack(p, x):
    # Gated causal dilated convolutions (NWC), residual and skip outputs.
    skips = 0.0
    h = x
    for i, d in enumerate((1, 2, 4)):
        w = p["filt"][i]
        g = p["gate"][i]
        pad = [((w.shape[0] - 1) * d, 0)]
        f = _conv(h, w, (1,), pad, ("NWC", "WIO", "NWC"), rhs_dil=(d,))
        s = _conv(h, g, (1,), pad, ("NWC", "WIO", "NWC"), rhs_dil=(d,))
        z = jnp.tanh(f) * jax.nn.sigmoid(s)
        out = _conv(z, p["res"][i], (1,), "VALID", ("NWC", "WIO", "NWC"))
        h = h + out
        skips = skips + out
    return h, skips


def _wavenet_inputs(r):
    c = 6
    return [{"filt": [floats(r, (2, c, c)) * 0.4 for _ in range(3)],
             "gate": [floats(r, (2, c, c)) * 0.4 for _ in range(3)],
             "res": [floats(r, (1, c, c)) * 0.3 for _ in range(3)]},
            floats(r, (2, 16, c))]


def wavenet_stack_grad(p, x):
    def loss(p, x):
        h, s = wavenet_stack(p, x)
        return jnp.mean(h * s)
    return wavenet_stack(p, x), jax.grad(loss, argnums=(0, 1))(p, x)


def conv_lstm_scan(p, xs):
    # ConvLSTM over time in lax.scan: the gates are one conv of [x, h].
    def cell(carry, x):
        h, c = carry
        z = _conv(jnp.concatenate([x, h], -1), p["w"]) + p["b"]
        i, f, o, g = jnp.split(z, 4, -1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h.mean((1, 2))
    n, _, hh, ww, _ = xs.shape
    hc = p["w"].shape[-1] // 4
    init = (jnp.zeros((n, hh, ww, hc), xs.dtype),
            jnp.zeros((n, hh, ww, hc), xs.dtype))
    (h, c), ys = lax.scan(cell, init, jnp.swapaxes(xs, 0, 1))
    return h, c, ys


def _conv_lstm_inputs(r):
    return [{"w": floats(r, (3, 3, 3 + 4, 16)) * 0.2, "b": floats(r, (16,))},
            floats(r, (2, 4, 6, 6, 3))]


def conv_lstm_scan_grad(p, xs):
    def loss(p):
        h, c, ys = conv_lstm_scan(p, xs)
        return jnp.sum(h) + jnp.sum(ys * ys)
    return conv_lstm_scan(p, xs), jax.grad(loss)(p)


def conv_in_fori_loop_diffusion(x, w):
    # A repeated stencil (a learned diffusion step) in fori_loop, the
    # filter shared and depthwise, reflect-padded each step.
    c = x.shape[-1]

    def step(_, h):
        hp = jnp.pad(h, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
        return h + 0.1 * _conv(hp, w, (1, 1), "VALID", groups=c)
    return lax.fori_loop(0, 5, step, x)


# --- normalization around convolutions -----------------------------------

def conv_batchnorm_train_grad(w, g, b, x):
    def loss(w, g, b, x):
        y = _conv(x, w, (1, 1), "SAME")
        m = jnp.mean(y, (0, 1, 2))
        v = jnp.var(y, (0, 1, 2))
        y = (y - m) * lax.rsqrt(v + 1e-5) * g + b
        return jnp.mean(jax.nn.relu(y) ** 2), (m, v)
    (val, (m, v)), grads = jax.value_and_grad(
        loss, argnums=(0, 1, 2, 3), has_aux=True)(w, g, b, x)
    return val, m, v, grads


def conv_groupnorm_nchw_grad(w, g, b, x):
    def gn(y, groups=4):
        n, c, h, wd = y.shape
        yg = y.reshape(n, groups, c // groups, h, wd)
        m = yg.mean((2, 3, 4), keepdims=True)
        v = yg.var((2, 3, 4), keepdims=True)
        yg = (yg - m) * lax.rsqrt(v + 1e-5)
        return yg.reshape(n, c, h, wd) * g[:, None, None] + b[:, None, None]

    def f(w, x):
        y = _conv(x, w, (1, 1), "SAME", ("NCHW", "OIHW", "NCHW"))
        return jax.nn.silu(gn(y))
    y = f(w, x)
    gw, gx = jax.grad(lambda w, x: jnp.sum(f(w, x) * y), argnums=(0, 1))(w, x)
    return y, gw, gx


def weight_standardized_conv(w, x):
    # BiT's weight standardization: the filter normalized per output
    # channel before the conv, differentiated through.
    def ws(w):
        m = jnp.mean(w, (0, 1, 2), keepdims=True)
        v = jnp.var(w, (0, 1, 2), keepdims=True)
        return (w - m) * lax.rsqrt(v + 1e-10)

    def loss(w, x):
        return jnp.mean(jnp.square(_conv(x, ws(w), (2, 2), "SAME")))
    return _conv(x, ws(w), (1, 1), "SAME"), jax.grad(loss, (0, 1))(w, x)


# --- pooling ----------------------------------------------------------------

def _pad4(padding):
    if isinstance(padding, str):
        return padding
    return ((0, 0),) + tuple(padding) + ((0, 0),)


def _max_pool(x, window, strides, padding):
    padding = _pad4(padding)
    return lax.reduce_window(x, -jnp.inf, lax.max, (1,) + window + (1,),
                             (1,) + strides + (1,), padding)


def _avg_pool(x, window, strides, padding, count_include_pad=True):
    padding = _pad4(padding)
    dims = (1,) + window + (1,)
    st = (1,) + strides + (1,)
    s = lax.reduce_window(x, 0.0, lax.add, dims, st, padding)
    if count_include_pad:
        return s / np.prod(window)
    ones = jnp.ones((1,) + x.shape[1:-1] + (1,), x.dtype)
    n = lax.reduce_window(ones, 0.0, lax.add, dims, st, padding)
    return s / n


def max_pool_padding_grad(x):
    f1 = lambda x: _max_pool(x, (3, 3), (2, 2), "SAME")
    f2 = lambda x: _max_pool(x, (2, 3), (1, 2), ((1, 0), (2, 1)))
    f3 = lambda x: _max_pool(x, (3, 2), (3, 2), "VALID")
    gs = [jax.grad(lambda x: jnp.sum(jnp.sin(f(x)) * f(x)))(x)
          for f in (f1, f2, f3)]
    return (f1(x), f2(x), f3(x)) + tuple(gs)


def max_pool_ties_grad(x):
    # Integer-valued inputs tie inside windows: select-and-scatter picks
    # the first maximum in XLA's order.
    f = lambda x: _max_pool(x, (2, 2), (1, 1), "SAME")
    g = lambda x: _max_pool(x, (3, 3), (2, 2), ((1, 1), (1, 1)))
    return (jax.grad(lambda x: jnp.sum(f(x) * jnp.arange(f(x).size)
                                       .reshape(f(x).shape)))(x),
            jax.grad(lambda x: jnp.sum(g(x)))(x))


def avg_pool_include_exclude_pad(x):
    f1 = lambda x: _avg_pool(x, (3, 3), (2, 2), "SAME", True)
    f2 = lambda x: _avg_pool(x, (3, 3), (2, 2), "SAME", False)
    f3 = lambda x: _avg_pool(x, (2, 2), (1, 1), ((1, 1), (0, 1)), False)
    gs = [jax.grad(lambda x: jnp.sum(f(x) ** 2))(x) for f in (f1, f2, f3)]
    return (f1(x), f2(x), f3(x)) + tuple(gs)


def pooling_nchw_1d_3d(x1, x3):
    m1 = lax.reduce_window(x1, -jnp.inf, lax.max, (1, 1, 3), (1, 1, 2),
                           ((0, 0), (0, 0), (1, 1)))
    a3 = lax.reduce_window(x3, 0.0, lax.add, (1, 2, 2, 2, 1),
                           (1, 2, 2, 2, 1), "SAME") / 8
    g1 = jax.grad(lambda x: jnp.sum(jnp.cos(lax.reduce_window(
        x, -jnp.inf, lax.max, (1, 1, 3), (1, 1, 2),
        ((0, 0), (0, 0), (1, 1))))))(x1)
    g3 = jax.grad(lambda x: jnp.sum(jnp.square(lax.reduce_window(
        x, -jnp.inf, lax.max, (1, 2, 2, 2, 1), (1, 1, 2, 2, 1),
        "SAME"))))(x3)
    return m1, a3, g1, g3


def pool_dilated_and_global(x):
    mw = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1),
                           "VALID", window_dilation=(1, 2, 2, 1))
    mb = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                           "VALID", base_dilation=(1, 2, 2, 1))
    gap = jnp.mean(x, (1, 2))
    gmp = jnp.max(x, (1, 2))
    lse = jax.nn.logsumexp(x, (1, 2))
    return mw, mb, gap, gmp, lse


def min_pool_and_lp_pool(x):
    mn = lax.reduce_window(x, jnp.inf, lax.min, (1, 3, 3, 1), (1, 1, 1, 1),
                           "SAME")
    lp = jnp.sqrt(lax.reduce_window(x * x, 0.0, lax.add, (1, 2, 2, 1),
                                    (1, 2, 2, 1), "VALID"))
    g = jax.grad(lambda x: jnp.sum(jnp.sqrt(lax.reduce_window(
        x * x + 1, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"))))(x)
    gm = jax.grad(lambda x: jnp.sum(lax.reduce_window(
        x, jnp.inf, lax.min, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")))(x)
    return mn, lp, g, gm


# --- reduced precision -----------------------------------------------------

def conv_bf16_bias_gelu(w, b, x):
    y = _conv(x, w, (1, 1), "SAME") + b
    return jax.nn.gelu(y), jax.nn.silu(_conv(x, w, (2, 2), "VALID"))


def conv_bf16_preferred_f32(w, x, wd):
    c = x.shape[-1]
    y = _conv(x, w, (1, 1), "SAME", pet=jnp.float32)
    z = _conv(x, wd, (2, 2), "SAME", groups=c, pet=jnp.float32)
    t = lax.conv_transpose(x, w, (2, 2), "SAME", precision=_HI,
                           preferred_element_type=jnp.float32)
    return y, z, t


def conv_f16_preferred_f32_grouped(w, x):
    dn = ("NCHW", "OIHW", "NCHW")
    y = _conv(x, w, (1, 1), ((1, 1), (1, 1)), dn, groups=2, pet=jnp.float32)
    z = _conv(x, w, (2, 1), "SAME", dn, groups=2)
    return y, z, jax.nn.relu(z).astype(jnp.float32).sum((2, 3))


def conv_bf16_grads(w, wd, x):
    def loss(w, wd, x):
        y = jax.nn.relu(_conv(x, w, (1, 1), "SAME"))
        z = _conv(y, wd, (2, 2), "SAME", groups=y.shape[-1])
        return jnp.mean(jnp.square(z.astype(jnp.float32)))
    return jax.grad(loss, argnums=(0, 1, 2))(w, wd, x)


def conv_f16_grads_nchw(w, x):
    dn = ("NCHW", "OIHW", "NCHW")

    def loss(w, x):
        y = _conv(x, w, (2, 2), ((1, 0), (1, 0)), dn, groups=2)
        return jnp.sum(jnp.tanh(y.astype(jnp.float32)))
    return jax.grad(loss, argnums=(0, 1))(w, x)


def conv_mixed_precision_train_step(p, x, y):
    # bf16 compute, f32 master weights, loss scaling, SGD update.
    def loss(p):
        q = jax.tree_util.tree_map(lambda a: a.astype(jnp.bfloat16), p)
        h = jax.nn.relu(_conv(x.astype(jnp.bfloat16), q["c1"], (2, 2)))
        h = _conv(h, q["c2"], (1, 1), "SAME", groups=4)
        logits = jnp.mean(h, (1, 2)).astype(jnp.float32) @ p["fc"]
        lp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(lp, y[:, None], 1)) * 128.0
    g = jax.grad(loss)(p)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b / 128.0, p, g)


def _mp_step_inputs(r):
    return [{"c1": floats(r, (3, 3, 3, 8)) * 0.3,
             "c2": floats(r, (3, 3, 2, 8)) * 0.3,
             "fc": floats(r, (8, 5)) * 0.3},
            floats(r, (2, 8, 8, 3)), ints(r, (2,), 0, 5)]


def conv_f64_and_grads(w, x):
    dn = ("NWC", "WIO", "NWC")

    def f(w, x):
        return _conv(x, w, (2,), [(2, 1)], dn, rhs_dil=(2,))
    return f(w, x), jax.grad(lambda w, x: jnp.sum(jnp.exp(
        f(w, x) * 0.1)), argnums=(0, 1))(w, x)


def conv_int8_to_int32(x, w, xd, wd):
    y = _conv(x, w, (1, 1), "SAME", pet=jnp.int32)
    z = _conv(xd, wd, (2, 2), ((1, 0), (0, 1)), groups=4, pet=jnp.int32)
    return y, z, jnp.clip(y // 16, -128, 127).astype(jnp.int8)


def conv_complex_grouped(x, w):
    dn = ("NCHW", "OIHW", "NCHW")
    y = _conv(x, w, (1, 1), "SAME", dn, groups=2)
    g = jax.grad(lambda w: jnp.sum(jnp.abs(_conv(x, w, (2, 1), "SAME", dn,
                                                 groups=2)) ** 2))(w)
    return y, g


# --- transformations --------------------------------------------------------

def vmap_per_example_filters(xs, ws):
    # Per-example filters (a hypernetwork's): vmap turns the batch into
    # feature groups.
    f = lambda x, w: _conv(x[None], w, (1, 1), "SAME")[0]
    g = lambda x, w: _conv(x[None], w, (2, 2), "SAME", groups=2)[0]
    return jax.vmap(f)(xs, ws), jax.vmap(g)(xs, ws[..., :2, :])


def vmap_conv_over_inner_axis(x, w):
    # vmap over axis 1 of the input and axis 3 of the filter (NCHW data
    # with an extra model axis).
    f = lambda x, w: _conv(x, w, (1, 1), ((1, 1), (0, 2)),
                           ("NCHW", "OIHW", "NCHW"))
    y = jax.vmap(f, in_axes=(1, 4), out_axes=2)(x, w)
    gw = jax.vmap(jax.grad(lambda w, x: jnp.sum(f(x, w) ** 2)),
                  in_axes=(4, 1))(w, x)
    return y, gw


def vmap_over_grad_per_example(w, xs):
    # Per-example gradients (DP-SGD): vmap of a filter gradient.
    def loss(w, x):
        y = _conv(x[None], w, (2, 2), "SAME", groups=2)
        return jnp.sum(jax.nn.softplus(y))
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0))(w, xs)
    norms = jnp.sqrt(jnp.sum(g * g, (1, 2, 3, 4)))
    clipped = g / jnp.maximum(1.0, norms / 0.5)[:, None, None, None, None]
    return norms, jnp.mean(clipped, 0)


def conv_jvp_and_linearize(w, x, tw, tx):
    f = lambda w, x: jnp.tanh(_conv(x, w, (2, 1), "SAME", groups=2))
    y, t = jax.jvp(f, (w, x), (tw, tx))
    return y, t


def gradient_penalty_grad_of_grad(w1, w2, x):
    # WGAN-GP: the norm of d critic / d x, differentiated w.r.t. the
    # filters (second-order through the convolutions).
    def critic(w1, w2, x):
        h = jax.nn.softplus(_conv(x, w1, (2, 2), "SAME"))
        return jnp.sum(_conv(h, w2, (1, 1), "VALID", groups=2))

    def gp(w1, w2):
        gx = jax.grad(critic, argnums=2)(w1, w2, x)
        return jnp.mean((jnp.sqrt(jnp.sum(gx * gx, (1, 2, 3)) + 1e-6) - 1)
                        ** 2)
    return jax.grad(gp, argnums=(0, 1))(w1, w2)


def hessian_vector_depthwise(w, x, v):
    f = lambda w: jnp.sum(jnp.tanh(_conv(x, w, (1, 1), "SAME",
                                         groups=x.shape[-1])))
    return jax.jvp(jax.grad(f), (w,), (v,))


# --- patches and locally connected layers ---------------------------------

def conv_patches_and_local(x, wl):
    p1 = lax.conv_general_dilated_patches(
        x, (3, 3), (1, 1), "SAME", dimension_numbers=("NHWC", "OIHW",
                                                      "NHWC"))
    p2 = lax.conv_general_dilated_patches(
        jnp.moveaxis(x, -1, 1), (2, 2), (2, 2), "VALID", rhs_dilation=(1, 2))
    loc = lax.conv_general_dilated_local(
        x, wl, (2, 2), "VALID", (3, 3), dimension_numbers=("NHWC", "OIHW",
                                                           "NHWC"),
        precision=_HI)
    return p1, p2, loc


def _local_inputs(r):
    x = floats(r, (2, 7, 7, 3))
    # Output 3x3 spatial; the filter OIHW: I is the input channels times
    # the window, H and W the output positions.
    return [x, floats(r, (4, 27, 3, 3)) * 0.3]


def deformable_like_sampled_conv(x, w, off):
    # Bilinear sampling on shifted positions, then a 1x1 conv: a DCN-lite
    # block (gathers feeding a convolution), with the gradient w.r.t. the
    # offsets.
    n, h, wd, c = x.shape

    def sample(x, off):
        yy, xx = jnp.meshgrid(jnp.arange(h, dtype=jnp.float32),
                              jnp.arange(wd, dtype=jnp.float32),
                              indexing="ij")
        py = jnp.clip(yy + off[..., 0], 0, h - 1)
        px = jnp.clip(xx + off[..., 1], 0, wd - 1)
        y0 = jnp.floor(py).astype(jnp.int32)
        x0 = jnp.floor(px).astype(jnp.int32)
        y1 = jnp.minimum(y0 + 1, h - 1)
        x1 = jnp.minimum(x0 + 1, wd - 1)
        fy = (py - y0)[..., None]
        fx = (px - x0)[..., None]
        b = jnp.arange(n)[:, None, None]
        return ((x[b, y0, x0] * (1 - fx) + x[b, y0, x1] * fx) * (1 - fy)
                + (x[b, y1, x0] * (1 - fx) + x[b, y1, x1] * fx) * fy)

    def f(x, off):
        return _conv(sample(x, off), w, (1, 1), "SAME")
    return f(x, off), jax.grad(lambda o: jnp.sum(f(x, o) ** 2))(off)


def _deform_inputs(r):
    return [floats(r, (2, 6, 6, 4)), floats(r, (3, 3, 4, 5)) * 0.3,
            r.uniform(-1.5, 1.5, (2, 6, 6, 2)).astype(np.float32)]


# --- edges ------------------------------------------------------------------

def conv_edge_shapes(x, w, x1):
    # batch 1 with a 1x1 output, a single channel, a 1-wide kernel row.
    a = _conv(x[:1], w, (1, 1), "VALID")
    b = _conv(x[..., :1], w[:, :, :1, :1], (1, 1), "SAME")
    c = _conv(x, w[:1], (1, 2), "SAME")
    d = _conv(x1, jnp.ones((1, 1, 1), x1.dtype), (1,), "VALID",
              ("NWC", "WIO", "NWC"))
    return a, b, c, d


def conv_empty_batch_and_channels(x, w):
    e = _conv(x[:0], w, (1, 1), "SAME")
    z = _conv(x[..., :0], w[:, :, :0], (1, 1), "SAME")
    return e, z, jnp.sum(z)


def conv_fused_input_chain(x, w, s, t):
    # The conv's input and filter are elementwise chains, the output feeds
    # a reduction: what fusion gathers around a convolution.
    xn = jnp.pad(x * s + t, ((0, 0), (2, 1), (1, 2), (0, 0)), mode="edge")
    wn = w / jnp.sqrt(jnp.sum(w * w, (0, 1, 2), keepdims=True))
    y = _conv(jax.nn.relu(xn), wn, (1, 1), "VALID")
    return y, jnp.max(y, (1, 2)), jnp.sum(y * y, -1)


def conv_nan_inf_inputs(x, w):
    # The -inf tap is the window's centre, which never reads padding:
    # whether padding times -inf gives NaN is XLA:CPU's choice of kernel
    # (see the module's docstring).
    x = x.at[0, 1, 2, 0].set(jnp.nan).at[1, 3, 3, 1].set(jnp.inf)
    w = w.at[1, 1, 1, 2].set(-jnp.inf)
    return (_conv(x, w, (1, 1), "SAME"),
            _conv(x, w[:, :, :2], (1, 1), "SAME", groups=2))



# --- windows without dimensions, types, more pooling ------------------------

def conv_no_spatial_dims(x, w, xb, wb):
    # A convolution without spatial dimensions is a (grouped) matmul; its
    # window is empty, which XLA's protos omit.
    y = lax.conv_general_dilated(x, w, (), (),
                                 dimension_numbers=("NC", "OI", "NC"),
                                 precision=_HI)
    g = lax.conv_general_dilated(x, w[:, :4], (), (),
                                 dimension_numbers=("NC", "OI", "NC"),
                                 feature_group_count=2, precision=_HI)
    bg = lax.conv_general_dilated(xb, wb, (), (),
                                  dimension_numbers=("NC", "IO", "CN"),
                                  batch_group_count=2, precision=_HI)
    return y, g, bg


def conv_medium_parallel(x, w, wd):
    # Past the CPU backend's parallel split: GEMM tiles with remainders.
    y = jax.nn.relu(_conv(x, w, (1, 1), "SAME"))
    z = _conv(y, wd, (1, 1), "SAME", groups=y.shape[-1])
    gw = jax.grad(lambda w: jnp.sum(jnp.square(_conv(x, w, (1, 1),
                                                     "SAME"))))(w)
    return y, z, gw


def depthwise_odd_multiplier_nchw_out(x, w):
    # Channel multiplier 3, output channels first (not minor) and input
    # NCHW; and the same as NHWC with a stride larger than the window.
    c = x.shape[-1]
    a = _conv(x, w, (1, 1), "SAME", ("NHWC", "HWIO", "NCHW"), groups=c)
    b = _conv(x, w, (4, 3), ((2, 1), (0, 2)), groups=c)
    d = _conv(jnp.moveaxis(x, -1, 1), w, (1, 2), "SAME",
              ("NCHW", "HWIO", "NHWC"), groups=c, rhs_dil=(2, 1))
    return a, b, d


def depthwise_grad_many_channels_bf16(x, w):
    c = x.shape[1]
    dn = ("NCHW", "OIHW", "NCHW")
    def loss(x, w):
        y = _conv(x, w, (1, 1), "SAME", dn, groups=c)
        return jnp.sum(jnp.square(y.astype(jnp.float32)))
    return jax.grad(loss, argnums=(0, 1))(x, w)


def pool_nan_inf_grad(x):
    # Max pooling and its gradient where windows hold NaN and -inf, in
    # the padding too: select-and-scatter's choice with unordered values.
    x = x.at[0, 0, 0, 0].set(jnp.nan).at[0, 2, 3, 1].set(jnp.nan)
    x = x.at[1, :2, :2, 0].set(-jnp.inf).at[1, 4, 4, 1].set(jnp.inf)
    f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                                    (1, 2, 2, 1), "SAME")
    g = jax.grad(lambda x: jnp.sum(jnp.where(jnp.isnan(f(x)), 0.0,
                                             f(x)) * 0.5))(x)
    mn = lax.reduce_window(x, jnp.inf, lax.min, (1, 2, 2, 1), (1, 1, 1, 1),
                           "VALID")
    return f(x), g, mn


def pool_integer_and_half(xi, xu, xh):
    a = lax.reduce_window(xi, jnp.int8(-128), lax.max, (1, 3, 3, 1),
                          (1, 2, 2, 1), "SAME")
    b = lax.reduce_window(xu, jnp.uint8(0), lax.max, (1, 2, 2, 1),
                          (1, 2, 2, 1), "VALID")
    s = lax.reduce_window(xu.astype(jnp.int32), 0, lax.add, (1, 2, 2, 1),
                          (1, 1, 1, 1), "SAME")
    h = lax.reduce_window(xh, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1),
                          "SAME")
    ah = lax.reduce_window(xh, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1),
                           "VALID") / 4
    gh = jax.grad(lambda x: jnp.sum(lax.reduce_window(
        x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
        "SAME").astype(jnp.float32)))(xh)
    return a, b, s, h, ah, gh


def argmax_pool_variadic(x):
    # MaxPool with argmax (SegNet's unpooling indices): a variadic
    # reduce_window over (value, index).
    idx = jnp.arange(x.size, dtype=jnp.int32).reshape(x.shape)
    def red(a, b):
        av, ai = a
        bv, bi = b
        take_b = (bv > av) | ((bv == av) & (bi < ai))
        return jnp.where(take_b, bv, av), jnp.where(take_b, bi, ai)
    v, i = lax.reduce_window((x, idx),
                             (jnp.float32(-jnp.inf), jnp.int32(2**31 - 1)),
                             red, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    unpooled = jnp.zeros(x.size,
                         x.dtype).at[i.ravel()].set(v.ravel()).reshape(x.shape)
    return v, i, unpooled


def scan_over_stacked_conv_layers(ws, x):
    # nn.scan over layers: stacked filters sliced per step, remat'd.
    @jax.checkpoint
    def layer(h, w):
        return h + 0.5 * jnp.tanh(_conv(h, w, (1, 1), "SAME")), jnp.mean(h)
    def f(ws, x):
        h, m = lax.scan(layer, x, ws)
        return jnp.sum(h * h) + jnp.sum(m)
    return jax.value_and_grad(f, argnums=(0, 1))(ws, x)


def conv_f16_large_k(x, w):
    # f16 with a long contraction (3x3x48) and a f32 accumulation variant.
    y = _conv(x, w, (1, 1), "SAME")
    z = _conv(x, w, (1, 1), "SAME", pet=jnp.float32)
    return y, z


def conv_int_types(xu, wu, xs, ws, x64, w64):
    a = _conv(xu, wu, (1, 1), "SAME", pet=jnp.int32)
    b = _conv(xs, ws, (2, 2), "VALID", groups=2)
    c = _conv(x64, w64, (1, 1), ((1, 0), (0, 1)))
    return a, b, c


def conv_f32_to_f64_preferred(x, w):
    return _conv(x, w, (1, 1), "SAME",
                 pet=jnp.float64), _conv(x.astype(jnp.bfloat16),
                                         w[:, :, :2].astype(jnp.bfloat16),
                                         (2, 2), "SAME", groups=2,
                                         pet=jnp.float32)


def scipy_convolve_nd_direct(a, k, v, kv):
    return (jss.convolve(a, k, mode="same", method="direct"),
            jss.correlate(a, k, mode="full", method="direct"),
            jss.convolve(v, kv, mode="valid", method="direct"))


def pooling_vmap_and_strided_avg_grad(x):
    f = lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (3, 3),
                                    ((1, 1), (0, 2))) / 4
    g = jax.vmap(jax.grad(lambda x: jnp.sum(jnp.sin(f(x)))))(x)
    m = jax.vmap(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (3, 2),
                                             (1, 3), ((1, 1), (1, 0))))(x)
    gm = jax.vmap(jax.grad(lambda x: jnp.sum(lax.reduce_window(
        x, -jnp.inf, lax.max, (3, 2), (1, 3), ((1, 1), (1, 0))) ** 2)))(x)
    return g, m, gm


def windows_over_scalars(s, v):
    # reduce_window over a rank-0 operand: the window has no dimensions,
    # which XLA omits. (Its gradient, a select-and-scatter of a scalar,
    # aborts XLA:CPU's SelectAndScatterExpander.)
    a = lax.reduce_window(s, -jnp.inf, lax.max, (), (), ())
    b = lax.reduce_window(s, 0.0, lax.add, (), (), "VALID")
    return a, b, jax.vmap(lambda t: lax.reduce_window(
        t, 0.0, lax.add, (), (), ()))(v)



# --- more layers -------------------------------------------------------------

def pooling_non_identity_init(x):
    # Inits that are not the reducer's identity: padding reads the init,
    # and every window folds it in once (max-pool "clamped at 0", a sum
    # starting at 1).
    a = lax.reduce_window(x, np.float32(0), lax.max, (1, 3, 3, 1),
                          (1, 2, 2, 1), "SAME")
    b = lax.reduce_window(x, np.float32(1), lax.add, (1, 2, 2, 1),
                          (1, 1, 1, 1), ((0, 0), (1, 1), (0, 1), (0, 0)))
    c = lax.reduce_window(x, np.float32(2), lax.min, (1, 2, 3, 1),
                          (1, 2, 1, 1), "SAME")
    d = lax.reduce_window(x, np.float32(1), lax.mul, (1, 1, 2, 1),
                          (1, 1, 2, 1), "VALID")
    return a, b, c, d


def aspp_large_dilations(p, x):
    # DeepLab's atrous spatial pyramid: 3x3 taps at rates past the input,
    # most of them in the padding.
    outs = [_conv(x, p["w1"], (1, 1), "VALID")]
    for i, rate in enumerate((2, 6, 12)):
        outs.append(_conv(x, p["w3"][i], (1, 1), "SAME", rhs_dil=(rate, rate)))
    pooled = jnp.mean(x, (1, 2), keepdims=True)
    outs.append(jnp.broadcast_to(_conv(pooled, p["w1"], (1, 1), "VALID"),
                                 outs[0].shape))
    y = jax.nn.relu(jnp.concatenate(outs, -1))
    g = jax.grad(lambda w: jnp.sum(jnp.tanh(_conv(x, w, (1, 1), "SAME",
                                                  rhs_dil=(12,
                                                           12)))))(p["w3"][2])
    return y, g


def _aspp_inputs(r):
    return [{"w1": floats(r, (1, 1, 4, 3)) * 0.3,
             "w3": [floats(r, (3, 3, 4, 3)) * 0.3 for _ in range(3)]},
            floats(r, (2, 9, 10, 4))]


def conformer_conv_module(p, x):
    # Pointwise -> GLU -> depthwise 1-D (k=15) -> batch norm -> swish ->
    # pointwise, with its gradient.
    def f(p, x):
        h = _ln(x, p["g"], p["b"])
        h = _conv(h, p["pw1"], (1,), "VALID", ("NWC", "WIO", "NWC"))
        h = jax.nn.glu(h, -1)
        h = _conv(h, p["dw"], (1,), "SAME", ("NWC", "WIO", "NWC"),
                  groups=h.shape[-1])
        m = jnp.mean(h, (0, 1))
        v = jnp.var(h, (0, 1))
        h = jax.nn.swish((h - m) * lax.rsqrt(v + 1e-5))
        return x + _conv(h, p["pw2"], (1,), "VALID", ("NWC", "WIO", "NWC"))
    return f(p, x), jax.grad(lambda p, x: jnp.mean(f(p, x) ** 2),
                             argnums=(0, 1))(p, x)


def _conformer_inputs(r):
    c = 8
    return [{"g": 1 + 0.1 * floats(r, (c,)), "b": 0.1 * floats(r, (c,)),
             "pw1": floats(r, (1, c, 2 * c)) * 0.3,
             "dw": floats(r, (15, 1, c)) * 0.3,
             "pw2": floats(r, (1, c, c)) * 0.3}, floats(r, (2, 20, c))]


def blurpool_constant_filter(x):
    # Anti-aliased downsampling: a constant binomial depthwise filter,
    # reflect padding, stride 2 (the filter is a constant: a convolution
    # constant folding may see).
    c = x.shape[-1]
    k1 = np.array([1.0, 3.0, 3.0, 1.0], np.float32)
    k = np.outer(k1, k1)
    k = (k / k.sum())[:, :, None, None] * np.ones((1, 1, 1, c), np.float32)
    xp = jnp.pad(x, ((0, 0), (1, 2), (1, 2), (0, 0)), mode="reflect")
    y = _conv(xp, jnp.asarray(k), (2, 2), "VALID", groups=c)
    folded = _conv(jnp.asarray(k[..., :1, :1].reshape(1, 4, 4, 1)),
                   jnp.asarray(k[:, :, :1, :1]), (1, 1), "SAME")
    return y, folded, jax.grad(lambda x: jnp.sum(_conv(jnp.pad(x,
                                                               ((0, 0), (1, 2),
                                                                (1, 2),
                                                                (0, 0)),
                                                               mode="reflect"),
                                                       jnp.asarray(k), (2, 2),
                                                       "VALID",
                                                       groups=c) ** 2))(x)


def squeeze_excite_inception(p, x):
    # Inception's factorized 1x7 / 7x1 branch, a 3x3 branch, then a
    # squeeze-and-excitation scaling of the concatenation.
    b1 = jax.nn.relu(_conv(x, p["a17"], (1, 1), "SAME"))
    b1 = jax.nn.relu(_conv(b1, p["a71"], (1, 1), "SAME"))
    b2 = jax.nn.relu(_conv(x, p["b33"], (1, 1), "SAME"))
    y = jnp.concatenate([b1, b2], -1)
    s = jnp.mean(y, (1, 2))
    s = jax.nn.sigmoid(jax.nn.relu(s @ p["se1"]) @ p["se2"])
    return y * s[:, None, None, :]


def _sei_inputs(r):
    return [{"a17": floats(r, (1, 7, 4, 6)) * 0.3,
             "a71": floats(r, (7, 1, 6, 6)) * 0.3,
             "b33": floats(r, (3, 3, 4, 6)) * 0.3,
             "se1": floats(r, (12, 3)) * 0.3, "se2": floats(r, (3, 12)) * 0.3},
            floats(r, (2, 8, 9, 4))]


def squeeze_excite_inception_grad(p, x):
    return squeeze_excite_inception(p, x), jax.grad(
        lambda p, x: jnp.sum(squeeze_excite_inception(p, x) ** 2),
        argnums=(0, 1))(p, x)


def conv_transpose_stride_past_kernel(x, w):
    # Strides larger than the kernel leave holes (zeros) between patches;
    # odd sizes with SAME; and the gradients through them.
    a = lax.conv_transpose(x, w, (3, 3), "SAME", precision=_HI)
    b = lax.conv_transpose(x, w, (4, 3), "VALID", precision=_HI)
    c = lax.conv_transpose(x, w, (3, 2), ((0, 2), (1, 0)), rhs_dilation=(1, 2),
                           precision=_HI)
    g = jax.grad(lambda x,
                 w: jnp.sum(jnp.sin(lax.conv_transpose(x, w, (3, 3), "SAME",
                                                       precision=_HI))),
                 argnums=(0, 1))(x, w)
    return a, b, c, g


def qat_fake_quant_conv(w, x, s):
    # Quantization-aware training: fake-quantized filter with a
    # straight-through estimator, int8 convolution into int32 and
    # requantization to int8.
    def fq(w):
        q = jnp.clip(jnp.round(w / s), -127, 127) * s
        return w + lax.stop_gradient(q - w)
    y, g = jax.value_and_grad(lambda w: jnp.sum(jax.nn.relu(
        _conv(x, fq(w), (1, 1), "SAME")) ** 2))(w)
    # Scales are powers of two: XLA folds (a * c1) / c2 into a * (c1 / c2),
    # which moves a product off an exact .5 unless both are exact.
    qx = jnp.clip(jnp.round(x / 0.0625), -128, 127).astype(jnp.int8)
    qw = jnp.clip(jnp.round(w / s), -127, 127).astype(jnp.int8)
    acc = _conv(qx, qw, (1, 1), "SAME", pet=jnp.int32)
    out = jnp.clip(jnp.round(acc.astype(jnp.float32) * (0.0625 * s / 0.125)),
                   -128, 127).astype(jnp.int8)
    return y, g, acc, out


def spectral_norm_conv(w, x, u):
    # Spectral normalization of a filter by power iteration in a
    # fori_loop, then the conv (SN-GAN's discriminator).
    wm = w.reshape(-1, w.shape[-1])
    def it(_, u):
        v = wm @ u
        v = v / jnp.linalg.norm(v)
        u = wm.T @ v
        return u / jnp.linalg.norm(u)
    u = lax.fori_loop(0, 8, it, u)
    sigma = jnp.linalg.norm(wm @ u)
    return _conv(x, w / sigma, (2, 2), "SAME"), sigma


def zero_size_windows(x, w):
    # Negative padding that leaves no output positions, and a zero-size
    # pooled output.
    a = _conv(x, w, (1, 1), ((-1, -1), (0, 0)))
    b = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1),
                          ((0, 0), (-1, -1), (0, 0), (0, 0)))
    c = _conv(x, w, (1, 1), "VALID")
    return a, b, c


def lax_map_over_batch_conv(x, w):
    f = lambda xi: _conv(xi[None], w, (2, 1), "SAME")[0]
    return lax.map(f, x), jax.vmap(f)(x)


def dropout_stochastic_depth_convs(key, x, w1, w2):
    k1, k2 = jax.random.split(jax.random.wrap_key_data(key))
    h = jax.nn.relu(_conv(x, w1, (1, 1), "SAME"))
    keep = jax.random.bernoulli(k1, 0.8, h.shape)
    h = jnp.where(keep, h / 0.8, 0.0)
    branch = _conv(h, w2, (1, 1), "SAME")
    alive = jax.random.bernoulli(k2, 0.5, (x.shape[0], 1, 1, 1))
    return x + jnp.where(alive, branch / 0.5, 0.0)


# --- pooling types, widening accumulations, control flow ------------------

def pooling_bf16_and_grads(x):
    # bf16 pooling: sums of 3x3 windows rounded to bf16, and the max
    # pool's gradient with overlapping windows (cotangents that land on one
    # element add in bf16).
    avg = lambda x: lax.reduce_window(x, np.array(0, jnp.bfloat16), lax.add,
                                      (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9
    mx = lambda x: lax.reduce_window(x, np.array(-np.inf, jnp.bfloat16),
                                     lax.max,
                                     (1, 3, 3, 1), (1, 1, 1, 1), "SAME")
    ct = np.linspace(-1, 1, x.size).reshape(x.shape).astype(jnp.bfloat16)
    ga = jax.grad(lambda x: jnp.sum((avg(x) * ct).astype(jnp.float32)))(x)
    gm = jax.grad(lambda x: jnp.sum((mx(x) * ct).astype(jnp.float32)))(x)
    return avg(x), mx(x), ga, gm


def generic_reducer_pooling(x):
    # A reduce_window whose computation is no known monoid: log-sum-exp
    # (soft) pooling and a "max of absolute values" pool.
    lse = lax.reduce_window(x, np.float32(-np.inf), jnp.logaddexp,
                            (1, 2, 2, 1), (1, 2, 2, 1), "SAME")
    amax = lax.reduce_window(x, np.float32(0),
                             lambda a, b: jnp.maximum(jnp.abs(a), jnp.abs(b)),
                             (1, 3, 3, 1), (1, 1, 1, 1), "VALID")
    return lse, amax


def prefix_windows_as_cumsums(x):
    # Windows as long as the axis with padding in front: cumulative sums
    # and maxima written as reduce_window (a scan).
    n = x.shape[1]
    cs = lax.reduce_window(x, np.float32(0), lax.add, (1, n, 1), (1, 1, 1),
                           ((0, 0), (n - 1, 0), (0, 0)))
    cm = lax.reduce_window(x, np.float32(-np.inf), lax.max, (1, n, 1),
                           (1, 1, 1), ((0, 0), (n - 1, 0), (0, 0)))
    rs = lax.reduce_window(x, np.float32(0), lax.add, (1, n, 1), (1, 1, 1),
                           ((0, 0), (0, n - 1), (0, 0)))
    g = jax.grad(lambda x: jnp.sum(jnp.sin(lax.reduce_window(
        x, np.float32(0), lax.add, (1, n, 1), (1, 1, 1),
        ((0, 0), (n - 1, 0), (0, 0))))))(x)
    return cs, cm, rs, g


def depthwise_f64_and_c128(x, w, xc, wc):
    c = x.shape[-1]
    a = _conv(x, w, (1, 1), "SAME", groups=c)
    ga = jax.grad(lambda w: jnp.sum(jnp.sin(_conv(x, w, (2, 2), "SAME",
                                                  groups=c))))(w)
    t = lax.conv_transpose(xc, wc, (2, 2), "SAME", precision=_HI)
    return a, ga, t


def conv_int8_into_float_and_int16(x, w):
    # int8 operands accumulated into f32 (a preferred float type) and into
    # int16 (wrapping), and u8 into f32.
    a = _conv(x, w, (1, 1), "SAME", pet=jnp.float32)
    b = _conv(x, w, (2, 2), "VALID", pet=jnp.int16)
    c = _conv(x.astype(jnp.uint8), w.astype(jnp.uint8), (1, 1), "SAME",
              pet=jnp.float32)
    return a, b, c


def conv_f16_into_f64(x, w):
    # f16 and bf16 operands accumulated into f64.
    return (_conv(x, w, (1, 1), "SAME", pet=jnp.float64),
            _conv(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16), (1, 1),
                  "SAME", pet=jnp.float64))


def convs_in_cond_switch_while(i, x, w1, w2):
    # Convolutions in conditional branches (lax.switch on a runtime index,
    # lax.cond on data) and in a while loop run until the activations
    # settle.
    branches = [lambda x: _conv(x, w1, (1, 1), "SAME"),
                lambda x: _conv(x, w2, (1, 1), "SAME", groups=x.shape[-1]),
                lambda x: lax.conv_transpose(x, w1, (1, 1), "SAME",
                                             precision=_HI)]
    a = lax.switch(i, branches, x)
    b = lax.cond(jnp.sum(x) > 0, branches[0], branches[1], x)

    def cond(s):
        h, k = s
        return (k < 20) & (jnp.max(jnp.abs(h)) > 0.05)

    def body(s):
        h, k = s
        return 0.5 * jnp.tanh(_conv(h, w2, (1, 1), "SAME",
                                    groups=h.shape[-1])), k + 1
    h, k = lax.while_loop(cond, body, (x, 0))
    return a, b, h, k


def conv_few_output_features(x, w):
    # One to three output features over many positions (a segmentation
    # head, a density map): the CPU computes such convolutions transposed,
    # walking the input along the output positions.
    outs = []
    for o, strides, pad, ld, rd in [
            (1, (1, 1), "SAME", None, None),
            (2, (1, 3), ((1, 2), (-1, 2)), None, (1, 2)),
            (3, (2, 1), ((0, 1), (2, 2)), (1, 2), None),
            (1, (1, 2), ((1, 1), (3, 0)), (2, 3), (2, 1))]:
        outs.append(_conv(x, w[..., :o], strides, pad, lhs_dil=ld,
                          rhs_dil=rd))
    xt = jnp.transpose(x, (0, 3, 1, 2))
    outs.append(_conv(xt, jnp.transpose(w[..., :2], (3, 2, 0, 1)), (1, 1),
                      ((1, 1), (1, 1)), ("NCHW", "OIHW", "NCHW")))
    outs.append(_conv(x[:, :, :1], w[:1, :, :, :1], (1, 1), "SAME"))
    return tuple(outs)


def conv_hessian_and_double_vmap(w, x, xs, ws):
    # The Hessian of a tiny conv loss w.r.t. its filter (vmapped jvps of
    # the gradient: the tangent basis becomes groups), and a vmap of a
    # vmap over images and filters.
    def loss(w):
        y = _conv(x, w, (1, 1), "SAME", groups=2)
        return jnp.sum(jnp.tanh(y) ** 2)
    h = jax.hessian(loss)(w)
    f = lambda x, w: _conv(x[None], w, (2, 1), "SAME")[0]
    vv = jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None))(xs, ws)
    return h, vv


def circular_padding_and_resize_decoder(x, w, wu):
    # Flax's padding='CIRCULAR' (wrap padding, then VALID), and an
    # upsampling decoder: resize (nearest and bilinear) then conv.
    xp = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="wrap")
    y = _conv(xp, w, (1, 1), "VALID")
    n, hh, ww, c = y.shape
    up1 = jax.image.resize(y, (n, 2 * hh, 2 * ww, c), "nearest")
    up2 = jax.image.resize(y, (n, 2 * hh, 2 * ww, c), "bilinear")
    z1 = _conv(up1, wu, (1, 1), "SAME")
    z2 = _conv(up2, wu, (1, 1), "SAME")
    g = jax.grad(lambda w: jnp.sum(_conv(jax.image.resize(
        _conv(xp, w, (1, 1), "VALID"), (n, 2 * hh, 2 * ww, c), "bilinear"),
        wu, (1, 1), "SAME") ** 2))(w)
    return y, z1, z2, g


PROGRAMS = {
    "conv_nhwc_even_kernel_strides": (conv_nhwc_even_kernel_strides,
                                      lambda r: [floats(r, (2, 9, 11, 3)),
                                                 floats(r, (4, 4, 3, 5))]),
    "conv_nchw_explicit_asymmetric": (conv_nchw_explicit_asymmetric,
                                      lambda r: [floats(r, (2, 4, 8, 7)),
                                                 floats(r, (6, 4, 3, 2))]),
    "conv_mixed_orders": (conv_mixed_orders, lambda r: [
        floats(r, (2, 7, 6, 3)), floats(r, (3, 2, 3, 4))]),
    "conv1d_nwc_causal_dilated": (conv1d_nwc_causal_dilated, lambda r: [
        floats(r, (2, 17, 4)), floats(r, (3, 4, 6)), floats(r, (5, 17, 4))]),
    "conv_negative_and_mixed_padding": (conv_negative_and_mixed_padding,
                                        lambda r: [floats(r, (2, 8, 9, 3)),
                                                   floats(r, (3, 2, 3, 4))]),
    "conv3d_every_order": (conv3d_every_order, lambda r: [
        floats(r, (2, 4, 6, 5, 4)), floats(r, (2, 3, 3, 4, 6)),
        floats(r, (2, 2, 2, 2, 6))]),
    "conv_window_past_input": (conv_window_past_input, lambda r: [
        floats(r, (2, 4, 5, 3)), floats(r, (5, 6, 3, 4))]),
    "conv_lhs_rhs_dilation_together": (conv_lhs_rhs_dilation_together,
                                       lambda r: [floats(r, (2, 5, 4, 3)),
                                                  floats(r, (3, 3, 3, 4))]),
    "conv_pointwise_and_strided_1x1": (conv_pointwise_and_strided_1x1,
                                       lambda r: [floats(r, (2, 7, 8, 6)),
                                                  floats(r, (1, 1, 6, 5))]),
    "depthwise_multiplier_one_and_two": (depthwise_multiplier_one_and_two,
                                         lambda r: [floats(r, (2, 9, 8, 6)),
                                                    floats(r, (3, 3, 1, 6)),
                                                    floats(r, (3, 3, 1, 12))]),
    "grouped_conv_every_count": (grouped_conv_every_count, lambda r: [
        floats(r, (2, 6, 7, 16)), floats(r, (3, 3, 8, 8)),
        floats(r, (3, 3, 4, 12)), floats(r, (2, 3, 2, 16))]),
    "batch_group_conv_direct": (batch_group_conv_direct, lambda r: [
        floats(r, (4, 6, 5, 3)), floats(r, (3, 2, 3, 6)),
        floats(r, (8, 9, 2)), floats(r, (3, 2, 8))]),
    "grouped_and_depthwise_grads": (grouped_and_depthwise_grads, lambda r: [
        floats(r, (2, 8, 8, 8)), floats(r, (3, 3, 2, 8)) * 0.3,
        floats(r, (3, 3, 1, 16)) * 0.3]),
    "depthwise_multiplier_grad_nchw": (depthwise_multiplier_grad_nchw,
                                       lambda r: [floats(r, (2, 4, 9, 8)),
                                                  floats(r, (8, 1, 3, 3))]),
    "conv_transpose_every_padding": (conv_transpose_every_padding,
                                     lambda r: [floats(r, (2, 4, 5, 3)),
                                                floats(r, (3, 3, 3, 6)),
                                                floats(r, (3, 3, 6, 3))]),
    "conv_transpose_1d_3d": (conv_transpose_1d_3d, lambda r: [
        floats(r, (2, 6, 3)), floats(r, (4, 3, 5)),
        floats(r, (1, 3, 4, 3, 2)), floats(r, (2, 3, 2, 2, 3))]),
    "conv_transpose_grads": (conv_transpose_grads, lambda r: [
        floats(r, (2, 3, 4, 4)), floats(r, (3, 3, 4, 6)) * 0.3]),
    "mobilenet_v2_block_grad": (mobilenet_v2_block_grad, _mobilenet_inputs),
    "mobilenet_v1_strided_bf16": (mobilenet_v1_strided_bf16,
                                  _mobilenet_v1_inputs),
    "convnext_block_grad": (convnext_block_grad, _convnext_inputs),
    "convnext_downsample_stem_nchw": (convnext_downsample_stem_nchw,
                                      lambda r: [
        {"stem": floats(r, (8, 3, 4, 4)) * 0.2,
         "g": 1 + 0.1 * floats(r, (8,)), "b": floats(r, (8,)) * 0.1,
         "down": floats(r, (16, 8, 2, 2)) * 0.2},
        floats(r, (2, 3, 16, 16))]),
    "resnext_bottleneck_grad": (resnext_bottleneck_grad, _resnext_inputs),
    "unet_down_up_grad": (unet_down_up_grad, _unet_inputs),
    "pixel_shuffle_upsample": (pixel_shuffle_upsample, lambda r: [
        floats(r, (2, 5, 6, 4)), floats(r, (3, 3, 4, 12)) * 0.3]),
    "wavenet_stack_grad": (wavenet_stack_grad, _wavenet_inputs),
    "conv_lstm_scan_grad": (conv_lstm_scan_grad, _conv_lstm_inputs),
    "conv_in_fori_loop_diffusion": (conv_in_fori_loop_diffusion, lambda r: [
        floats(r, (2, 8, 8, 4)), floats(r, (3, 3, 1, 4)) * 0.2]),
    "conv_batchnorm_train_grad": (conv_batchnorm_train_grad, lambda r: [
        floats(r, (3, 3, 4, 8)) * 0.3, 1 + 0.1 * floats(r, (8,)),
        0.1 * floats(r, (8,)), floats(r, (4, 6, 6, 4))]),
    "conv_groupnorm_nchw_grad": (conv_groupnorm_nchw_grad, lambda r: [
        floats(r, (8, 4, 3, 3)) * 0.3, 1 + 0.1 * floats(r, (8,)),
        0.1 * floats(r, (8,)), floats(r, (2, 4, 6, 6))]),
    "weight_standardized_conv": (weight_standardized_conv, lambda r: [
        floats(r, (3, 3, 4, 6)), floats(r, (2, 7, 7, 4))]),
    "max_pool_padding_grad": (max_pool_padding_grad, lambda r: [
        floats(r, (2, 7, 8, 3))]),
    "max_pool_ties_grad": (max_pool_ties_grad, lambda r: [
        ints(r, (2, 6, 7, 2), -2, 3).astype(np.float32)]),
    "avg_pool_include_exclude_pad": (avg_pool_include_exclude_pad,
                                     lambda r: [floats(r, (2, 7, 6, 3))]),
    "pooling_nchw_1d_3d": (pooling_nchw_1d_3d, lambda r: [
        floats(r, (2, 3, 11)), floats(r, (2, 5, 4, 6, 2))]),
    "pool_dilated_and_global": (pool_dilated_and_global, lambda r: [
        floats(r, (2, 7, 6, 3))]),
    "min_pool_and_lp_pool": (min_pool_and_lp_pool, lambda r: [
        floats(r, (2, 6, 8, 3))]),
    "conv_bf16_bias_gelu": (conv_bf16_bias_gelu, lambda r: [
        _bf16(r, (3, 3, 4, 8), 0.3), _bf16(r, (8,)),
        _bf16(r, (2, 8, 8, 4))]),
    "conv_bf16_preferred_f32": (conv_bf16_preferred_f32, lambda r: [
        _bf16(r, (3, 3, 4, 8)), _bf16(r, (2, 8, 8, 4)),
        _bf16(r, (3, 3, 1, 8))]),
    "conv_f16_preferred_f32_grouped": (conv_f16_preferred_f32_grouped,
                                       lambda r: [_f16(r, (6, 2, 3, 3)),
                                                  _f16(r, (2, 4, 7, 7))]),
    "conv_bf16_grads": (conv_bf16_grads, lambda r: [
        _bf16(r, (3, 3, 4, 8), 0.3), _bf16(r, (3, 3, 1, 8), 0.3),
        _bf16(r, (2, 8, 8, 4))]),
    "conv_f16_grads_nchw": (conv_f16_grads_nchw, lambda r: [
        _f16(r, (6, 2, 3, 3), 0.3), _f16(r, (2, 4, 8, 8))]),
    "conv_mixed_precision_train_step": (conv_mixed_precision_train_step,
                                        _mp_step_inputs),
    "conv_f64_and_grads": (conv_f64_and_grads, lambda r: [
        floats(r, (3, 3, 4), np.float64), floats(r, (2, 12, 3), np.float64)]),
    "conv_int8_to_int32": (conv_int8_to_int32, lambda r: [
        ints(r, (2, 6, 6, 4), -128, 128, np.int8),
        ints(r, (3, 3, 4, 5), -128, 128, np.int8),
        ints(r, (2, 5, 5, 4), -128, 128, np.int8),
        ints(r, (2, 2, 1, 8), -128, 128, np.int8)]),
    "conv_complex_grouped": (conv_complex_grouped, lambda r: [
        complexes(r, (2, 4, 5, 5)), complexes(r, (4, 2, 3, 3))]),
    "vmap_per_example_filters": (vmap_per_example_filters, lambda r: [
        floats(r, (3, 6, 6, 4)), floats(r, (3, 3, 3, 4, 4))]),
    "vmap_conv_over_inner_axis": (vmap_conv_over_inner_axis, lambda r: [
        floats(r, (2, 3, 4, 6, 5)), floats(r, (4, 4, 3, 2, 3))]),
    "vmap_over_grad_per_example": (vmap_over_grad_per_example, lambda r: [
        floats(r, (3, 3, 2, 4)) * 0.3, floats(r, (4, 6, 6, 4))]),
    "conv_jvp_and_linearize": (conv_jvp_and_linearize, lambda r: [
        floats(r, (3, 3, 2, 6)) * 0.3, floats(r, (2, 6, 6, 4)),
        floats(r, (3, 3, 2, 6)), floats(r, (2, 6, 6, 4))]),
    "gradient_penalty_grad_of_grad": (gradient_penalty_grad_of_grad,
                                      lambda r: [
        floats(r, (3, 3, 3, 8)) * 0.3, floats(r, (3, 3, 4, 2)) * 0.3,
        floats(r, (2, 8, 8, 3))]),
    "hessian_vector_depthwise": (hessian_vector_depthwise, lambda r: [
        floats(r, (3, 3, 1, 4)) * 0.3, floats(r, (2, 6, 6, 4)),
        floats(r, (3, 3, 1, 4))]),
    "conv_patches_and_local": (conv_patches_and_local, _local_inputs),
    "deformable_like_sampled_conv": (deformable_like_sampled_conv,
                                     _deform_inputs),
    "conv_edge_shapes": (conv_edge_shapes, lambda r: [
        floats(r, (2, 3, 3, 4)), floats(r, (3, 3, 4, 5)),
        floats(r, (2, 7, 1))]),
    "conv_empty_batch_and_channels": (conv_empty_batch_and_channels,
                                      lambda r: [floats(r, (2, 5, 5, 3)),
                                                 floats(r, (3, 3, 3, 4))]),
    "conv_fused_input_chain": (conv_fused_input_chain, lambda r: [
        floats(r, (2, 6, 7, 4)), floats(r, (3, 3, 4, 6)),
        1 + 0.1 * floats(r, (4,)), floats(r, (4,)) * 0.1]),
    "conv_nan_inf_inputs": (conv_nan_inf_inputs, lambda r: [
        floats(r, (2, 5, 5, 4)), floats(r, (3, 3, 4, 4))]),
    "conv_no_spatial_dims": (conv_no_spatial_dims,
                             lambda r: [floats(r, (3, 8)), floats(r, (6, 8)),
                                        floats(r, (4, 5)), floats(r, (5, 6))]),
    "conv_medium_parallel": (conv_medium_parallel,
                             lambda r: [floats(r, (2, 24, 24, 24)),
                                        floats(r, (3, 3, 24, 40)) * 0.2,
                                        floats(r, (3, 3, 1, 40)) * 0.3]),
    "depthwise_odd_multiplier_nchw_out": (depthwise_odd_multiplier_nchw_out,
                                          lambda r: [floats(r, (2, 9, 10, 5)),
                                                     floats(r,
                                                            (3, 3, 1, 15))]),
    "depthwise_grad_many_channels_bf16": (depthwise_grad_many_channels_bf16,
                                          lambda r: [_bf16(r, (2, 32, 10, 10)),
                                                     _bf16(r, (32, 1, 3, 3),
                                                           0.3)]),
    "pool_nan_inf_grad": (pool_nan_inf_grad,
                          lambda r: [floats(r, (2, 7, 6, 2))]),
    "pool_integer_and_half": (pool_integer_and_half,
                              lambda r: [ints(r, (2, 7, 6, 3), -128, 128,
                                              np.int8),
                                         ints(r, (2, 8, 6, 3), 0, 256,
                                              np.uint8),
                                         _f16(r, (2, 7, 6, 3))]),
    "argmax_pool_variadic": (argmax_pool_variadic,
                             lambda r: [ints(r, (2, 6, 8, 3), -3,
                                             3).astype(np.float32)]),
    "scan_over_stacked_conv_layers": (scan_over_stacked_conv_layers,
                                      lambda r: [floats(r,
                                                        (4, 3, 3, 6, 6)) * 0.2,
                                                 floats(r, (2, 8, 8, 6))]),
    "conv_f16_large_k": (conv_f16_large_k,
                         lambda r: [_f16(r, (2, 8, 8, 48)),
                                    _f16(r, (3, 3, 48, 16), 0.1)]),
    "conv_int_types": (conv_int_types,
                       lambda r: [ints(r, (2, 6, 6, 3), 0, 256, np.uint8),
                                  ints(r, (3, 3, 3, 4), 0, 256, np.uint8),
                                  ints(r, (2, 6, 6, 4), -300, 300, np.int16),
                                  ints(r, (2, 2, 2, 4), -30, 30, np.int16),
                                  ints(r, (2, 5, 5, 2), -2**40, 2**40,
                                       np.int64),
                                  ints(r, (2, 2, 2, 3), -1000, 1000,
                                       np.int64)]),
    "conv_f32_to_f64_preferred": (conv_f32_to_f64_preferred,
                                  lambda r: [floats(r, (2, 6, 6, 4)),
                                             floats(r, (3, 3, 4, 6))]),
    "scipy_convolve_nd_direct": (scipy_convolve_nd_direct,
                                 lambda r: [floats(r, (5, 6, 4)),
                                            floats(r, (2, 3, 3)),
                                            floats(r, (9,)), floats(r, (4,))]),
    "pooling_vmap_and_strided_avg_grad": (pooling_vmap_and_strided_avg_grad,
                                          lambda r: [floats(r, (3, 8, 9))]),
    "windows_over_scalars": (windows_over_scalars,
                             lambda r: [np.float32(r.standard_normal()),
                                        floats(r, (5,))]),
    "pooling_non_identity_init": (pooling_non_identity_init,
                                  lambda r: [floats(r, (2, 7, 6, 3))]),
    "aspp_large_dilations": (aspp_large_dilations, _aspp_inputs),
    "conformer_conv_module": (conformer_conv_module, _conformer_inputs),
    "blurpool_constant_filter": (blurpool_constant_filter,
                                 lambda r: [floats(r, (2, 8, 8, 3))]),
    "squeeze_excite_inception_grad": (squeeze_excite_inception_grad,
                                      _sei_inputs),
    "conv_transpose_stride_past_kernel": (conv_transpose_stride_past_kernel,
                                          lambda r: [floats(r, (2, 3, 4, 3)),
                                                     floats(r, (2, 2, 3, 4))]),
    "qat_fake_quant_conv": (qat_fake_quant_conv,
                            lambda r: [floats(r, (3, 3, 4, 6)) * 0.3,
                                       floats(r, (2, 6, 6, 4)) * 0.5,
                                       np.float32(0.0078125)]),
    "spectral_norm_conv": (spectral_norm_conv,
                           lambda r: [floats(r, (3, 3, 4, 6)),
                                      floats(r, (2, 8, 8, 4)),
                                      floats(r, (6,))]),
    "zero_size_windows": (zero_size_windows,
                          lambda r: [floats(r, (2, 3, 5, 2)),
                                     floats(r, (2, 3, 2, 4))]),
    "lax_map_over_batch_conv": (lax_map_over_batch_conv,
                                lambda r: [floats(r, (3, 6, 5, 2)),
                                           floats(r, (3, 3, 2, 4))]),
    "dropout_stochastic_depth_convs": (dropout_stochastic_depth_convs,
                                       lambda r: [prng_key(r),
                                                  floats(r, (4, 6, 6, 4)),
                                                  floats(r,
                                                         (3, 3, 4, 4)) * 0.3,
                                                  floats(r,
                                                         (3, 3, 4, 4)) * 0.3]),
    "pooling_bf16_and_grads": (pooling_bf16_and_grads, lambda r: [
        _bf16(r, (2, 6, 7, 3))]),
    "generic_reducer_pooling": (generic_reducer_pooling, lambda r: [
        floats(r, (2, 6, 7, 3))]),
    "prefix_windows_as_cumsums": (prefix_windows_as_cumsums, lambda r: [
        floats(r, (2, 9, 3))]),
    "depthwise_f64_and_c128": (depthwise_f64_and_c128, lambda r: [
        floats(r, (2, 7, 6, 4), np.float64),
        floats(r, (3, 3, 1, 8), np.float64),
        complexes(r, (1, 3, 4, 2), np.complex128),
        complexes(r, (2, 2, 2, 3), np.complex128)]),
    "conv_int8_into_float_and_int16": (conv_int8_into_float_and_int16,
                                       lambda r: [
        ints(r, (2, 6, 6, 4), -128, 128, np.int8),
        ints(r, (3, 3, 4, 5), -128, 128, np.int8)]),
    "conv_f16_into_f64": (conv_f16_into_f64, lambda r: [
        _f16(r, (2, 6, 6, 4)), _f16(r, (3, 3, 4, 5))]),
    "convs_in_cond_switch_while": (convs_in_cond_switch_while, lambda r: [
        np.int32(1), floats(r, (2, 6, 6, 4)), floats(r, (3, 3, 4, 4)) * 0.3,
        floats(r, (3, 3, 1, 4)) * 0.3]),
    "conv_few_output_features": (conv_few_output_features, lambda r: [
        floats(r, (2, 24, 20, 5)), floats(r, (3, 3, 5, 3))]),
    "conv_hessian_and_double_vmap": (conv_hessian_and_double_vmap, lambda r: [
        floats(r, (2, 2, 2, 4)) * 0.5, floats(r, (1, 4, 4, 4)),
        floats(r, (2, 5, 4, 3)), floats(r, (3, 3, 2, 3, 2))]),
    "circular_padding_and_resize_decoder": (
        circular_padding_and_resize_decoder, lambda r: [
            floats(r, (2, 5, 6, 3)), floats(r, (3, 3, 3, 4)) * 0.3,
            floats(r, (3, 3, 4, 2)) * 0.3]),
}
