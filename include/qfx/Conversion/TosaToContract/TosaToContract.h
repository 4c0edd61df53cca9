//===- TosaToContract.h - TOSA contractions as qfx.contract -----*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_TOSATOCONTRACT_TOSATOCONTRACT_H
#define QFX_CONVERSION_TOSATOCONTRACT_TOSATOCONTRACT_H

#include "qfx/Support/LLVM.h"

namespace qfx {

/// Adds the patterns that write a TOSA matmul, conv2d or depthwise_conv2d
/// (float32, or int8 with int32 sums, and constant zero points) as the
/// qfx.contract without epilogue that computes the same.
void populateQFXTosaToContractPatterns(RewritePatternSet &patterns);

} // namespace qfx

#endif // QFX_CONVERSION_TOSATOCONTRACT_TOSATOCONTRACT_H
