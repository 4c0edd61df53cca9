//===- FloatQParams.h - Weights with float zero points ------------*- C++
//-*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// A weight quantized per channel with float zero points
// (per_channel_affine_float_qparams: embeddings, float_qparams_weight_only
// qconfigs), which !quant.uniform cannot express. qfx-convert writes its
// dequantization as TOSA ops (buildFloatQParamsDequantize); qfx-lower
// recognizes exactly that form (matchFloatQParamsDequantize) to lower the
// ops that read the weight. Both live here so that they cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_FLOATQPARAMS_H
#define QFX_CONVERSION_FLOATQPARAMS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace qfx {

/// A weight with float zero points as qfx-convert stores it.
struct FloatQParamsWeight {
  /// The unsigned integers, `width` bits each, in the weight's shape.
  mlir::DenseIntElementsAttr storage;
  unsigned width = 8;
  /// The channel axis and, per channel, the scale and the float zero point.
  int64_t axis = 0;
  llvm::SmallVector<float> scales, zeroPoints;
};

/// The dequantization of `weight` as aten's dequantize computes it, in
/// float: (float(q) - zero_point) * scale per channel, as TOSA ops (the
/// integers a constant of their width, the sign extension of the cast to
/// i32 masked off).
mlir::Value buildFloatQParamsDequantize(mlir::OpBuilder &builder,
                                        mlir::Location loc,
                                        const FloatQParamsWeight &weight,
                                        mlir::RankedTensorType floatType);

/// The weight `value` dequantizes, if buildFloatQParamsDequantize wrote it.
std::optional<FloatQParamsWeight>
matchFloatQParamsDequantize(mlir::Value value);

} // namespace qfx

#endif // QFX_CONVERSION_FLOATQPARAMS_H
