//===- CompositeLowering.h - Shared by the composite lowerings -*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_CONVERSION_COMPOSITETOLINALG_COMPOSITELOWERING_H
#define QFX_LIB_CONVERSION_COMPOSITETOLINALG_COMPOSITELOWERING_H

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <string>

namespace qfx {

/// Applies `Pattern` to each composite under `root` once, touching nothing
/// else: the greedy driver would also fold quant.dcast(quant.qcast(x)) to
/// x, erasing the rounding a reference model holds.
template <typename Pattern> void lowerEachComposite(mlir::Operation *root) {
  mlir::RewritePatternSet patterns(root->getContext());
  patterns.add<Pattern>(root->getContext());
  mlir::walkAndApplyPatterns(root, std::move(patterns));
}

/// Reports each composite under `root` whose attributes contradict it, as
/// `read(op, whyNot, malformed)` (a pass's reader of the composite's
/// operands) says: "'qfx.composite' op <name> <whyNot>"; then, if there was
/// none, applies `Pattern` as lowerEachComposite does.
template <typename Pattern, typename Reader>
mlir::LogicalResult lowerEachWellFormedComposite(mlir::Operation *root,
                                                 llvm::StringRef name,
                                                 Reader read) {
  bool failed = false;
  root->walk([&](qfx::CompositeOp op) {
    std::string whyNot;
    bool malformed;
    if (!read(op, whyNot, malformed) && malformed) {
      op.emitOpError() << name << " " << whyNot;
      failed = true;
    }
  });
  if (failed)
    return mlir::failure();
  lowerEachComposite<Pattern>(root);
  return mlir::success();
}

} // namespace qfx

#endif // QFX_LIB_CONVERSION_COMPOSITETOLINALG_COMPOSITELOWERING_H
