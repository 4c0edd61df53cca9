//===- Activations.h - Float activations as PyTorch does --------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Float activations whose PyTorch 1.13 CPU kernel rounds otherwise than the
// composite's TOSA decomposition, computed as that kernel computes them, bit
// for bit. qfx-lower's tables evaluate them with these functions and
// qfx-lower-gelu builds the same arithmetic into native code. Pure C++ (LLVM
// Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_NUMERICS_ACTIVATIONS_H
#define QFX_NUMERICS_ACTIVATIONS_H

namespace qfx {

/// The float32 GELU (approximate='none') of PyTorch 1.13 on x86-64: aten's
/// gelu passes a contiguous float tensor of more than one element to
/// oneDNN 2.6's `eltwise_gelu_erf`, whose JIT kernel (the same instruction
/// sequence for AVX2 and AVX-512, so on Intel and AMD CPUs alike) evaluates
/// erf with Abramowitz and Stegun's formula 7.1.26 and its own exp:
///
///   x = s * f32(1/sqrt(2)),  t = 1 / fma(p, |x|, 1)
///   erf = sign(x) * fma(-exp(-x * x) * t, poly(t), 1)
///   gelu = fma(erf, 0.5 * s, 0.5 * s)
///
/// with `exp(v) = 2 * 2^(n-1) * q(v - n ln2)`, `n = floor(v log2(e) + 0.5)`,
/// q and poly degree-5 polynomials evaluated with fused multiply-adds. On
/// [-8, 8] it differs from `s * ((erff(s / sqrt(2)) + 1) * 0.5)` (qfx's
/// earlier GELU) on about half the inputs, by up to 3e-7 (see
/// docs/convert-and-lower.md). Equal to PyTorch's F.gelu on every finite
/// float32 (checked exhaustively against Debian's python3-torch, oneDNN
/// 2.6.3, on its AVX-512 and AVX2 kernels).
float geluAsPyTorch(float s);

/// Hardsigmoid and hardswish as QNNPACK's operators compute their tables
/// (pytorch_qnnp_create_hardsigmoid_nc_q8 / _hardswish_nc_q8, PyTorch's
/// qnnpack engine on quint8), before scaling to the output: in float32,
/// min(max(x + 3, 0), 6) / 6, times x for hardswish.
float hardsigmoidAsQnnpack(float x);
float hardswishAsQnnpack(float x);

} // namespace qfx

#endif // QFX_NUMERICS_ACTIVATIONS_H
