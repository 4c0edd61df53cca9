//===- QFXDialect.cpp - The qfx dialect -----------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"

using namespace qfx;

#include "qfx/Dialect/QFX/IR/QFXOpsDialect.cpp.inc"

void QFXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "qfx/Dialect/QFX/IR/QFXOps.cpp.inc"
      >();
  registerAttributes();
}

LogicalResult QFXDialect::verifyOperationAttribute(Operation *op,
                                                   mlir::NamedAttribute attr) {
  if (attr.getName() == getOriginAttrName()) {
    auto origin = llvm::dyn_cast<mlir::StringAttr>(attr.getValue());
    if (!origin || origin.getValue().empty())
      return op->emitOpError()
             << "attribute '" << getOriginAttrName()
             << "' must be a non-empty string naming the PyTorch type, e.g. "
                "\"torch.nn.Conv2d\"";
    return success();
  }
  return op->emitOpError() << "unknown qfx attribute '"
                           << attr.getName().getValue() << "', expected '"
                           << getOriginAttrName() << "'";
}
