//===- InlineFused.cpp - Inline qfx.fused regions -------------------------===//
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
#define GEN_PASS_DEF_QFXINLINEFUSED
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

namespace {
struct QFXInlineFusedPass : qfx::impl::QFXInlineFusedBase<QFXInlineFusedPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::IRRewriter rewriter(&getContext());
    // Post-order: nested fused ops are inlined into their parent's body
    // before the parent is inlined.
    getOperation()->walk<mlir::WalkOrder::PostOrder>([&](qfx::FusedOp fused) {
      mlir::Block &body = fused.getBody().front();
      auto yield = llvm::cast<qfx::YieldOp>(body.getTerminator());
      llvm::SmallVector<mlir::Value> results(yield.getValues());
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&body, fused, fused.getInputs());
      rewriter.replaceOp(fused, results);
    });
  }
};
} // namespace
