//===- InlineFused.cpp - Inline qfx.fused and qfx.composite regions -------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace qfx {
#define GEN_PASS_DEF_QFXINLINECOMPOSITES
#define GEN_PASS_DEF_QFXINLINEFUSED
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

namespace {
/// Replaces every `OpT` (a single-block region op ending in qfx.yield) under
/// `root` by its body. Post-order: nested ops are inlined into their parent's
/// body before the parent is inlined.
template <typename OpT> void inlineBodies(mlir::Operation *root) {
  mlir::IRRewriter rewriter(root->getContext());
  root->walk<mlir::WalkOrder::PostOrder>([&](OpT op) {
    mlir::Block &body = op.getBody().front();
    auto yield = llvm::cast<qfx::YieldOp>(body.getTerminator());
    llvm::SmallVector<mlir::Value> results(yield.getValues());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, op, op.getInputs());
    rewriter.replaceOp(op, results);
  });
}

struct QFXInlineFusedPass : qfx::impl::QFXInlineFusedBase<QFXInlineFusedPass> {
  using Base::Base;
  void runOnOperation() override { inlineBodies<qfx::FusedOp>(getOperation()); }
};

struct QFXInlineCompositesPass
    : qfx::impl::QFXInlineCompositesBase<QFXInlineCompositesPass> {
  using Base::Base;
  void runOnOperation() override {
    inlineBodies<qfx::CompositeOp>(getOperation());
  }
};
} // namespace
