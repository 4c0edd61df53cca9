//===- QFXOps.h - qfx operations --------------------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QFXOPS_H
#define QFX_DIALECT_QFX_IR_QFXOPS_H

#include "qfx/Config/Composites.h"
#include "qfx/Dialect/QFX/IR/QFXAttrs.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "qfx/Dialect/QFX/IR/QFXOps.h.inc"

#endif // QFX_DIALECT_QFX_IR_QFXOPS_H
