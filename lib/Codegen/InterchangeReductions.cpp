//===- InterchangeReductions.cpp - Channels innermost in window ops -------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Pooling and depthwise convolution iterate their window's reductions
// innermost; LLVM vectorizes their loops only when a contiguous parallel
// dimension (the channels) is innermost. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace qfx {
#define GEN_PASS_DEF_QFXINTERCHANGEREDUCTIONS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// The loop to move innermost in `op`, if any: the parallel loop of its
/// output's innermost dimension, when the innermost loop is a reduction and
/// every operand uses that loop only as its own innermost dimension.
std::optional<unsigned> getChannelLoop(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.size() < 2 ||
      iterators.back() != utils::IteratorType::reduction ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (output.getNumResults() == 0)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(output.getResults().back());
  if (!last || iterators[last.getPosition()] != utils::IteratorType::parallel)
    return std::nullopt;
  unsigned channel = last.getPosition();
  for (AffineMap map : op.getIndexingMapsArray()) {
    ArrayRef<AffineExpr> results = map.getResults();
    for (auto [index, expr] : llvm::enumerate(results))
      if (expr.isFunctionOfDim(channel) &&
          (index + 1 != results.size() || expr != last))
        return std::nullopt;
  }
  return channel;
}

struct QFXInterchangeReductionsPass
    : qfx::impl::QFXInterchangeReductionsBase<QFXInterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      std::optional<unsigned> channel = getChannelLoop(op);
      if (!channel)
        continue;
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      SmallVector<unsigned> order;
      for (unsigned loop = 0, e = generic.getNumLoops(); loop < e; ++loop)
        if (loop != *channel)
          order.push_back(loop);
      order.push_back(*channel);
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
        return signalPassFailure();
    }
  }
};

} // namespace
