//===- QuantToLinalg.cpp - Quantize/dequantize with PyTorch numerics ------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch 1.13 quantizes as aten's quantize_val does:
//   q = clamp(int64(zero_point + nearbyint(x * (1.0f / float(scale)))),
//             qmin, qmax)
// (float32 product, round half to even, the cast to int64 before the clamp).
// It dequantizes per tensor as float(int32(q - zero_point)) * float(scale),
// and per channel as double(float(q) - float(zero_point)) * double(scale)
// rounded to float. Fake quantization rounds (q - zero_point) * scale formed
// in double to float once. The patterns below emit exactly these operations,
// in this order (see also qfx/Numerics/Quantize.h, tested against aten).
//
//===----------------------------------------------------------------------===//

#include "qfx/Conversion/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace qfx {
#define GEN_PASS_DEF_QFXLOWERQUANTTOLINALG
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using mlir::Location;
using mlir::OpBuilder;
using mlir::PatternRewriter;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;
namespace linalg = mlir::linalg;
namespace quant = mlir::quant;
namespace tensor = mlir::tensor;

namespace {

/// Quantization parameters of a per-tensor or per-axis uniform type, as the
/// values a generic's body computes with. Per-axis parameters are 1-D
/// constant tensors indexed by the quantized dimension.
struct QParams {
  Value scale;     // f32 scalar, or tensor<Cxf32>.
  Value invScale;  // f32 scalar, or tensor<Cxf32>: 1.0f / float(scale).
  Value zeroPoint; // i64 scalar, or tensor<Cxi64>.
  /// Per axis only: the exact double scales (tensor<Cxf64>), which aten's
  /// per-channel dequantize multiplies by.
  Value scaleF64;
  std::optional<int64_t> axis;
  int64_t qmin, qmax;
  bool isSigned;
  unsigned storageWidth;
  /// oneDNN's reorder (a run-time f64 scale): round(fma(x, 1 / scale, zp)),
  /// the zero point added before the rounding.
  bool fusedZeroPoint = false;
};

/// Materializes the parameters of `qtype` at the builder's position, or
/// fails if `qtype` is not a uniform (per-tensor or per-axis) type.
mlir::FailureOr<QParams> getQParams(OpBuilder &b, Location loc,
                                    quant::QuantizedType qtype) {
  QParams params;
  params.qmin = qtype.getStorageTypeMin();
  params.qmax = qtype.getStorageTypeMax();
  params.isSigned = qtype.isSigned();
  params.storageWidth = qtype.getStorageTypeIntegralWidth();
  auto f32 = b.getF32Type();
  auto i64 = b.getI64Type();
  if (auto uniform = llvm::dyn_cast<quant::UniformQuantizedType>(qtype)) {
    float scale = static_cast<float>(uniform.getScale());
    params.scale = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale));
    params.invScale =
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f / scale));
    params.zeroPoint = arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(uniform.getZeroPoint()));
    return params;
  }
  auto perAxis = llvm::dyn_cast<quant::UniformQuantizedPerAxisType>(qtype);
  if (!perAxis)
    return mlir::failure();
  llvm::SmallVector<float> scales, invScales;
  for (double scale : perAxis.getScales()) {
    scales.push_back(static_cast<float>(scale));
    invScales.push_back(1.0f / static_cast<float>(scale));
  }
  auto channels = static_cast<int64_t>(scales.size());
  auto floatType = RankedTensorType::get({channels}, f32);
  params.scaleF64 = arith::ConstantOp::create(
      b, loc,
      mlir::DenseElementsAttr::get(
          RankedTensorType::get({channels}, b.getF64Type()),
          perAxis.getScales()));
  auto intType = RankedTensorType::get({channels}, i64);
  params.scale = arith::ConstantOp::create(
      b, loc, mlir::DenseElementsAttr::get(floatType, llvm::ArrayRef(scales)));
  params.invScale = arith::ConstantOp::create(
      b, loc,
      mlir::DenseElementsAttr::get(floatType, llvm::ArrayRef(invScales)));
  params.zeroPoint = arith::ConstantOp::create(
      b, loc, mlir::DenseElementsAttr::get(intType, perAxis.getZeroPoints()));
  params.axis = perAxis.getQuantizedDimension();
  return params;
}

/// The parameters of a `qfx.quantize` / `qfx.dequantize`: run-time 0-d
/// scale and zero-point tensors, read once before the generic.
QParams getRuntimeQParams(OpBuilder &b, Location loc, Value scaleTensor,
                          Value zeroPointTensor, mlir::IntegerType storage,
                          bool isSigned) {
  QParams params;
  params.scale = tensor::ExtractOp::create(b, loc, scaleTensor);
  // An f64 scale (PyTorch's double, for oneDNN's kernels): its reciprocal
  // in double, rounded to float, and the zero point added before rounding
  // (oneDNN's reorder); the scale rounded to float.
  Type scaleType = params.scale.getType();
  params.invScale = arith::DivFOp::create(
      b, loc, arith::ConstantOp::create(b, loc, b.getFloatAttr(scaleType, 1.0)),
      params.scale);
  if (!scaleType.isF32()) {
    params.fusedZeroPoint = true;
    params.invScale =
        arith::TruncFOp::create(b, loc, b.getF32Type(), params.invScale);
    params.scale =
        arith::TruncFOp::create(b, loc, b.getF32Type(), params.scale);
  }
  Value zeroPoint = tensor::ExtractOp::create(b, loc, zeroPointTensor);
  params.zeroPoint = arith::ExtSIOp::create(b, loc, b.getI64Type(), zeroPoint);
  unsigned width = storage.getWidth();
  params.isSigned = isSigned;
  params.storageWidth = width;
  params.qmin =
      isSigned ? llvm::APInt::getSignedMinValue(width).getSExtValue() : 0;
  params.qmax = isSigned ? llvm::APInt::getSignedMaxValue(width).getSExtValue()
                         : static_cast<int64_t>(
                               llvm::APInt::getMaxValue(width).getZExtValue());
  return params;
}

/// The per-element view of QParams inside a generic's body.
struct ElementQParams {
  Value scale, invScale, zeroPoint;
  /// Per axis only (see QParams::scaleF64).
  Value scaleF64;
};

/// Builds `linalg.generic` over `input` producing a tensor of `resultElement`
/// with the input's shape; `body` computes one element from the input
/// element and the (per-channel or scalar) quantization parameters.
using ElementBody = llvm::function_ref<Value(
    OpBuilder &, Location, Value element, const ElementQParams &params)>;

Value buildElementwise(OpBuilder &b, Location loc, Value input,
                       Type resultElement, const QParams &params,
                       ElementBody body) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  llvm::SmallVector<mlir::OpFoldResult> sizes =
      tensor::getMixedSizes(b, loc, input);
  Value init = tensor::EmptyOp::create(b, loc, sizes, resultElement);

  mlir::MLIRContext *context = b.getContext();
  auto identity = mlir::AffineMap::getMultiDimIdentityMap(rank, context);
  llvm::SmallVector<Value> inputs{input};
  llvm::SmallVector<mlir::AffineMap> maps{identity};
  if (params.axis) {
    auto channel = mlir::AffineMap::get(
        rank, 0, mlir::getAffineDimExpr(*params.axis, context));
    inputs.append(
        {params.scale, params.invScale, params.zeroPoint, params.scaleF64});
    maps.append({channel, channel, channel, channel});
  }
  maps.push_back(identity);
  llvm::SmallVector<mlir::utils::IteratorType> iterators(
      rank, mlir::utils::IteratorType::parallel);

  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, mlir::ValueRange args) {
        ElementQParams element =
            params.axis ? ElementQParams{args[1], args[2], args[3], args[4]}
                        : ElementQParams{params.scale, params.invScale,
                                         params.zeroPoint, Value()};
        Value result = body(nested, nestedLoc, args[0], element);
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

/// Converts a float element to f32 (PyTorch quantizes float32 values).
Value toF32(OpBuilder &b, Location loc, Value element) {
  auto type = llvm::cast<mlir::FloatType>(element.getType());
  if (type.isF32())
    return element;
  if (type.getWidth() < 32)
    return arith::ExtFOp::create(b, loc, b.getF32Type(), element);
  return arith::TruncFOp::create(b, loc, b.getF32Type(), element);
}

/// Converts an f32 result to the expressed float type.
Value fromF32(OpBuilder &b, Location loc, Value element, Type floatType) {
  auto type = llvm::cast<mlir::FloatType>(floatType);
  if (type.isF32())
    return element;
  if (type.getWidth() < 32)
    return arith::TruncFOp::create(b, loc, type, element);
  return arith::ExtFOp::create(b, loc, type, element);
}

/// int64(zero_point + nearbyint(x * inv_scale)) clamped to [qmin, qmax]:
/// aten's quantize_val. A value that does not fit in int64 (or NaN) converts
/// to INT64_MIN as x86's cvttss2si does, and so clamps to qmin; LLVM's
/// fptosi would make it poison, so the conversion is guarded.
Value quantizeToI64(OpBuilder &b, Location loc, Value x, Value invScale,
                    Value zeroPoint, const QParams &params) {
  auto f32 = b.getF32Type();
  auto i64 = b.getI64Type();
  Value shifted;
  if (params.fusedZeroPoint) {
    Value zeroPointF = arith::SIToFPOp::create(b, loc, f32, zeroPoint);
    shifted = mlir::math::RoundEvenOp::create(
        b, loc,
        mlir::math::FmaOp::create(b, loc, toF32(b, loc, x), invScale,
                                  zeroPointF));
  } else {
    Value scaled = arith::MulFOp::create(b, loc, toF32(b, loc, x), invScale);
    Value rounded = mlir::math::RoundEvenOp::create(b, loc, scaled);
    Value zeroPointF = arith::SIToFPOp::create(b, loc, f32, zeroPoint);
    shifted = arith::AddFOp::create(b, loc, rounded, zeroPointF);
  }
  Value magnitude = mlir::math::AbsFOp::create(b, loc, shifted);
  Value limit = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0x1p63f));
  Value fits = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                     magnitude, limit);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value safe = arith::SelectOp::create(b, loc, fits, shifted, zero);
  Value converted = arith::FPToSIOp::create(b, loc, i64, safe);
  Value int64Min = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(std::numeric_limits<int64_t>::min()));
  Value q = arith::SelectOp::create(b, loc, fits, converted, int64Min);
  Value qmin =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(params.qmin));
  Value qmax =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(params.qmax));
  q = arith::MaxSIOp::create(b, loc, q, qmin);
  return arith::MinSIOp::create(b, loc, q, qmax);
}

Value quantizeToStorage(OpBuilder &b, Location loc, Value x, Value invScale,
                        Value zeroPoint, const QParams &params) {
  Value q = quantizeToI64(b, loc, x, invScale, zeroPoint, params);
  if (params.storageWidth == 64)
    return q;
  return arith::TruncIOp::create(b, loc, b.getIntegerType(params.storageWidth),
                                 q);
}

/// aten's dequantize: per tensor float(int32(q - zero_point)) * scale; per
/// channel double(float(q) - float(zero_point)) * double scale, rounded.
Value dequantizeFromStorage(OpBuilder &b, Location loc, Value q,
                            const ElementQParams &element,
                            const QParams &params) {
  auto f32 = b.getF32Type();
  if (element.scaleF64) {
    Value value = params.isSigned
                      ? arith::SIToFPOp::create(b, loc, f32, q).getResult()
                      : arith::UIToFPOp::create(b, loc, f32, q).getResult();
    Value zeroPointF = arith::SIToFPOp::create(b, loc, f32, element.zeroPoint);
    Value centered = arith::SubFOp::create(b, loc, value, zeroPointF);
    Value wide = arith::ExtFOp::create(b, loc, b.getF64Type(), centered);
    Value product = arith::MulFOp::create(b, loc, wide, element.scaleF64);
    return arith::TruncFOp::create(b, loc, f32, product);
  }
  auto i32 = b.getI32Type();
  Value wide = q;
  if (params.storageWidth < 32)
    wide = params.isSigned ? arith::ExtSIOp::create(b, loc, i32, q).getResult()
                           : arith::ExtUIOp::create(b, loc, i32, q).getResult();
  else if (params.storageWidth > 32)
    wide = arith::TruncIOp::create(b, loc, i32, q);
  Value zeroPoint = arith::TruncIOp::create(b, loc, i32, element.zeroPoint);
  Value centered = arith::SubIOp::create(b, loc, wide, zeroPoint);
  Value value = arith::SIToFPOp::create(b, loc, f32, centered);
  return arith::MulFOp::create(b, loc, value, element.scale);
}

/// The signless integer tensor type that stores `type`'s elements.
RankedTensorType getSignlessType(RankedTensorType type, unsigned width) {
  return type.clone(mlir::IntegerType::get(type.getContext(), width));
}

struct LowerQuantizeCast : mlir::OpRewritePattern<quant::QuantizeCastOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(quant::QuantizeCastOp op,
                  PatternRewriter &rewriter) const override {
    auto resultType = llvm::dyn_cast<RankedTensorType>(op.getType());
    auto inputType = llvm::dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!resultType || !inputType)
      return rewriter.notifyMatchFailure(op, "expected ranked tensors");
    auto qtype = llvm::cast<quant::QuantizedType>(resultType.getElementType());
    Location loc = op.getLoc();
    mlir::FailureOr<QParams> params = getQParams(rewriter, loc, qtype);
    if (mlir::failed(params))
      return rewriter.notifyMatchFailure(op, "expected a uniform type");
    Value storage = buildElementwise(
        rewriter, loc, op.getInput(),
        rewriter.getIntegerType(params->storageWidth), *params,
        [&](OpBuilder &b, Location l, Value x, const ElementQParams &e) {
          return quantizeToStorage(b, l, x, e.invScale, e.zeroPoint, *params);
        });
    rewriter.replaceOpWithNewOp<quant::StorageCastOp>(op, resultType, storage);
    return mlir::success();
  }
};

struct LowerDequantizeCast : mlir::OpRewritePattern<quant::DequantizeCastOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(quant::DequantizeCastOp op,
                  PatternRewriter &rewriter) const override {
    auto inputType = llvm::dyn_cast<RankedTensorType>(op.getInput().getType());
    auto resultType = llvm::dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !inputType)
      return rewriter.notifyMatchFailure(op, "expected ranked tensors");
    auto qtype = llvm::cast<quant::QuantizedType>(inputType.getElementType());
    Location loc = op.getLoc();
    mlir::FailureOr<QParams> params = getQParams(rewriter, loc, qtype);
    if (mlir::failed(params))
      return rewriter.notifyMatchFailure(op, "expected a uniform type");
    Value storage = quant::StorageCastOp::create(
        rewriter, loc, getSignlessType(inputType, params->storageWidth),
        op.getInput());
    Type floatType = resultType.getElementType();
    Value result = buildElementwise(
        rewriter, loc, storage, floatType, *params,
        [&](OpBuilder &b, Location l, Value q, const ElementQParams &e) {
          return fromF32(b, l, dequantizeFromStorage(b, l, q, e, *params),
                         floatType);
        });
    rewriter.replaceOp(op, result);
    return mlir::success();
  }
};

struct LowerFakeQuant : mlir::OpRewritePattern<qfx::FakeQuantOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::FakeQuantOp op,
                  PatternRewriter &rewriter) const override {
    if (!llvm::isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "expected a ranked tensor");
    Location loc = op.getLoc();
    mlir::FailureOr<QParams> params = getQParams(
        rewriter, loc, llvm::cast<quant::QuantizedType>(op.getQtype()));
    if (mlir::failed(params))
      return rewriter.notifyMatchFailure(op, "expected a uniform type");
    Type floatType = op.getType().getElementType();
    Value result = buildElementwise(
        rewriter, loc, op.getInput(), floatType, *params,
        [&](OpBuilder &b, Location l, Value x, const ElementQParams &e) {
          // aten's fake quantize forms (q - zero_point) * scale in double
          // and rounds it to float once.
          Value q = quantizeToI64(b, l, x, e.invScale, e.zeroPoint, *params);
          Value centered = arith::SubIOp::create(b, l, q, e.zeroPoint);
          auto f64 = b.getF64Type();
          Value value = arith::SIToFPOp::create(b, l, f64, centered);
          Value scale = arith::ExtFOp::create(b, l, f64, e.scale);
          Value product = arith::MulFOp::create(b, l, value, scale);
          return fromF32(b, l,
                         arith::TruncFOp::create(b, l, b.getF32Type(), product),
                         floatType);
        });
    rewriter.replaceOp(op, result);
    return mlir::success();
  }
};

/// Unsigned element types (ui8) cannot flow through arith: compute on the
/// signless type of the same width and bitcast at the boundary.
Value bitcastIfUnsigned(OpBuilder &b, Location loc, Value value,
                        RankedTensorType to) {
  if (value.getType() == to)
    return value;
  return tensor::BitcastOp::create(b, loc, to, value);
}

struct LowerQuantize : mlir::OpRewritePattern<qfx::QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::QuantizeOp op,
                  PatternRewriter &rewriter) const override {
    auto resultType = llvm::dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !llvm::isa<RankedTensorType>(op.getInput().getType()))
      return rewriter.notifyMatchFailure(op, "expected ranked tensors");
    auto storage = llvm::cast<mlir::IntegerType>(resultType.getElementType());
    Location loc = op.getLoc();
    QParams params =
        getRuntimeQParams(rewriter, loc, op.getScale(), op.getZeroPoint(),
                          storage, !storage.isUnsigned());
    Value result = buildElementwise(
        rewriter, loc, op.getInput(),
        rewriter.getIntegerType(storage.getWidth()), params,
        [&](OpBuilder &b, Location l, Value x, const ElementQParams &e) {
          return quantizeToStorage(b, l, x, e.invScale, e.zeroPoint, params);
        });
    rewriter.replaceOp(op,
                       bitcastIfUnsigned(rewriter, loc, result, resultType));
    return mlir::success();
  }
};

struct LowerDequantize : mlir::OpRewritePattern<qfx::DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::DequantizeOp op,
                  PatternRewriter &rewriter) const override {
    auto inputType = llvm::dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!inputType || !llvm::isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "expected ranked tensors");
    auto storage = llvm::cast<mlir::IntegerType>(inputType.getElementType());
    Location loc = op.getLoc();
    QParams params =
        getRuntimeQParams(rewriter, loc, op.getScale(), op.getZeroPoint(),
                          storage, !storage.isUnsigned());
    Value input =
        bitcastIfUnsigned(rewriter, loc, op.getInput(),
                          getSignlessType(inputType, storage.getWidth()));
    Type floatType = op.getType().getElementType();
    Value result = buildElementwise(
        rewriter, loc, input, floatType, params,
        [&](OpBuilder &b, Location l, Value q, const ElementQParams &e) {
          return fromF32(b, l, dequantizeFromStorage(b, l, q, e, params),
                         floatType);
        });
    rewriter.replaceOp(op, result);
    return mlir::success();
  }
};

/// The minimum or maximum of all elements of `input` as an f32 scalar
/// (NaN-propagating, as torch.min / torch.max).
Value reduceAll(OpBuilder &b, Location loc, Value input, bool isMin) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  auto f32 = b.getF32Type();
  float start = isMin ? std::numeric_limits<float>::infinity()
                      : -std::numeric_limits<float>::infinity();
  Value init = tensor::EmptyOp::create(b, loc, llvm::ArrayRef<int64_t>{}, f32);
  Value startValue =
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(start));
  init = linalg::FillOp::create(b, loc, startValue, init).getResult(0);
  llvm::SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto reduce = linalg::ReduceOp::create(
      b, loc, input, init, dims,
      [&](OpBuilder &nested, Location l, mlir::ValueRange args) {
        Value element = toF32(nested, l, args[0]);
        Value result =
            isMin ? arith::MinimumFOp::create(nested, l, element, args[1])
                        .getResult()
                  : arith::MaximumFOp::create(nested, l, element, args[1])
                        .getResult();
        linalg::YieldOp::create(nested, l, result);
      });
  return tensor::ExtractOp::create(b, loc, reduce.getResult(0),
                                   mlir::ValueRange{});
}

/// aten's ChooseQuantizationParams (preserve_sparsity and
/// force_scale_power_of_two off), as quantize_per_tensor_dynamic uses it:
/// extend [min, max] to include 0, scale = (max - min) / (qmax - qmin) in
/// double, 0.1 if float(scale) is 0 or its float reciprocal infinite, raised
/// to 6.1e-5 (stretching min and max in float) if smaller, then the zero
/// point from whichever of (min, qmin) and (max, qmax) adds the smaller
/// terms, rounded half to even inside [qmin, qmax].
struct LowerChooseQParams : mlir::OpRewritePattern<qfx::ChooseQParamsOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult matchAndRewrite(qfx::ChooseQParamsOp op,
                                      PatternRewriter &b) const override {
    if (!llvm::isa<RankedTensorType>(op.getInput().getType()))
      return b.notifyMatchFailure(op, "expected a ranked tensor");
    Location loc = op.getLoc();
    auto f32 = b.getF32Type();
    auto f64 = b.getF64Type();
    auto cf32 = [&](float v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    auto cf64 = [&](double v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
    };
    auto select = [&](Value condition, Value yes, Value no) -> Value {
      return arith::SelectOp::create(b, loc, condition, yes, no);
    };
    auto cmpf = [&](arith::CmpFPredicate predicate, Value x, Value y) -> Value {
      return arith::CmpFOp::create(b, loc, predicate, x, y);
    };
    auto ext = [&](Value v) -> Value {
      return arith::ExtFOp::create(b, loc, f64, v);
    };
    auto trunc = [&](Value v) -> Value {
      return arith::TruncFOp::create(b, loc, f32, v);
    };
    auto mulf = [&](Value x, Value y) -> Value {
      return arith::MulFOp::create(b, loc, x, y);
    };
    auto divf = [&](Value x, Value y) -> Value {
      return arith::DivFOp::create(b, loc, x, y);
    };
    auto subf = [&](Value x, Value y) -> Value {
      return arith::SubFOp::create(b, loc, x, y);
    };
    auto absf = [&](Value x) -> Value {
      return mlir::math::AbsFOp::create(b, loc, x);
    };

    int64_t qmin = op.getQuantMin(), qmax = op.getQuantMax();
    auto range = static_cast<float>(qmax - qmin);
    constexpr float kSmallScale = 6.1e-5f;

    Value zero = cf32(0.0f);
    // std::min(min, 0.f) / std::max(max, 0.f).
    Value min = reduceAll(b, loc, op.getInput(), /*isMin=*/true);
    Value max = reduceAll(b, loc, op.getInput(), /*isMin=*/false);
    min = select(cmpf(arith::CmpFPredicate::OLT, zero, min), zero, min);
    max = select(cmpf(arith::CmpFPredicate::OLT, max, zero), zero, max);

    Value scale = divf(subf(ext(max), ext(min)), cf64(qmax - qmin));
    Value scaleF = trunc(scale);
    Value degenerate = arith::OrIOp::create(
        b, loc, cmpf(arith::CmpFPredicate::OEQ, scaleF, zero),
        cmpf(arith::CmpFPredicate::OEQ, absf(divf(cf32(1.0f), scaleF)),
             cf32(std::numeric_limits<float>::infinity())));
    scale = select(degenerate, cf64(0.1), scale);

    // Cut off small scales, stretching min and max in float.
    Value small =
        cmpf(arith::CmpFPredicate::OLT, scale, cf64(double(kSmallScale)));
    Value amplifier = divf(cf32(kSmallScale), trunc(scale));
    Value minIsZero = cmpf(arith::CmpFPredicate::OEQ, min, zero);
    Value maxIsZero = cmpf(arith::CmpFPredicate::OEQ, max, zero);
    Value smallMax = select(minIsZero, cf32(kSmallScale * range),
                            select(maxIsZero, max, mulf(max, amplifier)));
    Value smallMin = select(
        minIsZero, min,
        select(maxIsZero, cf32(-kSmallScale * range), mulf(min, amplifier)));
    min = select(small, smallMin, min);
    max = select(small, smallMax, max);
    scale = select(small, cf64(double(kSmallScale)), scale);

    // The zero point from the pair whose terms are smaller.
    Value minOverScale = divf(ext(min), scale);
    Value maxOverScale = divf(ext(max), scale);
    Value fromMin = subf(cf64(qmin), minOverScale);
    Value fromMax = subf(cf64(qmax), maxOverScale);
    Value fromMinError = subf(cf64(std::abs(double(qmin))), absf(minOverScale));
    Value fromMaxError = subf(cf64(std::abs(double(qmax))), absf(maxOverScale));
    Value initial =
        select(cmpf(arith::CmpFPredicate::OLT, fromMinError, fromMaxError),
               fromMin, fromMax);
    Value rounded = mlir::math::RoundEvenOp::create(b, loc, initial);
    Value nudged =
        select(cmpf(arith::CmpFPredicate::OLT, initial, cf64(qmin)), cf64(qmin),
               select(cmpf(arith::CmpFPredicate::OGT, initial, cf64(qmax)),
                      cf64(qmax), rounded));
    Value zeroPoint = arith::FPToSIOp::create(b, loc, b.getI32Type(), nudged);

    // An f64 result is PyTorch's double scale itself.
    auto scaleType = llvm::cast<RankedTensorType>(op.getScale().getType());
    Value scaleTensor = tensor::FromElementsOp::create(
        b, loc, scaleType,
        mlir::ValueRange{scaleType.getElementType().isF64() ? scale
                                                            : trunc(scale)});
    Value zeroPointTensor = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({}, b.getI32Type()),
        mlir::ValueRange{zeroPoint});
    b.replaceOp(op, {scaleTensor, zeroPointTensor});
    return mlir::success();
  }
};

/// scast(scast(x)) with x of the result's type is x: the storage casts the
/// patterns above leave between a quantize and a dequantize cancel.
struct FoldStorageCastPair : mlir::OpRewritePattern<quant::StorageCastOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(quant::StorageCastOp op,
                  PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<quant::StorageCastOp>();
    if (!producer || producer.getInput().getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "not an inverse pair");
    rewriter.replaceOp(op, producer.getInput());
    return mlir::success();
  }
};

bool isQuantized(Type type) {
  if (auto shaped = llvm::dyn_cast<mlir::ShapedType>(type))
    type = shaped.getElementType();
  return llvm::isa<quant::QuantizedType>(type);
}

struct QFXLowerQuantToLinalgPass
    : qfx::impl::QFXLowerQuantToLinalgBase<QFXLowerQuantToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<LowerQuantizeCast, LowerDequantizeCast, LowerFakeQuant,
                 LowerQuantize, LowerDequantize, LowerChooseQParams,
                 FoldStorageCastPair>(&getContext());
    // No folding: quant.dcast folds dcast(qcast(x)) to x, which would erase
    // the very rounding a reference model exists to show.
    mlir::GreedyRewriteConfig config;
    config.enableFolding(false);
    if (mlir::failed(mlir::applyPatternsGreedily(getOperation(),
                                                 std::move(patterns), config)))
      return signalPassFailure();

    // Everything quantized must be gone; say where it is not.
    mlir::WalkResult result = getOperation()->walk([](mlir::Operation *op) {
      for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                                op->getResultTypes())) {
        if (!isQuantized(type))
          continue;
        op->emitError() << "cannot lower a quantized " << type
                        << " here: only quant.qcast, quant.dcast and storage "
                           "casts between them are lowered";
        return mlir::WalkResult::interrupt();
      }
      return mlir::WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
