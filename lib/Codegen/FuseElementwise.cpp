//===- FuseElementwise.cpp - Elementwise fusion that computes once --------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// linalg-fuse-elementwise-ops, with a producer fused into a consumer only
// where the consumer reads each of its elements once. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace qfx {
#define GEN_PASS_DEF_QFXFUSEELEMENTWISE
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// Upstream's rule (a producer with one use), and the consumer reads the
/// fused operand through a permutation of all its loops: once per element.
/// A matmul reads its left operand once per output column; fusing a
/// dequantization into it would redo the dequantization that many times.
bool fusesOnce(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  return !consumer || consumer.getMatchingIndexingMap(fused).isPermutation();
}

struct QFXFuseElementwisePass
    : qfx::impl::QFXFuseElementwiseBase<QFXFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::ControlFusionFn oneUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // The pattern set of linalg-fuse-elementwise-ops, but for the control
    // of elementwise fusion.
    linalg::populateElementwiseOpsFusionPatterns(patterns, fusesOnce);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, oneUse);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, oneUse);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
