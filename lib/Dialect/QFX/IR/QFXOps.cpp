//===- QFXOps.cpp - qfx operations ----------------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace qfx;

/// The size of `type` along `axis` (negative counts from the back, as
/// PyTorch's ch_axis does), or failure with a diagnostic if `axis` is not a
/// dimension of `type`. Returns ShapedType::kDynamic for a dynamic size and
/// for an unranked tensor.
static FailureOr<int64_t> getAxisSize(Operation *op, mlir::ShapedType type,
                                      int64_t axis, StringRef axisName) {
  if (!type.hasRank())
    return mlir::ShapedType::kDynamic;
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return op->emitOpError()
           << axisName << " " << axis << " is not a dimension of the rank-"
           << rank << " input";
  return type.getDimSize(axis < 0 ? axis + rank : axis);
}

//===----------------------------------------------------------------------===//
// ObserveOp
//===----------------------------------------------------------------------===//

LogicalResult ObserveOp::verify() {
  const ObserverSpec &spec = getSpec().getSpec();
  auto inputType = llvm::cast<mlir::ShapedType>(getInput().getType());
  int64_t channels = mlir::ShapedType::kDynamic;
  if (isPerChannelObserver(spec.kind)) {
    FailureOr<int64_t> size =
        getAxisSize(*this, inputType, spec.getChAxis(), "ch_axis");
    if (failed(size))
      return failure();
    channels = *size;
  }

  std::optional<Attribute> stats = getStats();
  if (!stats)
    return success();
  StringRef kind = stringifyObserverKind(spec.kind);
  switch (spec.kind) {
  case ObserverKind::MinMax:
  case ObserverKind::MovingAverageMinMax:
    if (!llvm::isa<MinMaxAttr>(*stats))
      return emitOpError() << "a " << kind
                           << " observer's stats must be #qfx.minmax";
    return success();
  case ObserverKind::PerChannelMinMax:
  case ObserverKind::MovingAveragePerChannelMinMax: {
    auto perChannel = llvm::dyn_cast<PerChannelMinMaxAttr>(*stats);
    if (!perChannel)
      return emitOpError()
             << "a " << kind
             << " observer's stats must be #qfx.per_channel_minmax";
    int64_t count = perChannel.getMin().size();
    if (!mlir::ShapedType::isDynamic(channels) && count != channels)
      return emitOpError() << "has statistics for " << count
                           << " channels but the input has " << channels
                           << " along ch_axis " << spec.getChAxis();
    return success();
  }
  case ObserverKind::Histogram: {
    auto histogram = llvm::dyn_cast<HistogramAttr>(*stats);
    if (!histogram)
      return emitOpError() << "a histogram observer's stats must be "
                              "#qfx.histogram";
    int64_t bins = histogram.getCounts().size();
    if (bins != spec.getBins())
      return emitOpError() << "has a histogram of " << bins
                           << " bins but the observer has bins = "
                           << spec.getBins();
    return success();
  }
  default:
    return emitOpError() << "a " << kind << " observer collects no statistics";
  }
}

//===----------------------------------------------------------------------===//
// FakeQuantOp
//===----------------------------------------------------------------------===//

LogicalResult FakeQuantOp::verify() {
  auto inputType = llvm::cast<mlir::ShapedType>(getInput().getType());
  Type qtype = getQtype();
  auto quantized = llvm::cast<mlir::quant::QuantizedType>(qtype);
  if (!llvm::isa<mlir::quant::UniformQuantizedType,
                 mlir::quant::UniformQuantizedPerAxisType>(quantized))
    return emitOpError() << "expected a !quant.uniform type, got " << qtype;
  if (quantized.getExpressedType() != inputType.getElementType())
    return emitOpError() << "quantized type expresses "
                         << quantized.getExpressedType()
                         << " but the input's element type is "
                         << inputType.getElementType();
  auto perAxis =
      llvm::dyn_cast<mlir::quant::UniformQuantizedPerAxisType>(quantized);
  if (!perAxis)
    return success();
  FailureOr<int64_t> channels = getAxisSize(
      *this, inputType, perAxis.getQuantizedDimension(), "quantized dimension");
  if (failed(channels))
    return failure();
  int64_t scales = perAxis.getScales().size();
  if (!mlir::ShapedType::isDynamic(*channels) && scales != *channels)
    return emitOpError() << "has " << scales << " scales but the input has "
                         << *channels << " channels along dimension "
                         << perAxis.getQuantizedDimension();
  return success();
}

//===----------------------------------------------------------------------===//
// FusedOp
//===----------------------------------------------------------------------===//

/// The shared region checks of qfx.fused and qfx.composite.
static LogicalResult verifyBody(Operation *op, Block &body,
                                mlir::TypeRange inputs) {
  if (body.getArgumentTypes() != inputs)
    return op->emitOpError()
           << "body arguments must match the operands: "
              "expected ("
           << inputs << "), got (" << body.getArgumentTypes() << ")";
  auto yield = llvm::dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return op->emitOpError() << "body must end in qfx.yield";
  if (yield.getValues().getTypes() != op->getResultTypes())
    return yield.emitOpError()
           << "yields (" << yield.getValues().getTypes() << ") but the "
           << "enclosing " << op->getName() << " returns ("
           << op->getResultTypes() << ")";
  return success();
}

LogicalResult FusedOp::verifyRegions() {
  return verifyBody(*this, getBody().front(), getInputs().getTypes());
}

/// An embedding's weight [V, D] (operand 1) is PyTorch's, quantized per row;
/// a 3-D transposed conv's (operand 1, bias operand 2) is PyTorch's
/// [I, O, KD, KH, KW] as [O, KD, KH, KW, I], quantized per output channel.
std::optional<unsigned> CompositeOp::getWeightOperandIndex() {
  return isEmbedding() || isConvTranspose3d() ? std::optional<unsigned>(1)
                                              : std::nullopt;
}

std::optional<unsigned> CompositeOp::getBiasOperandIndex() {
  return isConvTranspose3d() ? std::optional<unsigned>(2) : std::nullopt;
}

llvm::SmallVector<int64_t> CompositeOp::getWeightChannelAxes() {
  return isEmbedding() || isConvTranspose3d() ? llvm::SmallVector<int64_t>{0}
                                              : llvm::SmallVector<int64_t>{};
}

llvm::SmallVector<int64_t> CompositeOp::getTorchWeightAxes() {
  if (isConvTranspose3d())
    return {4, 0, 1, 2, 3};
  return isEmbedding() ? llvm::SmallVector<int64_t>{0, 1}
                       : llvm::SmallVector<int64_t>{};
}

/// The composite's int8 lowering, by its name (the table rows of
/// lib/Config/BackendConfig.cpp name the same).
llvm::StringRef CompositeOp::getInt8Lowering() {
  if (isMean())
    return "mean";
  if (isEmbedding())
    return "embedding";
  if (isRecurrent())
    return "dynamic_rnn";
  if (isBatchNorm())
    return "batch_norm";
  if (isConvTranspose3d())
    return "weighted_body";
  // PyTorch's FX runs F.group_norm in float between a dequantize and a
  // quantize; its quantized layer and instance norm are one kernel.
  if (getName() == "torch.nn.GroupNorm")
    return "float_kernel";
  if (isNormalization())
    return "normalization";
  return "table";
}

LogicalResult CompositeOp::verifyRegions() {
  if (getName().empty())
    return emitOpError() << "needs the name of the PyTorch op";
  if (isConvTranspose3d()) {
    auto rankOf = [&](unsigned i) {
      auto type =
          llvm::dyn_cast<mlir::RankedTensorType>(getOperand(i).getType());
      return type ? type.getRank() : -1;
    };
    if (getNumOperands() != 3 || rankOf(0) != 5 || rankOf(1) != 5 ||
        rankOf(2) != 1)
      return emitOpError() << "torch.nn.ConvTranspose3d expects (input, "
                              "weight, bias) of ranks 5, 5 and 1";
  }
  return verifyBody(*this, getBody().front(), getInputs().getTypes());
}

//===----------------------------------------------------------------------===//
// Dynamic quantization
//===----------------------------------------------------------------------===//

LogicalResult ChooseQParamsOp::verify() {
  int64_t qmin = getQuantMin(), qmax = getQuantMax();
  if (qmin >= qmax)
    return emitOpError() << "expected quant_min < quant_max, got [" << qmin
                         << ", " << qmax << "]";
  if (qmin > 0 || qmax < 0)
    return emitOpError() << "the range [" << qmin << ", " << qmax
                         << "] must include 0";
  if (qmin < INT32_MIN || qmax > INT32_MAX)
    return emitOpError() << "the range [" << qmin << ", " << qmax
                         << "] does not fit the i32 zero point";
  return success();
}

/// Checks that a quantize/dequantize keeps the shape of its input.
static LogicalResult verifySameShape(Operation *op, Type input, Type output) {
  if (failed(mlir::verifyCompatibleShape(input, output)))
    return op->emitOpError() << "result shape must match the input's: " << input
                             << " vs " << output;
  return success();
}

LogicalResult QuantizeOp::verify() {
  return verifySameShape(*this, getInput().getType(), getOutput().getType());
}

LogicalResult DequantizeOp::verify() {
  return verifySameShape(*this, getInput().getType(), getOutput().getType());
}

#define GET_OP_CLASSES
#include "qfx/Dialect/QFX/IR/QFXOps.cpp.inc"
