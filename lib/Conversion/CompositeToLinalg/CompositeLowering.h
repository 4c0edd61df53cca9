//===- CompositeLowering.h - Shared by the composite lowerings -*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_CONVERSION_COMPOSITETOLINALG_COMPOSITELOWERING_H
#define QFX_LIB_CONVERSION_COMPOSITETOLINALG_COMPOSITELOWERING_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace qfx {

/// Applies `Pattern` to each composite under `root` once, touching nothing
/// else: the greedy driver would also fold quant.dcast(quant.qcast(x)) to
/// x, erasing the rounding a reference model holds.
template <typename Pattern> void lowerEachComposite(mlir::Operation *root) {
  mlir::RewritePatternSet patterns(root->getContext());
  patterns.add<Pattern>(root->getContext());
  mlir::walkAndApplyPatterns(root, std::move(patterns));
}

} // namespace qfx

#endif // QFX_LIB_CONVERSION_COMPOSITETOLINALG_COMPOSITELOWERING_H
