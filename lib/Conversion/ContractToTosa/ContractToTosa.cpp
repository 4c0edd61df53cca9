//===- ContractToTosa.cpp - qfx.contract as plain int8 TOSA ---------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-contract-to-tosa: each qfx.contract becomes the TOSA op of its kind
// and its epilogue's arithmetic, exactly the integers the op defines, for
// consumers that take plain TOSA (and for the generic lowering, of what
// qfx-codegen leaves).
//
//===----------------------------------------------------------------------===//

#include "qfx/Conversion/ContractToTosa/ContractToTosa.h"
#include "qfx/Conversion/Passes.h"
#include "qfx/Conversion/Utils/TosaBuilders.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace qfx {
#define GEN_PASS_DEF_QFXCONTRACTTOTOSA
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using mlir::RankedTensorType;
namespace tosa = mlir::tosa;
using namespace qfx;
using namespace qfx::tosa_builders;

namespace {

/// The contraction's sums: its TOSA op, with the accumulator bias (a
/// convolution's bias operand; added after a matmul).
Value emitSums(OpBuilder &b, Location loc, ContractOp op) {
  RankedTensorType inputType = op.getInput().getType();
  Type element = inputType.getElementType();
  bool isFloat = op.isFloat();
  Type accElement = isFloat ? element : b.getIntegerType(32);
  auto accType = op.getOutput().getType().clone(accElement);
  Value inputZp = zeroPoint(b, loc, element, op.getInputZp());
  Value weightZp = zeroPoint(b, loc, element, op.getWeightZp());
  int64_t channels = op.getNumChannels();
  int64_t rank = accType.getRank();
  Value bias = op.getBias();
  // A constant bias as a constant of the shape it is added with.
  auto shapedBias = [&](ArrayRef<int64_t> shape) -> Value {
    auto type = RankedTensorType::get(shape, accElement);
    if (bias.getType() == type)
      return bias;
    mlir::DenseElementsAttr values;
    if (mlir::matchPattern(bias, mlir::m_Constant(&values)))
      return tosa::ConstOp::create(b, loc, type, values.reshape(type));
    return reshapeTo(b, loc, bias, shape);
  };

  if (op.getKind() == ContractionKind::Matmul) {
    Value acc = tosa::MatMulOp::create(b, loc, accType, op.getInput(),
                                       op.getWeight(), inputZp, weightZp);
    if (!bias)
      return acc;
    SmallVector<int64_t> shape(rank, 1);
    shape.back() = channels;
    return tosa::AddOp::create(b, loc, accType, acc, shapedBias(shape));
  }
  if (!bias) {
    auto type = RankedTensorType::get({channels}, accElement);
    bias = tosa::ConstOp::create(
        b, loc, type,
        isFloat ? mlir::DenseElementsAttr::get(type, 0.0f)
                : mlir::DenseElementsAttr::get(type, int32_t{0}));
  } else {
    bias = shapedBias({channels});
  }
  auto accTypeAttr = mlir::TypeAttr::get(accElement);
  switch (op.getKind()) {
  case ContractionKind::Conv2d:
    return tosa::Conv2DOp::create(
        b, loc, accType, op.getInput(), op.getWeight(), bias, inputZp, weightZp,
        op.getPadAttr(), op.getStrideAttr(), op.getDilationAttr(), accTypeAttr);
  case ContractionKind::DepthwiseConv2d:
    return tosa::DepthwiseConv2DOp::create(
        b, loc, accType, op.getInput(), op.getWeight(), bias, inputZp, weightZp,
        op.getPadAttr(), op.getStrideAttr(), op.getDilationAttr(), accTypeAttr);
  case ContractionKind::TransposeConv2d:
    return tosa::TransposeConv2DOp::create(
        b, loc, accType, op.getInput(), op.getWeight(), bias, inputZp, weightZp,
        op.getPadAttr(), op.getStrideAttr(), accTypeAttr);
  case ContractionKind::Matmul:
    break;
  }
  llvm_unreachable("a matmul is handled above");
}

/// TOSA's integer requantization: (acc << f) + bias, tosa.rescale, clamp.
Value emitRescale(OpBuilder &b, Location loc, Value acc, RescaleAttr epilogue) {
  auto accType = llvm::cast<RankedTensorType>(acc.getType());
  int64_t rank = accType.getRank();
  if (int64_t f = epilogue.getFractionBits()) {
    acc = tosa::MulOp::create(
        b, loc, accType, acc,
        channelConstant(b, loc, rank,
                        ArrayRef<int32_t>{static_cast<int32_t>(1 << f)}),
        noShift(b, loc));
  }
  if (!epilogue.getBias().empty())
    acc = tosa::AddOp::create(
        b, loc, accType, acc,
        channelConstant(b, loc, rank, epilogue.getBias().asArrayRef()));
  Type i8 = b.getIntegerType(8);
  Value result =
      rescale(b, loc, acc, epilogue.getMultipliers().asArrayRef(),
              epilogue.getShifts().asArrayRef(), 0, epilogue.getOutputZp(), i8);
  if (epilogue.getMin() == -128 && epilogue.getMax() == 127)
    return result;
  return tosa::ClampOp::create(b, loc, result.getType(), result,
                               b.getIntegerAttr(i8, epilogue.getMin()),
                               b.getIntegerAttr(i8, epilogue.getMax()));
}

/// PyTorch's float requantization: float(acc) + bias, times the
/// multipliers, plus the float zero point, clamped, rounded half to even,
/// plus the integer zero point.
Value emitRequantize(OpBuilder &b, Location loc, Value acc,
                     RequantizeAttr epilogue) {
  auto accType = llvm::cast<RankedTensorType>(acc.getType());
  auto floatType = accType.clone(b.getF32Type());
  int64_t rank = accType.getRank();
  Value value = tosa::CastOp::create(b, loc, floatType, acc);
  if (!epilogue.getBias().empty())
    value = tosa::AddOp::create(
        b, loc, floatType, value,
        channelConstant(b, loc, rank, epilogue.getBias().asArrayRef()));
  value = tosa::MulOp::create(
      b, loc, floatType, value,
      channelConstant(b, loc, rank, epilogue.getMultipliers().asArrayRef()),
      noShift(b, loc));
  if (!epilogue.getZeroPoint().isZero())
    value = tosa::AddOp::create(
        b, loc, floatType, value,
        channelConstant(
            b, loc, rank,
            ArrayRef<float>{epilogue.getZeroPoint().convertToFloat()}));
  int64_t zp = epilogue.getOutputZp();
  auto bound = [&](const llvm::APFloat &v) {
    return static_cast<int64_t>(v.convertToDouble()) + zp;
  };
  return roundToInt8(b, loc, value, zp,
                     {bound(epilogue.getMin()), bound(epilogue.getMax())});
}

struct ExpandContract : mlir::OpRewritePattern<ContractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ContractOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value result = emitSums(rewriter, loc, op);
    if (std::optional<Attribute> epilogue = op.getEpilogue()) {
      if (auto rescale = llvm::dyn_cast<RescaleAttr>(*epilogue))
        result = emitRescale(rewriter, loc, result, rescale);
      else
        result = emitRequantize(rewriter, loc, result,
                                llvm::cast<RequantizeAttr>(*epilogue));
    }
    // What the contraction's result stands for (quant-run --compare).
    if (Attribute quantized = op->getAttr(QFXDialect::getQuantizedAttrName()))
      result.getDefiningOp()->setAttr(QFXDialect::getQuantizedAttrName(),
                                      quantized);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct QFXContractToTosaPass
    : qfx::impl::QFXContractToTosaBase<QFXContractToTosaPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQFXContractToTosaPatterns(patterns);
    mlir::walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void qfx::populateQFXContractToTosaPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandContract>(patterns.getContext());
}
