//===- Quantize.cpp - Quantize, dequantize and fake-quantize --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The formulas follow aten/src/ATen/native/quantized/AffineQuantizerBase.cpp
// and the CPU kernels in quantized/cpu/kernels/QuantizedOpKernels.cpp of
// PyTorch 1.13 as built without FBGEMM (Debian's build): every intermediate is
// rounded to the type aten rounds it to. This file is compiled with
// -ffp-contract=off so that no multiply-add is fused.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/Quantize.h"

#include "ChannelLayout.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace qfx;

/// float -> int64 as x86's cvttss2si does: out-of-range values and NaN give
/// INT64_MIN (C++ leaves them undefined).
static int64_t truncToInt64(float v) {
  constexpr float kTwo63 = 9223372036854775808.0f;
  if (!(v >= -kTwo63 && v < kTwo63))
    return INT64_MIN;
  return static_cast<int64_t>(v);
}

/// lrintf as x86's cvtss2si: out-of-range values and NaN give INT64_MIN.
static int64_t roundToInt64(float v) { return truncToInt64(std::nearbyint(v)); }

static int64_t clampTo(int64_t v, QuantRange range) {
  return std::min(std::max(v, range.min), range.max);
}

int64_t qfx::quantizeValue(float value, double scale, int64_t zeroPoint,
                           QuantRange range) {
  float invScale = 1.0f / static_cast<float>(scale);
  float scaled = value * invScale;
  float rounded = std::nearbyint(scaled);
  float shifted = static_cast<float>(zeroPoint) + rounded;
  return clampTo(truncToInt64(shifted), range);
}

int64_t qfx::quantizeValueFloatQParams(float value, float scale,
                                       float zeroPoint, QuantRange range) {
  float invScale = scale == 0 ? 1.0f : 1.0f / scale;
  float scaled = value * invScale;
  float shifted = scaled + zeroPoint;
  return clampTo(roundToInt64(shifted), range);
}

float qfx::dequantizeValue(int64_t q, double scale, int64_t zeroPoint) {
  int32_t centered = static_cast<int32_t>(static_cast<uint32_t>(q) -
                                          static_cast<uint32_t>(zeroPoint));
  return static_cast<float>(centered) * static_cast<float>(scale);
}

float qfx::dequantizeValueFma(int64_t q, float scale, int64_t zeroPoint) {
  float premultiplied = scale * -static_cast<float>(zeroPoint);
  return std::fma(scale, static_cast<float>(q), premultiplied);
}

float qfx::dequantizeValuePerChannel(int64_t q, double scale,
                                     int64_t zeroPoint) {
  float centered = static_cast<float>(q) - static_cast<float>(zeroPoint);
  return static_cast<float>(static_cast<double>(centered) * scale);
}

float qfx::dequantizeValueFloatQParams(int64_t q, float scale,
                                       float zeroPoint) {
  float centered = static_cast<float>(q) - zeroPoint;
  return centered * scale;
}

float qfx::fakeQuantizeValue(float value, float scale, int64_t zeroPoint,
                             QuantRange range) {
  float invScale = 1.0f / scale;
  float scaled = value * invScale;
  float rounded = std::nearbyint(scaled);
  float shifted = static_cast<float>(zeroPoint) + rounded;
  int64_t q = truncToInt64(shifted);
  // std::fmin/std::fmax on int64 operands compute in double.
  double clamped = std::fmin(
      std::fmax(static_cast<double>(q), static_cast<double>(range.min)),
      static_cast<double>(range.max));
  double centered = clamped - static_cast<double>(zeroPoint);
  return static_cast<float>(centered * static_cast<double>(scale));
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::Error checkRange(QuantRange range) {
  if (range.min > range.max)
    return makeError(llvm::formatv("expected quant_min <= quant_max, got "
                                   "[{0}, {1}]",
                                   range.min, range.max));
  return llvm::Error::success();
}

static llvm::Error checkScaleAndZeroPoint(double scale, int64_t zeroPoint,
                                          QuantRange range,
                                          const llvm::Twine &where) {
  if (!(std::isfinite(scale) && static_cast<float>(scale) > 0))
    return makeError(where + llvm::formatv(": expected a finite scale > 0, "
                                           "got {0}",
                                           scale));
  if (zeroPoint < range.min || zeroPoint > range.max)
    return makeError(where + llvm::formatv(": zero point {0} is outside the "
                                           "quantized range [{1}, {2}]",
                                           zeroPoint, range.min, range.max));
  return llvm::Error::success();
}

static llvm::Error checkSizes(size_t in, size_t out) {
  if (in != out)
    return makeError(
        llvm::formatv("input has {0} elements but output has {1}", in, out));
  return llvm::Error::success();
}

/// The checks every per-tensor entry point makes: sizes, range, scale and
/// zero point; `what` names the operation in errors.
static llvm::Error checkPerTensor(size_t in, size_t out,
                                  const AffineQParams &qparams,
                                  llvm::StringRef what) {
  if (llvm::Error err = checkSizes(in, out))
    return err;
  if (llvm::Error err = checkRange(qparams.range))
    return err;
  return checkScaleAndZeroPoint(qparams.scale, qparams.zeroPoint, qparams.range,
                                what);
}

llvm::Error qfx::quantizePerTensor(llvm::ArrayRef<float> input,
                                   const AffineQParams &qparams,
                                   llvm::MutableArrayRef<int32_t> output) {
  if (llvm::Error err =
          checkPerTensor(input.size(), output.size(), qparams, "quantize"))
    return err;
  for (size_t i = 0, e = input.size(); i < e; ++i)
    output[i] = static_cast<int32_t>(quantizeValue(
        input[i], qparams.scale, qparams.zeroPoint, qparams.range));
  return llvm::Error::success();
}

llvm::Error qfx::dequantizePerTensor(llvm::ArrayRef<int32_t> input,
                                     const AffineQParams &qparams,
                                     llvm::MutableArrayRef<float> output) {
  if (llvm::Error err =
          checkPerTensor(input.size(), output.size(), qparams, "dequantize"))
    return err;
  for (size_t i = 0, e = input.size(); i < e; ++i)
    output[i] = dequantizeValue(input[i], qparams.scale, qparams.zeroPoint);
  return llvm::Error::success();
}

llvm::Error qfx::fakeQuantizePerTensor(llvm::ArrayRef<float> input,
                                       const AffineQParams &qparams,
                                       llvm::MutableArrayRef<float> output) {
  if (llvm::Error err =
          checkPerTensor(input.size(), output.size(), qparams, "fake-quantize"))
    return err;
  float scale = static_cast<float>(qparams.scale);
  for (size_t i = 0, e = input.size(); i < e; ++i)
    output[i] =
        fakeQuantizeValue(input[i], scale, qparams.zeroPoint, qparams.range);
  return llvm::Error::success();
}

/// Checks per-channel qparams against the tensor and returns its layout.
static llvm::Expected<detail::ChannelLayout>
checkPerChannel(size_t inSize, size_t outSize, llvm::ArrayRef<int64_t> shape,
                const PerChannelQParams &qparams, const llvm::Twine &what,
                bool allowFloatZeroPoints) {
  if (llvm::Error err = checkSizes(inSize, outSize))
    return std::move(err);
  if (llvm::Error err = checkRange(qparams.range))
    return std::move(err);
  auto layout = detail::getChannelLayout(shape, qparams.axis, inSize);
  if (!layout)
    return layout.takeError();
  bool floatZeroPoints = !qparams.floatZeroPoints.empty();
  if (floatZeroPoints && !allowFloatZeroPoints)
    return makeError(what + ": float zero points are not supported");
  if (floatZeroPoints == !qparams.zeroPoints.empty())
    return makeError(what + ": expected either integer or float zero points");
  size_t numZeroPoints = floatZeroPoints ? qparams.floatZeroPoints.size()
                                         : qparams.zeroPoints.size();
  size_t channels = static_cast<size_t>(layout->channels);
  if (qparams.scales.size() != channels || numZeroPoints != channels)
    return makeError(what + llvm::formatv(": {0} channels along axis {1} but "
                                          "{2} scales and {3} zero points",
                                          channels, qparams.axis,
                                          qparams.scales.size(),
                                          numZeroPoints));
  for (size_t c = 0; c < channels; ++c) {
    if (floatZeroPoints) {
      if (!(std::isfinite(qparams.scales[c]) && qparams.scales[c] >= 0))
        return makeError(what + llvm::formatv(": channel {0}: expected a "
                                              "finite scale >= 0, got {1}",
                                              c, qparams.scales[c]));
      continue;
    }
    if (llvm::Error err = checkScaleAndZeroPoint(
            qparams.scales[c], qparams.zeroPoints[c], qparams.range,
            what + llvm::formatv(": channel {0}", c)))
      return std::move(err);
  }
  return layout;
}

/// Applies `fn(value, channel)` over a tensor viewed as [outer, C, inner].
template <typename In, typename Out, typename Fn>
static void forEachChannel(const detail::ChannelLayout &layout, const In *in,
                           Out *out, Fn fn) {
  int64_t i = 0;
  for (int64_t o = 0; o < layout.outer; ++o)
    for (int64_t c = 0; c < layout.channels; ++c)
      for (int64_t k = 0; k < layout.inner; ++k, ++i)
        out[i] = fn(in[i], c);
}

llvm::Error qfx::quantizePerChannel(llvm::ArrayRef<float> input,
                                    llvm::ArrayRef<int64_t> shape,
                                    const PerChannelQParams &qparams,
                                    llvm::MutableArrayRef<int32_t> output) {
  auto layout = checkPerChannel(input.size(), output.size(), shape, qparams,
                                "quantize", /*allowFloatZeroPoints=*/true);
  if (!layout)
    return layout.takeError();
  QuantRange range = qparams.range;
  if (!qparams.floatZeroPoints.empty()) {
    // aten keeps float qparams as float tensors.
    llvm::SmallVector<float> scales(qparams.scales.begin(),
                                    qparams.scales.end());
    forEachChannel(*layout, input.data(), output.data(),
                   [&](float x, int64_t c) {
                     return static_cast<int32_t>(quantizeValueFloatQParams(
                         x, scales[c], qparams.floatZeroPoints[c], range));
                   });
    return llvm::Error::success();
  }
  forEachChannel(*layout, input.data(), output.data(), [&](float x, int64_t c) {
    return static_cast<int32_t>(
        quantizeValue(x, qparams.scales[c], qparams.zeroPoints[c], range));
  });
  return llvm::Error::success();
}

llvm::Error qfx::dequantizePerChannel(llvm::ArrayRef<int32_t> input,
                                      llvm::ArrayRef<int64_t> shape,
                                      const PerChannelQParams &qparams,
                                      llvm::MutableArrayRef<float> output) {
  auto layout = checkPerChannel(input.size(), output.size(), shape, qparams,
                                "dequantize", /*allowFloatZeroPoints=*/true);
  if (!layout)
    return layout.takeError();
  if (!qparams.floatZeroPoints.empty()) {
    forEachChannel(*layout, input.data(), output.data(),
                   [&](int32_t q, int64_t c) {
                     return dequantizeValueFloatQParams(
                         q, static_cast<float>(qparams.scales[c]),
                         qparams.floatZeroPoints[c]);
                   });
    return llvm::Error::success();
  }
  forEachChannel(*layout, input.data(), output.data(),
                 [&](int32_t q, int64_t c) {
                   return dequantizeValuePerChannel(q, qparams.scales[c],
                                                    qparams.zeroPoints[c]);
                 });
  return llvm::Error::success();
}

llvm::Error qfx::fakeQuantizePerChannel(llvm::ArrayRef<float> input,
                                        llvm::ArrayRef<int64_t> shape,
                                        const PerChannelQParams &qparams,
                                        llvm::MutableArrayRef<float> output) {
  auto layout =
      checkPerChannel(input.size(), output.size(), shape, qparams,
                      "fake-quantize", /*allowFloatZeroPoints=*/false);
  if (!layout)
    return layout.takeError();
  forEachChannel(*layout, input.data(), output.data(), [&](float x, int64_t c) {
    return fakeQuantizeValue(x, static_cast<float>(qparams.scales[c]),
                             qparams.zeroPoints[c], qparams.range);
  });
  return llvm::Error::success();
}
