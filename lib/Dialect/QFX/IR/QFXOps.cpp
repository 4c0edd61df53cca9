//===- QFXOps.cpp - qfx operations ----------------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace qfx;
using namespace mlir;

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

bool CompositeOp::foldsBatchNormBeforeReLU() {
  const CompositeInfo *info = getInfo();
  return !info || info->foldsBatchNormBeforeReLU;
}

bool CompositeOp::takesOutputQParams() {
  const CompositeInfo *info = getInfo();
  return !info || info->takesOutputQParams;
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
// ContractOp
//===----------------------------------------------------------------------===//

/// Whether `type` has `element` elements.
static bool isOf(mlir::ShapedType type, Type element) {
  return type.getElementType() == element;
}

/// Checks that `attr` is given with `size` values, as `kind` needs.
static LogicalResult verifyGeometry(ContractOp op, StringRef name,
                                    std::optional<ArrayRef<int64_t>> attr,
                                    size_t size) {
  if (!attr)
    return op.emitOpError()
           << stringifyContractionKind(op.getKind()) << " needs `" << name
           << "` (" << size << " values)";
  if (attr->size() != size)
    return op.emitOpError() << "`" << name << "` must have " << size
                            << " values, got " << attr->size();
  return success();
}

/// `size` if static, else -1 (compatible with anything).
static int64_t dim(mlir::RankedTensorType type, unsigned d) {
  return type.isDynamicDim(d) ? -1 : type.getDimSize(d);
}

/// Whether two sizes can be equal (either dynamic, or the same).
static bool compatible(int64_t a, int64_t b) {
  return a < 0 || b < 0 || a == b;
}

/// A packed weight: its layout's shape, and runs that fit the contraction's
/// K (ContractOp's description).
static LogicalResult verifyPacking(ContractOp op) {
  Value packed = op.getPackedWeight();
  std::optional<WeightPackingAttr> packing = op.getWeightPacking();
  if (!packed && !packing)
    return success();
  if (!packed || !packing)
    return op.emitOpError() << "expected a packed weight and its "
                               "`weight_packing` together, or neither";
  ContractionKind kind = op.getKind();
  mlir::RankedTensorType input = op.getInput().getType(),
                         weight = op.getWeight().getType();
  bool isMatmul = kind == ContractionKind::Matmul;
  if ((!isMatmul && kind != ContractionKind::Conv2d) ||
      (isMatmul && dim(weight, 0) != 1))
    return op.emitOpError() << "only a matmul of one batch or a conv2d "
                               "takes packed weights";
  auto type = llvm::cast<mlir::RankedTensorType>(packed.getType());
  Type element = type.getElementType();
  if (op.isFloat() ? !element.isF32()
                   : !element.isInteger(8) && !element.isInteger(16))
    return op.emitOpError()
           << "expected packed weights of "
           << (op.isFloat() ? "f32" : "i8 or i16") << ", got " << element;
  // K's taps and the values of one tap's run.
  int64_t taps = packing->getTaps(), run = -1;
  int64_t k = isMatmul ? dim(input, 2) : dim(weight, 3);
  if (isMatmul) {
    if (taps != 1)
      return op.emitOpError()
             << "a matmul's packed weights have 1 tap, got " << taps;
    run = k;
  } else {
    int64_t kh = dim(weight, 1), kw = dim(weight, 2);
    if (kh < 0 || kw < 0 || k < 0)
      run = -1;
    else if (taps == 1)
      run = kh * kw * k;
    else if (taps == kh * kw)
      run = k;
    else if (taps == kh)
      run = kw * k;
    else
      return op.emitOpError()
             << "a convolution's packed weights have 1, KH (" << kh
             << ") or KH * KW (" << kh * kw << ") taps, got " << taps;
  }
  int64_t lanes = packing->getLanes(), group = packing->getGroup(),
          tapGroups = packing->getTapGroups();
  if (run >= 0 && tapGroups * group < run)
    return op.emitOpError() << "a tap's " << run << " values do not fit "
                            << tapGroups << " groups of " << group;
  int64_t channels = op.getNumChannels();
  int64_t blocks = channels < 0 ? -1 : (channels + lanes - 1) / lanes;
  if (type.getRank() != 3 || !compatible(dim(type, 0), blocks) ||
      dim(type, 1) != taps * tapGroups || dim(type, 2) != lanes * group)
    return op.emitOpError()
           << "expected packed weights of shape [" << blocks << ", "
           << taps * tapGroups << ", " << lanes * group << "], got " << type;
  return success();
}

LogicalResult ContractOp::verify() {
  mlir::RankedTensorType input = getInput().getType(),
                         weight = getWeight().getType(),
                         output = getOutput().getType();
  mlir::MLIRContext *context = getContext();
  Type f32 = mlir::Float32Type::get(context),
       i8 = mlir::IntegerType::get(context, 8),
       i32 = mlir::IntegerType::get(context, 32);
  std::optional<Attribute> epilogue = getEpilogue();
  bool isFloat = isOf(input, f32);
  Type biasElement = isFloat ? f32 : i32;
  if (isFloat) {
    if (!isOf(weight, f32) || !isOf(output, f32))
      return emitOpError() << "a float contraction has f32 operands and "
                              "result";
    if (getInputZp() != 0 || getWeightZp() != 0 || epilogue)
      return emitOpError() << "a float contraction has no zero points and "
                              "no epilogue";
  } else {
    if (!isOf(input, i8) || !isOf(weight, i8))
      return emitOpError() << "expected i8 (or f32) input and weight";
    Type expected = epilogue ? i8 : i32;
    if (!isOf(output, expected))
      return emitOpError() << "expected an " << expected << " result "
                           << (epilogue ? "with" : "without")
                           << " an epilogue, got " << output.getElementType();
    for (int64_t zp : {getInputZp(), getWeightZp()})
      if (zp < -128 || zp > 127)
        return emitOpError() << "zero points must be int8, got " << zp;
  }

  // Ranks and sizes.
  ContractionKind kind = getKind();
  bool isMatmul = kind == ContractionKind::Matmul;
  int64_t rank = isMatmul ? 3 : 4;
  if (input.getRank() != rank || weight.getRank() != rank ||
      output.getRank() != rank)
    return emitOpError() << stringifyContractionKind(kind) << " expects rank-"
                         << rank << " input, weight and result";
  int64_t channels = dim(output, rank - 1);
  if (isMatmul) {
    if (!compatible(dim(input, 0), dim(weight, 0)) ||
        !compatible(dim(input, 0), dim(output, 0)) ||
        !compatible(dim(input, 2), dim(weight, 1)) ||
        !compatible(dim(input, 1), dim(output, 1)) ||
        !compatible(dim(weight, 2), channels))
      return emitOpError() << "expected [B, M, K] x [B, K, N] -> [B, M, N], "
                              "got "
                           << input << ", " << weight << " -> " << output;
    if (getPad() || getStride() || getDilation())
      return emitOpError() << "a matmul takes no pad, stride or dilation";
  } else {
    bool isTranspose = kind == ContractionKind::TransposeConv2d;
    if (failed(verifyGeometry(*this, "pad", getPad(), 4)) ||
        failed(verifyGeometry(*this, "stride", getStride(), 2)))
      return failure();
    if (isTranspose
            ? getDilation().has_value()
            : failed(verifyGeometry(*this, "dilation", getDilation(), 2))) {
      if (isTranspose)
        return emitOpError() << "a transpose_conv2d takes no dilation";
      return failure();
    }
    bool isDepthwise = kind == ContractionKind::DepthwiseConv2d;
    // Kernel size, input channels, output channels of the weight.
    int64_t kh = isDepthwise ? dim(weight, 0) : dim(weight, 1),
            kw = isDepthwise ? dim(weight, 1) : dim(weight, 2),
            c = isDepthwise ? dim(weight, 2) : dim(weight, 3);
    int64_t o = isDepthwise
                    ? (c < 0 || dim(weight, 3) < 0 ? -1 : c * dim(weight, 3))
                    : dim(weight, 0);
    if (!compatible(dim(input, 3), c) || !compatible(o, channels) ||
        !compatible(dim(input, 0), dim(output, 0)))
      return emitOpError() << "the weight " << weight
                           << " does not fit the input " << input
                           << " and result " << output;
    ArrayRef<int64_t> pad = *getPad(), stride = *getStride();
    for (unsigned axis : {0u, 1u}) {
      int64_t size = dim(input, 1 + axis), k = axis ? kw : kh;
      int64_t expected = -1;
      if (size >= 0 && k >= 0) {
        int64_t padded = pad[2 * axis] + pad[2 * axis + 1];
        if (isTranspose) {
          expected = (size - 1) * stride[axis] + padded + k;
        } else {
          int64_t extent = ((*getDilation())[axis]) * (k - 1) + 1;
          expected = (size + padded - extent) / stride[axis] + 1;
        }
      }
      if (!compatible(expected, dim(output, 1 + axis)))
        return emitOpError()
               << "expected an output of " << expected << " along spatial axis "
               << axis << ", got " << dim(output, 1 + axis);
    }
  }

  if (failed(verifyPacking(*this)))
    return failure();

  if (Value bias = getBias()) {
    auto type = llvm::cast<mlir::RankedTensorType>(bias.getType());
    if (type.getRank() != 1 || !isOf(type, biasElement) ||
        !compatible(dim(type, 0), channels))
      return emitOpError() << "expected a bias of one " << biasElement
                           << " per output channel, got " << type;
  }

  // Each per-channel array of the epilogue: none, one, or one per channel.
  auto checkChannels = [&](StringRef name, size_t size,
                           bool mayBeEmpty) -> LogicalResult {
    if ((size == 0 && mayBeEmpty) || size == 1 ||
        static_cast<int64_t>(size) == channels || channels < 0)
      return success();
    return emitOpError() << "the epilogue's `" << name << "` has " << size
                         << " values for " << channels << " channels";
  };
  if (auto rescale = llvm::dyn_cast_if_present<RescaleAttr>(
          epilogue.value_or(Attribute())))
    return success(
        succeeded(checkChannels("bias", rescale.getBias().size(), true)) &&
        succeeded(checkChannels("multipliers", rescale.getMultipliers().size(),
                                false)));
  if (auto requantize = llvm::dyn_cast_if_present<RequantizeAttr>(
          epilogue.value_or(Attribute())))
    return success(
        succeeded(checkChannels("bias", requantize.getBias().size(), true)) &&
        succeeded(checkChannels("multipliers",
                                requantize.getMultipliers().size(), false)));
  return success();
}

namespace {

/// An int8 tosa.clamp of a contraction's only use narrows its epilogue's
/// clamp: with TOSA's integer requantization the bounds clamp; with the
/// float one, clamping `round(x) + zp` to [lo, hi] is clamping x to the
/// epilogue's bounds clamped to [lo - zp, hi - zp] (rounding is monotone and
/// keeps integer bounds).
struct FoldClampIntoContract : mlir::OpRewritePattern<mlir::tosa::ClampOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(mlir::tosa::ClampOp clamp,
                                PatternRewriter &rewriter) const override {
    auto contract = clamp.getInput().getDefiningOp<ContractOp>();
    auto lo = llvm::dyn_cast<mlir::IntegerAttr>(clamp.getMinValAttr());
    auto hi = llvm::dyn_cast<mlir::IntegerAttr>(clamp.getMaxValAttr());
    if (!contract || !contract->hasOneUse() || !contract.getEpilogue() || !lo ||
        !hi)
      return rewriter.notifyMatchFailure(clamp, "not an int8 clamp of a "
                                                "contraction's only use");
    Attribute epilogue = *contract.getEpilogue();
    auto within = [](auto value, auto low, auto high) {
      return std::min(std::max(value, low), high);
    };
    MLIRContext *context = getContext();
    if (auto rescale = llvm::dyn_cast<RescaleAttr>(epilogue)) {
      epilogue = RescaleAttr::get(
          context, rescale.getFractionBits(), rescale.getBias(),
          rescale.getMultipliers(), rescale.getShifts(), rescale.getOutputZp(),
          within(rescale.getMin(), lo.getInt(), hi.getInt()),
          within(rescale.getMax(), lo.getInt(), hi.getInt()));
    } else {
      auto requantize = llvm::cast<RequantizeAttr>(epilogue);
      double zp = static_cast<double>(requantize.getOutputZp());
      double low = lo.getInt() - zp, high = hi.getInt() - zp;
      auto bound = [&](const llvm::APFloat &value) {
        return llvm::APFloat(
            static_cast<float>(within(value.convertToDouble(), low, high)));
      };
      epilogue = RequantizeAttr::get(
          context, requantize.getBias(), requantize.getMultipliers(),
          requantize.getZeroPoint(), bound(requantize.getMin()),
          bound(requantize.getMax()), requantize.getOutputZp());
    }
    rewriter.modifyOpInPlace(contract, [&] {
      contract.setEpilogueAttr(epilogue);
      // What the clamp said it quantizes to (quant-run --compare).
      if (Attribute quantized =
              clamp->getAttr(QFXDialect::getQuantizedAttrName()))
        contract->setAttr(QFXDialect::getQuantizedAttrName(), quantized);
    });
    rewriter.replaceOp(clamp, contract.getOutput());
    return success();
  }
};

} // namespace

void ContractOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<FoldClampIntoContract>(context);
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

//===----------------------------------------------------------------------===//
// HostCallOp
//===----------------------------------------------------------------------===//

/// Whether `type` is what a host exchanges: statically shaped, of f32, i64,
/// i32 or i1.
static bool isHostCallType(Type type) {
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return false;
  Type element = shaped.getElementType();
  return element.isF32() || element.isSignlessInteger(64) ||
         element.isSignlessInteger(32) || element.isSignlessInteger(1);
}

LogicalResult HostCallOp::verify() {
  bool buffers = hasBufferSemantics();
  if (buffers && getOutputs().empty())
    return emitOpError("has neither results nor outs buffers");
  if (!buffers && !getOutputs().empty())
    return emitOpError("has results and outs buffers: expected one or the "
                       "other");
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    Type type = input.getType();
    if (buffers ? !llvm::isa<MemRefType>(type)
                : !llvm::isa<RankedTensorType>(type))
      return emitOpError() << "input " << index << " has type " << type
                           << ": expected a "
                           << (buffers ? "memref (it has outs buffers)"
                                       : "ranked tensor (it has results)");
  }
  for (Value value :
       llvm::concat<Value>(getInputs(), getOutputs(), getResults()))
    if (!isHostCallType(value.getType()))
      return emitOpError() << "exchanges a value of type " << value.getType()
                           << ": expected a static shape of f32, i64, i32 "
                              "or i1";
  return success();
}

void HostCallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &input : getInputsMutable())
    if (llvm::isa<MemRefType>(input.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &input,
                           SideEffects::DefaultResource::get());
  for (OpOperand &output : getOutputsMutable())
    effects.emplace_back(MemoryEffects::Write::get(), &output,
                         SideEffects::DefaultResource::get());
}

#define GET_OP_CLASSES
#include "qfx/Dialect/QFX/IR/QFXOps.cpp.inc"
