//===- ObserveToQuant.cpp - Observers to quantize/dequantize --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/BackendConfig.h"
#include "qfx/Conversion/FloatQParams.h"
#include "qfx/Conversion/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Numerics/Observer.h"
#include "qfx/Numerics/Quantize.h"
#include "qfx/Support/DenseValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <map>

namespace qfx {
#define GEN_PASS_DEF_QFXCONVERT
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using mlir::Location;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
namespace quant = mlir::quant;
using namespace qfx;

namespace {

/// The float values of a constant tensor, if `value` is one.
std::optional<std::vector<float>> getConstantValues(Value value) {
  mlir::DenseElementsAttr elements;
  if (!mlir::matchPattern(value, mlir::m_Constant(&elements)) ||
      !elements.getElementType().isF32())
    return std::nullopt;
  auto values = elements.getValues<float>();
  return std::vector<float>(values.begin(), values.end());
}

/// The storage integer type and signedness of a quantized dtype.
std::pair<unsigned, bool> getStorage(DType dtype) {
  switch (dtype) {
  case DType::QInt8:
    return {8, true};
  case DType::QInt32:
    return {32, true};
  case DType::QUInt4x2:
    return {4, false};
  default:
    return {8, false};
  }
}

/// The !quant.uniform type of `qparams` for elements of `expressed`, over a
/// tensor of rank `rank`. The storage range is the dtype's full range: the
/// range PyTorch's quantize_per_tensor / quantize_per_channel clamp to.
quant::QuantizedType getQuantizedType(const QParams &qparams, Type expressed,
                                      int64_t rank) {
  auto [width, isSigned] = getStorage(qparams.dtype);
  QuantRange full = getDTypeRange(qparams.dtype);
  auto storage = mlir::IntegerType::get(expressed.getContext(), width);
  unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
  if (!isPerChannel(qparams.qscheme))
    return quant::UniformQuantizedType::get(
        flags, storage, expressed, qparams.scales.front(),
        qparams.zeroPoints.front(), full.min, full.max);
  llvm::SmallVector<double> scales(qparams.scales.begin(),
                                   qparams.scales.end());
  int64_t axis = qparams.chAxis < 0 ? qparams.chAxis + rank : qparams.chAxis;
  return quant::UniformQuantizedPerAxisType::get(flags, storage, expressed,
                                                 scales, qparams.zeroPoints,
                                                 axis, full.min, full.max);
}

/// What the first op of an observer id decided, for the ops that share it.
struct SharedObserver {
  ObserverSpecAttr spec;
  mlir::Attribute stats;
  QParams qparams;
};
using SharedObservers = std::map<int64_t, SharedObserver>;

struct QFXConvertPass : qfx::impl::QFXConvertBase<QFXConvertPass> {
  using Base::Base;

  /// Whether dynamically quantized activations get a 7-bit range: the
  /// option, else what the engine of the backend the model was prepared for
  /// does.
  bool reducesDynamicRange = true;
  /// Whether dynamic scales are PyTorch's doubles (oneDNN's kernels take
  /// their reciprocals from them), not floats: the module's engine's, else
  /// its backend's requantization is onednn (as unnamed: the default
  /// reduced range is onednn's too).
  bool doubleDynamicScales = false;

  mlir::LogicalResult initialize(mlir::MLIRContext *context) override {
    if (dynamicReduceRange.empty() || dynamicReduceRange == "true" ||
        dynamicReduceRange == "false")
      return mlir::success();
    return mlir::emitError(mlir::UnknownLoc::get(context))
           << "qfx-convert: dynamic-reduce-range '" << dynamicReduceRange
           << "' is neither true nor false";
  }

  void runOnOperation() override {
    reducesDynamicRange = dynamicReduceRange != "false";
    if (dynamicReduceRange.empty())
      if (std::optional<llvm::StringRef> engine =
              QFXDialect::getEngineName(getOperation()))
        reducesDynamicRange = getEngineTraits(*engine).reducesDynamicRange;
    std::optional<llvm::StringRef> engine =
        QFXDialect::getEngineName(getOperation());
    auto backend = getOperation()->getAttrOfType<mlir::StringAttr>(
        QFXDialect::getBackendAttrName());
    doubleDynamicScales = getEngineTraits(engine    ? *engine
                                          : backend ? backend.getValue()
                                                    : llvm::StringRef("onednn"))
                              .requantization == "onednn";
    llvm::SmallVector<ObserveOp> observers;
    getOperation().walk([&](ObserveOp op) { observers.push_back(op); });
    SharedObservers shared;
    for (ObserveOp op : observers)
      if (mlir::failed(convert(op, shared)))
        return signalPassFailure();
  }

  mlir::LogicalResult convert(ObserveOp op, SharedObservers &shared) {
    const ObserverSpec &spec = op.getSpec().getSpec();
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = llvm::cast<mlir::ShapedType>(input.getType());

    switch (spec.kind) {
    case ObserverKind::ReuseInput:
      return replace(op, input);
    case ObserverKind::Placeholder:
      if (spec.computeDType && isQuantizedDType(spec.getDType()))
        return convertDynamic(op, builder);
      [[fallthrough]];
    case ObserverKind::Noop: {
      DType dtype = spec.getDType();
      if (dtype == DType::Float32)
        return replace(op, input);
      if (dtype != DType::Float16)
        return op.emitOpError()
               << "a " << stringifyObserverKind(spec.kind)
               << " observer of dtype " << stringifyDType(dtype)
               << " has nothing to convert to; expected float16 or float32";
      // PyTorch's float16 reference: x.to(float16), then back to float.
      Value half = mlir::tosa::CastOp::create(
          builder, loc, type.clone(builder.getF16Type()), input);
      return replace(op, mlir::tosa::CastOp::create(builder, loc, type, half));
    }
    default:
      break;
    }

    std::optional<std::vector<float>> constant = getConstantValues(input);
    mlir::FailureOr<QParams> qparams = getQParams(op, constant, shared);
    if (mlir::failed(qparams))
      return mlir::failure();
    auto tensorType = llvm::dyn_cast<RankedTensorType>(type);
    if (!tensorType)
      return op.emitOpError() << "expected a ranked tensor to quantize";
    if (!qparams->floatZeroPoints.empty()) {
      if (!constant)
        return op.emitOpError() << "per_channel_affine_float_qparams is "
                                   "supported for constant weights only";
      return convertFloatQParams(op, builder, *constant, *qparams, tensorType);
    }
    quant::QuantizedType qtype = getQuantizedType(
        *qparams, tensorType.getElementType(), tensorType.getRank());
    auto quantizedTensor = tensorType.clone(qtype);

    Value quantized;
    mlir::Operation *floatConstant = nullptr;
    if (constant) {
      mlir::FailureOr<Value> storage =
          quantizeConstant(builder, op, *constant, *qparams, tensorType);
      if (mlir::failed(storage))
        return mlir::failure();
      quantized =
          quant::StorageCastOp::create(builder, loc, quantizedTensor, *storage);
      floatConstant = input.getDefiningOp();
    } else {
      quantized =
          quant::QuantizeCastOp::create(builder, loc, quantizedTensor, input);
    }
    (void)replace(
        op, quant::DequantizeCastOp::create(builder, loc, type, quantized));
    // The integer constant replaces the float one unless something else
    // still reads it.
    if (floatConstant && floatConstant->use_empty())
      floatConstant->erase();
    return mlir::success();
  }

  /// A weight with float zero points (per_channel_affine_float_qparams,
  /// which !quant.uniform cannot express): the integers as a constant of the
  /// storage width, dequantized by TOSA ops as aten does
  /// (buildFloatQParamsDequantize).
  mlir::LogicalResult convertFloatQParams(ObserveOp op, OpBuilder &builder,
                                          llvm::ArrayRef<float> values,
                                          const QParams &qparams,
                                          RankedTensorType type) {
    mlir::FailureOr<Value> storage =
        quantizeConstant(builder, op, values, qparams, type);
    if (mlir::failed(storage))
      return mlir::failure();
    FloatQParamsWeight weight;
    if (!mlir::matchPattern(*storage, mlir::m_Constant(&weight.storage)))
      return op.emitOpError() << "expected the quantized weight to fold";
    weight.width = getStorage(qparams.dtype).first;
    weight.axis =
        qparams.chAxis < 0 ? qparams.chAxis + type.getRank() : qparams.chAxis;
    weight.scales.assign(qparams.scales.begin(), qparams.scales.end());
    weight.zeroPoints.assign(qparams.floatZeroPoints.begin(),
                             qparams.floatZeroPoints.end());
    storage->getDefiningOp()->erase();
    mlir::Operation *floatConstant = op.getInput().getDefiningOp();
    (void)replace(
        op, buildFloatQParamsDequantize(builder, op.getLoc(), weight, type));
    if (floatConstant && floatConstant->use_empty())
      floatConstant->erase();
    return mlir::success();
  }

  /// quantize_per_tensor_dynamic(x, dtype, reduce_range), then dequantize.
  mlir::LogicalResult convertDynamic(ObserveOp op, OpBuilder &builder) {
    DType dtype = op.getSpec().getSpec().getDType();
    if (dtype != DType::QUInt8 && dtype != DType::QInt8)
      return op.emitOpError()
             << "dynamic quantization to " << stringifyDType(dtype)
             << " is not supported; PyTorch quantizes activations "
                "dynamically to quint8 or qint8";
    QuantRange range = getDTypeRange(dtype);
    if (reducesDynamicRange) {
      // C++'s division, as aten's ChooseQuantizationParams halves them.
      range.min /= 2;
      range.max /= 2;
    }
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = llvm::cast<mlir::ShapedType>(input.getType());
    Type scaleType =
        doubleDynamicScales ? builder.getF64Type() : builder.getF32Type();
    auto choose = ChooseQParamsOp::create(
        builder, loc, RankedTensorType::get({}, scaleType),
        RankedTensorType::get({}, builder.getI32Type()), input,
        builder.getI64IntegerAttr(range.min),
        builder.getI64IntegerAttr(range.max));
    Type storage = dtype == DType::QUInt8
                       ? builder.getIntegerType(8, /*isSigned=*/false)
                       : builder.getIntegerType(8);
    Value quantized =
        QuantizeOp::create(builder, loc, type.clone(storage), input,
                           choose.getScale(), choose.getZeroPoint());
    return replace(op, DequantizeOp::create(builder, loc, type, quantized,
                                            choose.getScale(),
                                            choose.getZeroPoint()));
  }

  static mlir::LogicalResult replace(ObserveOp op, Value value) {
    op.replaceAllUsesWith(value);
    op.erase();
    return mlir::success();
  }

  /// The qparams of `op`'s observer: from its statistics, from the constant
  /// it observes, or (fixed_qparams) from its arguments. Ops of one id must
  /// agree.
  mlir::FailureOr<QParams>
  getQParams(ObserveOp op, const std::optional<std::vector<float>> &constant,
             SharedObservers &shared) {
    const ObserverSpec &spec = op.getSpec().getSpec();
    auto first = shared.find(op.getId());
    if (first != shared.end()) {
      if (first->second.spec != op.getSpec() ||
          first->second.stats != op.getStatsAttr())
        return op.emitOpError()
               << "shares id " << op.getId()
               << " with an observer whose spec or statistics differ";
      return first->second.qparams;
    }

    llvm::Expected<Observer> observer = Observer::create(spec);
    if (!observer)
      return op.emitOpError() << llvm::toString(observer.takeError());
    if (std::optional<mlir::Attribute> stats = op.getStats()) {
      if (llvm::Error err = observer->setState(getObserverState(*stats)))
        return op.emitOpError() << llvm::toString(std::move(err));
    } else if (constant && isCalibratingObserver(spec.kind)) {
      // PyTorch's convert runs a weight observer that saw nothing on its
      // weight.
      auto shape =
          llvm::cast<mlir::ShapedType>(op.getInput().getType()).getShape();
      if (llvm::Error err = observer->observe(*constant, shape, "the weight"))
        return op.emitOpError() << llvm::toString(std::move(err));
    } else if (isCalibratingObserver(spec.kind)) {
      return op.emitOpError()
             << "has no statistics: calibrate the model first (quant-run "
                "--calibrate)";
    }
    llvm::Expected<QParams> qparams = observer->calculateQParams();
    if (!qparams)
      return op.emitOpError() << llvm::toString(qparams.takeError());
    shared.emplace(op.getId(),
                   SharedObserver{op.getSpec(), op.getStatsAttr(), *qparams});
    return *qparams;
  }

  /// Quantizes a constant as torch.quantize_per_tensor / _per_channel do and
  /// materializes it as an integer constant of the storage type.
  mlir::FailureOr<Value> quantizeConstant(OpBuilder &builder, ObserveOp op,
                                          llvm::ArrayRef<float> values,
                                          const QParams &qparams,
                                          RankedTensorType type) {
    QuantRange full = getDTypeRange(qparams.dtype);
    std::vector<int32_t> quantized(values.size());
    llvm::Error err = llvm::Error::success();
    if (isPerChannel(qparams.qscheme)) {
      llvm::SmallVector<double> scales(qparams.scales.begin(),
                                       qparams.scales.end());
      PerChannelQParams perChannel{scales, qparams.zeroPoints,
                                   qparams.floatZeroPoints, qparams.chAxis,
                                   full};
      err = quantizePerChannel(values, type.getShape(), perChannel, quantized);
    } else {
      AffineQParams perTensor{qparams.scales.front(),
                              qparams.zeroPoints.front(), full};
      err = quantizePerTensor(values, perTensor, quantized);
    }
    if (err)
      return op.emitOpError() << "cannot quantize the constant: "
                              << llvm::toString(std::move(err));
    unsigned width = getStorage(qparams.dtype).first;
    auto storageType = type.clone(builder.getIntegerType(width));
    mlir::DenseElementsAttr elements =
        getIntAttr(storageType, llvm::ArrayRef<int32_t>(quantized));
    if (op.getInput().getDefiningOp<mlir::tosa::ConstOp>())
      return mlir::tosa::ConstOp::create(builder, op.getLoc(), storageType,
                                         elements)
          .getResult();
    return mlir::arith::ConstantOp::create(builder, op.getLoc(), elements)
        .getResult();
  }
};

} // namespace
