//===- SinkConcats.cpp - Elementwise ops of a concat, per operand ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-sink-concats: an elementwise op whose one non-constant operand is a
// tosa.concat (used by nothing else) becomes the concat of the op applied
// to each of its operands, constants sliced along the concat's axis; the
// concat moves down the chain until an op that is not elementwise. Each
// piece then writes its part of the concatenation in place. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace qfx {
#define GEN_PASS_DEF_QFXSINKCONCATS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// Constants larger than this are not sliced (a piece would copy them).
constexpr int64_t kMaxSlicedElements = int64_t{1} << 16;

/// Elements [offset, offset + size) along `axis` of `values`, whose type
/// has `values`' rank.
DenseElementsAttr sliceAlong(DenseElementsAttr values, int64_t axis,
                             int64_t offset, int64_t size) {
  auto type = llvm::cast<RankedTensorType>(values.getType());
  llvm::SmallVector<int64_t> shape(type.getShape());
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  int64_t outer = type.getNumElements() / (shape[axis] * inner);
  llvm::SmallVector<Attribute> all(values.getValues<Attribute>());
  llvm::SmallVector<Attribute> sliced;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = offset; a < offset + size; ++a)
      for (int64_t i = 0; i < inner; ++i)
        sliced.push_back(all[(o * shape[axis] + a) * inner + i]);
  shape[axis] = size;
  return DenseElementsAttr::get(type.clone(shape), sliced);
}

/// How many of `op`'s leading operands are elementwise, if it is an
/// elementwise TOSA op whose other operands may be constants (the
/// arithmetic of a requantization, a batch norm's or a clamp's, a table
/// lookup); the rest (a multiply's shift, a table) are not per element.
std::optional<unsigned> getElementwiseOperands(Operation *op) {
  if (llvm::isa<tosa::TableOp>(op))
    return 1;
  if (llvm::isa<tosa::MulOp>(op))
    return 2;
  if (llvm::isa<tosa::CastOp, tosa::AddOp, tosa::SubOp,
                tosa::ArithmeticRightShiftOp, tosa::MaximumOp, tosa::MinimumOp,
                tosa::ClampOp>(op))
    return op->getNumOperands();
  return std::nullopt;
}

struct SinkConcat : OpRewritePattern<tosa::ConcatOp> {
  SinkConcat(MLIRContext *context, unsigned maxOperands)
      : OpRewritePattern(context), maxOperands(maxOperands) {}

  LogicalResult matchAndRewrite(tosa::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    if (!concat->hasOneUse() || concat.getInput1().size() > maxOperands)
      return failure();
    Operation *user = *concat->user_begin();
    auto concatType = llvm::cast<RankedTensorType>(concat.getType());
    std::optional<unsigned> elementwise = getElementwiseOperands(user);
    if (!elementwise || user->getNumResults() != 1 ||
        !concatType.hasStaticShape())
      return failure();
    auto resultType =
        llvm::dyn_cast<RankedTensorType>(user->getResult(0).getType());
    // The op keeps the concat's shape (no constant broadcasts it).
    if (!resultType || resultType.getShape() != concatType.getShape())
      return failure();
    int64_t axis = concat.getAxis();
    // The concat is one elementwise operand (its one use); every other
    // operand is a constant, taken whole (a scalar, one that broadcasts
    // along the axis, a shift, a table) or sliced along the axis (`sliced`,
    // null if not).
    llvm::SmallVector<DenseElementsAttr> sliced(user->getNumOperands());
    for (auto [i, operand] : llvm::enumerate(user->getOperands())) {
      if (operand == concat.getResult()) {
        if (i >= *elementwise)
          return failure();
        continue;
      }
      auto constOp = operand.getDefiningOp<tosa::ConstOp>();
      auto values = constOp
                        ? llvm::dyn_cast<DenseElementsAttr>(constOp.getValues())
                        : DenseElementsAttr();
      if (!values)
        return failure();
      auto type = llvm::cast<RankedTensorType>(values.getType());
      if (i >= *elementwise)
        continue;
      if (type.getRank() != concatType.getRank())
        return failure();
      if (type.getDimSize(axis) == 1)
        continue;
      if (type.getDimSize(axis) != concatType.getDimSize(axis) ||
          type.getNumElements() > kMaxSlicedElements)
        return failure();
      sliced[i] = values;
    }

    llvm::SmallVector<Value> pieces;
    int64_t offset = 0;
    for (Value input : concat.getInput1()) {
      auto inputType = llvm::cast<RankedTensorType>(input.getType());
      int64_t size = inputType.getDimSize(axis);
      llvm::SmallVector<Value> operands;
      for (auto [i, operand] : llvm::enumerate(user->getOperands())) {
        if (operand == concat.getResult()) {
          operands.push_back(input);
        } else if (sliced[i]) {
          DenseElementsAttr part = sliceAlong(sliced[i], axis, offset, size);
          operands.push_back(tosa::ConstOp::create(rewriter, user->getLoc(),
                                                   part.getType(), part));
        } else {
          operands.push_back(operand);
        }
      }
      OperationState state(user->getLoc(), user->getName(), operands,
                           {resultType.clone(inputType.getShape())},
                           user->getAttrs());
      Operation *piece = rewriter.create(state);
      // Only the whole value is a quantized tensor (quant-run --compare).
      piece->removeAttr("qfx.quantized");
      pieces.push_back(piece->getResult(0));
      offset += size;
    }
    // The concat now stands for the op's value: its location and what it
    // quantizes to.
    auto sunk = tosa::ConcatOp::create(rewriter, user->getLoc(), resultType,
                                       pieces, axis);
    if (Attribute quantized = user->getAttr("qfx.quantized"))
      sunk->setAttr("qfx.quantized", quantized);
    rewriter.replaceOp(user, sunk.getResult());
    rewriter.eraseOp(concat);
    return success();
  }

  unsigned maxOperands;
};

struct QFXSinkConcatsPass : qfx::impl::QFXSinkConcatsBase<QFXSinkConcatsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkConcat>(&getContext(), maxOperands);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    // (Each rewrite is complete: where the driver stops, the IR is valid.)
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace
