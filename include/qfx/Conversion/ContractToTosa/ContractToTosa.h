//===- ContractToTosa.h - qfx.contract as plain int8 TOSA -------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_CONTRACTTOTOSA_CONTRACTTOTOSA_H
#define QFX_CONVERSION_CONTRACTTOTOSA_CONTRACTTOTOSA_H

#include "qfx/Support/LLVM.h"

namespace qfx {

/// Adds the pattern that expands each qfx.contract into the TOSA
/// contraction (tosa.matmul, tosa.conv2d, tosa.depthwise_conv2d,
/// tosa.transpose_conv2d) and its epilogue's TOSA arithmetic.
void populateQFXContractToTosaPatterns(RewritePatternSet &patterns);

} // namespace qfx

#endif // QFX_CONVERSION_CONTRACTTOTOSA_CONTRACTTOTOSA_H
