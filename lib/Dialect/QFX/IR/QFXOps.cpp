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

// The interface's answers for a composite are its registry entry's.

std::optional<unsigned> CompositeOp::getWeightOperandIndex() {
  const CompositeInfo *info = getInfo();
  return info ? info->weight : std::nullopt;
}

std::optional<unsigned> CompositeOp::getBiasOperandIndex() {
  const CompositeInfo *info = getInfo();
  return info ? info->bias : std::nullopt;
}

llvm::SmallVector<int64_t> CompositeOp::getWeightChannelAxes() {
  const CompositeInfo *info = getInfo();
  return info ? llvm::to_vector(info->weightChannelAxes)
              : llvm::SmallVector<int64_t>{};
}

llvm::SmallVector<int64_t> CompositeOp::getTorchWeightAxes() {
  const CompositeInfo *info = getInfo();
  return info ? llvm::to_vector(info->torchWeightAxes)
              : llvm::SmallVector<int64_t>{};
}

/// A name the registry lacks lowers as a table: its body decides whether it
/// is elementwise.
std::optional<LoweringKind> CompositeOp::getInt8Lowering() {
  const CompositeInfo *info = getInfo();
  return info ? info->lowering : LoweringKind::Table;
}

/// Whether `attr` holds a value of `kind`.
static bool isOfKind(Attribute attr, CompositeAttrKind kind) {
  switch (kind) {
  case CompositeAttrKind::Integer:
    return llvm::isa<mlir::IntegerAttr>(attr);
  case CompositeAttrKind::Float:
    return llvm::isa<mlir::FloatAttr>(attr);
  case CompositeAttrKind::Bool:
    return llvm::isa<mlir::BoolAttr>(attr);
  case CompositeAttrKind::String:
    return llvm::isa<mlir::StringAttr>(attr);
  case CompositeAttrKind::IntegerArray:
    return llvm::isa<mlir::DenseI64ArrayAttr>(attr);
  case CompositeAttrKind::FloatElements: {
    auto elements = llvm::dyn_cast<mlir::DenseFPElementsAttr>(attr);
    return elements && elements.getElementType().isF32();
  }
  }
  return false;
}

static StringRef describeKind(CompositeAttrKind kind) {
  switch (kind) {
  case CompositeAttrKind::Integer:
    return "an integer";
  case CompositeAttrKind::Float:
    return "a float";
  case CompositeAttrKind::Bool:
    return "a bool";
  case CompositeAttrKind::String:
    return "a string";
  case CompositeAttrKind::IntegerArray:
    return "array<i64: ...>";
  case CompositeAttrKind::FloatElements:
    return "dense f32 elements";
  }
  return "";
}

LogicalResult CompositeOp::verifyRegions() {
  if (getName().empty())
    return emitOpError() << "needs the name of the PyTorch op";
  if (const CompositeInfo *info = getInfo()) {
    if (!info->operandRanks.empty()) {
      bool ranksMatch = getNumOperands() == info->operandRanks.size();
      for (auto [operand, rank] :
           llvm::zip(getOperands(), info->operandRanks)) {
        auto type = llvm::dyn_cast<mlir::RankedTensorType>(operand.getType());
        ranksMatch = ranksMatch && type && type.getRank() == rank;
      }
      if (!ranksMatch) {
        mlir::InFlightDiagnostic diag =
            emitOpError() << getName() << " expects "
                          << info->operandRanks.size() << " operands of ranks ";
        llvm::interleaveComma(info->operandRanks, diag);
        return diag;
      }
    }
    mlir::DictionaryAttr attrs = getCompositeAttributesAttr();
    for (const CompositeAttr &expected : info->attributes) {
      Attribute attr = attrs ? attrs.get(expected.name) : Attribute();
      if (!attr && !expected.required)
        continue;
      if (!attr)
        return emitOpError()
               << getName() << " needs composite_attributes `" << expected.name
               << "` (" << describeKind(expected.kind) << ")";
      if (!isOfKind(attr, expected.kind))
        return emitOpError()
               << getName() << "'s `" << expected.name << "` must be "
               << describeKind(expected.kind) << ", got " << attr;
    }
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
