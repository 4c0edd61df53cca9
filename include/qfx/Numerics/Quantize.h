//===- Quantize.h - Quantize, dequantize and fake-quantize ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Affine quantization of float32 values with PyTorch 1.13's CPU arithmetic,
// bit for bit (see docs/Numerics.md):
//
//   quantize:      q = clamp(int(float(zp) + nearbyint(x * (1.0f / scale))),
//                            qmin, qmax)
//   dequantize:    x = float(int32(q - zp)) * float(scale)   (per tensor)
//                  x = float(double(float(q) - float(zp)) * scale)
//                                                           (per channel)
//   fake-quantize: x = float((double(clamp(q, qmin, qmax)) - zp) * scale)
//
// with rounding half to even, as aten's quantize_val, dequantize kernels and
// fake_quantize_tensor_cachemask_kernel compute them. Per-channel variants
// take a tensor shape and a channel axis. Pure C++ (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_NUMERICS_QUANTIZE_H
#define QFX_NUMERICS_QUANTIZE_H

#include "qfx/Numerics/QuantTypes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace qfx {

/// Quantizes one value as aten's quantize_val: multiplies by the float
/// reciprocal of float(scale), rounds half to even, adds the zero point in
/// float, converts to an integer and clamps to `range`. A value whose scaled
/// magnitude does not fit in int64 (or NaN) converts as x86 does, to INT64_MIN,
/// and so clamps to range.min.
int64_t quantizeValue(float value, double scale, int64_t zeroPoint,
                      QuantRange range);

/// Quantizes one value with a float zero point, as aten's
/// quantize_val_float_qparams (per_channel_affine_float_qparams):
/// lrintf(value * (1.0f / scale) + zeroPoint), clamped to `range`.
int64_t quantizeValueFloatQParams(float value, float scale, float zeroPoint,
                                  QuantRange range);

/// Dequantizes one value as aten's per-tensor kernel: q - zeroPoint in int32
/// (wrapping, which matters only for qint32 extremes), converted to float and
/// multiplied by float(scale).
float dequantizeValue(int64_t q, double scale, int64_t zeroPoint);

/// Dequantizes one stored value (a quint8's 0..255, a qint8's -128..127) as
/// aten's vectorized x86 kernels do (Vectorized<quint8/qint8>::dequantize,
/// AVX2 and AVX-512): fma(scale, q, scale * -zeroPoint) in float32, the
/// product with the zero point rounded first.
float dequantizeValueFma(int64_t q, float scale, int64_t zeroPoint);

/// Dequantizes one value as aten's per-channel kernel: float(q) -
/// float(zeroPoint) in float, multiplied by the double scale in double, then
/// rounded to float.
float dequantizeValuePerChannel(int64_t q, double scale, int64_t zeroPoint);

/// Dequantizes one value with a float zero point: (float(q) - zeroPoint) *
/// scale in float.
float dequantizeValueFloatQParams(int64_t q, float scale, float zeroPoint);

/// Fake-quantizes one value as aten's fake_quantize_tensor_cachemask_kernel.
/// It differs from dequantize(quantize(x)): the clamp is to `range` in double
/// and the product (q - zeroPoint) * scale is formed in double, then rounded
/// to float once.
float fakeQuantizeValue(float value, float scale, int64_t zeroPoint,
                        QuantRange range);

/// The per-tensor quantization parameters of an affine scheme.
struct AffineQParams {
  double scale;
  int64_t zeroPoint;
  /// The clamp range: a dtype's full range (getDTypeRange) for
  /// torch.quantize_per_tensor, or a custom [quant_min, quant_max].
  QuantRange range;
};

/// Quantizes `input` into `output` (same size). Fails if the sizes differ, the
/// scale is not finite and positive, or the zero point is outside the range.
llvm::Error quantizePerTensor(llvm::ArrayRef<float> input,
                              const AffineQParams &qparams,
                              llvm::MutableArrayRef<int32_t> output);

/// Dequantizes `input` into `output` (same size).
llvm::Error dequantizePerTensor(llvm::ArrayRef<int32_t> input,
                                const AffineQParams &qparams,
                                llvm::MutableArrayRef<float> output);

/// Fake-quantizes `input` into `output` (same size), as
/// torch.fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min,
/// quant_max) with the scale rounded to float first.
llvm::Error fakeQuantizePerTensor(llvm::ArrayRef<float> input,
                                  const AffineQParams &qparams,
                                  llvm::MutableArrayRef<float> output);

/// The per-channel quantization parameters along one axis of a tensor.
/// Exactly one of zeroPoints (per_channel_affine / per_channel_symmetric) and
/// floatZeroPoints (per_channel_affine_float_qparams) is non-empty.
struct PerChannelQParams {
  llvm::ArrayRef<double> scales;
  llvm::ArrayRef<int64_t> zeroPoints;
  llvm::ArrayRef<float> floatZeroPoints;
  /// The channel axis; negative counts from the last dimension.
  int64_t axis;
  QuantRange range;
};

/// Quantizes `input`, a row-major tensor of `shape`, channel by channel along
/// qparams.axis (torch.quantize_per_channel). Fails on a size, axis or
/// channel-count mismatch.
llvm::Error quantizePerChannel(llvm::ArrayRef<float> input,
                               llvm::ArrayRef<int64_t> shape,
                               const PerChannelQParams &qparams,
                               llvm::MutableArrayRef<int32_t> output);

/// Dequantizes a per-channel quantized tensor.
llvm::Error dequantizePerChannel(llvm::ArrayRef<int32_t> input,
                                 llvm::ArrayRef<int64_t> shape,
                                 const PerChannelQParams &qparams,
                                 llvm::MutableArrayRef<float> output);

/// Fake-quantizes channel by channel, as
/// torch.fake_quantize_per_channel_affine with int32 zero points (scales are
/// rounded to float first). Float zero points are not supported.
llvm::Error fakeQuantizePerChannel(llvm::ArrayRef<float> input,
                                   llvm::ArrayRef<int64_t> shape,
                                   const PerChannelQParams &qparams,
                                   llvm::MutableArrayRef<float> output);

} // namespace qfx

#endif // QFX_NUMERICS_QUANTIZE_H
