//===- TosaToContract.cpp - TOSA contractions as qfx.contract -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-tosa-to-contract: a TOSA contraction qfx-lower did not write (a float
// model's convolutions and matmuls, int8 TOSA from another producer) becomes
// the qfx.contract that computes the same, one op for one op, so that
// qfx-codegen has one op to take.
//
//===----------------------------------------------------------------------===//

#include "qfx/Conversion/TosaToContract/TosaToContract.h"
#include "qfx/Conversion/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace qfx {
#define GEN_PASS_DEF_QFXTOSATOCONTRACT
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using mlir::RankedTensorType;
namespace tosa = mlir::tosa;
using namespace qfx;

namespace {

/// The value of a zero point operand whose elements are all equal.
std::optional<int64_t> getZeroPoint(Value zp) {
  mlir::DenseElementsAttr values;
  if (!mlir::matchPattern(zp, mlir::m_Constant(&values)) || !values.isSplat())
    return std::nullopt;
  if (auto ints = llvm::dyn_cast<mlir::DenseIntElementsAttr>(values))
    return ints.getSplatValue<llvm::APInt>().getSExtValue();
  llvm::APFloat value = values.getSplatValue<llvm::APFloat>();
  if (!value.isZero())
    return std::nullopt;
  return 0;
}

/// Whether a contraction of `input` and `weight` to `output` is one
/// qfx.contract takes: int8 operands summed in int32, or float32.
bool hasContractTypes(Value input, Value weight, Value output) {
  auto element = [](Value v) {
    return llvm::cast<mlir::ShapedType>(v.getType()).getElementType();
  };
  Type in = element(input), out = element(output);
  if (in != element(weight))
    return false;
  return (in.isInteger(8) && out.isInteger(32)) || (in.isF32() && out.isF32());
}

template <typename OpTy>
struct RaiseContraction : mlir::OpRewritePattern<OpTy> {
  RaiseContraction(MLIRContext *context, ContractionKind kind)
      : mlir::OpRewritePattern<OpTy>(context), kind(kind) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value input = op->getOperand(0), weight = op->getOperand(1);
    bool isMatmul = kind == ContractionKind::Matmul;
    std::optional<int64_t> inputZp =
        getZeroPoint(op->getOperand(isMatmul ? 2 : 3));
    std::optional<int64_t> weightZp =
        getZeroPoint(op->getOperand(isMatmul ? 3 : 4));
    if (!hasContractTypes(input, weight, op->getResult(0)) || !inputZp ||
        !weightZp)
      return rewriter.notifyMatchFailure(op, "not int8 to int32 or float32 "
                                             "with constant zero points");
    auto outputType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    Value bias;
    mlir::DenseI64ArrayAttr pad, stride, dilation;
    if (!isMatmul) {
      // A bias of one value for all channels becomes one per channel.
      bias = op->getOperand(2);
      auto biasType = llvm::cast<RankedTensorType>(bias.getType());
      int64_t channels = outputType.getShape().back();
      if (biasType.getDimSize(0) != channels) {
        mlir::DenseElementsAttr values;
        if (!mlir::matchPattern(bias, mlir::m_Constant(&values)) ||
            !values.isSplat() || mlir::ShapedType::isDynamic(channels))
          return rewriter.notifyMatchFailure(op, "a bias that is not one "
                                                 "value per channel");
        auto type = RankedTensorType::get({channels}, values.getElementType());
        bias = tosa::ConstOp::create(rewriter, op.getLoc(), type,
                                     values.resizeSplat(type));
      }
      pad = op.getPadAttr();
      stride = op.getStrideAttr();
      dilation = op.getDilationAttr();
    }
    auto contract = ContractOp::create(
        rewriter, op.getLoc(), outputType, kind, input, weight, bias, *inputZp,
        *weightZp, pad, stride, dilation, /*epilogue=*/nullptr);
    rewriter.replaceOp(op, contract.getOutput());
    return mlir::success();
  }

  ContractionKind kind;
};

/// tosa.matmul has no pad, stride or dilation.
template <>
LogicalResult RaiseContraction<tosa::MatMulOp>::matchAndRewrite(
    tosa::MatMulOp op, PatternRewriter &rewriter) const {
  std::optional<int64_t> inputZp = getZeroPoint(op.getAZp());
  std::optional<int64_t> weightZp = getZeroPoint(op.getBZp());
  if (!hasContractTypes(op.getA(), op.getB(), op.getOutput()) || !inputZp ||
      !weightZp)
    return rewriter.notifyMatchFailure(op, "not int8 to int32 or float32 "
                                           "with constant zero points");
  auto contract = ContractOp::create(
      rewriter, op.getLoc(), op.getOutput().getType(), ContractionKind::Matmul,
      op.getA(), op.getB(), /*bias=*/nullptr, *inputZp, *weightZp, nullptr,
      nullptr, nullptr, /*epilogue=*/nullptr);
  rewriter.replaceOp(op, contract.getOutput());
  return mlir::success();
}

struct QFXTosaToContractPass
    : qfx::impl::QFXTosaToContractBase<QFXTosaToContractPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQFXTosaToContractPatterns(patterns);
    mlir::walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void qfx::populateQFXTosaToContractPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<RaiseContraction<tosa::MatMulOp>>(context,
                                                 ContractionKind::Matmul);
  patterns.add<RaiseContraction<tosa::Conv2DOp>>(context,
                                                 ContractionKind::Conv2d);
  patterns.add<RaiseContraction<tosa::DepthwiseConv2DOp>>(
      context, ContractionKind::DepthwiseConv2d);
}
