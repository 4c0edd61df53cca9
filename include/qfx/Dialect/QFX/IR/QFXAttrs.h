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

#include "qfx/Dialect/QFX/IR/QFXEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "qfx/Dialect/QFX/IR/QFXAttrs.h.inc"

namespace qfx {
struct ObserverState;

/// The numerics library's state of the statistics in `stats` (#qfx.minmax,
/// #qfx.per_channel_minmax or #qfx.histogram).
ObserverState getObserverState(mlir::Attribute stats);

/// The stats attribute that holds `state` for an observer of `kind`, or null
/// for observers that collect no statistics.
mlir::Attribute getObserverStatsAttr(mlir::MLIRContext *context,
                                     ObserverKind kind,
                                     const ObserverState &state);
} // namespace qfx

#endif // QFX_DIALECT_QFX_IR_QFXATTRS_H
