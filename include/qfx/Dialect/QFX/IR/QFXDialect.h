//===- QFXDialect.h - The qfx dialect ---------------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QFXDIALECT_H
#define QFX_DIALECT_QFX_IR_QFXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "qfx/Dialect/QFX/IR/QFXOpsDialect.h.inc"

#endif // QFX_DIALECT_QFX_IR_QFXDIALECT_H
