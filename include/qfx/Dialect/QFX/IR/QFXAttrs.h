//===- QFXAttrs.h - qfx attributes ------------------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QFXATTRS_H
#define QFX_DIALECT_QFX_IR_QFXATTRS_H

#include "qfx/Config/DTypeWithConstraints.h"
#include "qfx/Numerics/ObserverSpec.h"
#include "qfx/Support/LLVM.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#define GET_ATTRDEF_CLASSES
#include "qfx/Dialect/QFX/IR/QFXAttrs.h.inc"

#endif // QFX_DIALECT_QFX_IR_QFXATTRS_H
