//===- QFXDialect.cpp - The qfx dialect -----------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXAttrs.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

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
  if (attr.getName() == getQConfigAttrName()) {
    if (llvm::isa<QConfigAttr>(attr.getValue()))
      return success();
    auto none = llvm::dyn_cast<mlir::StringAttr>(attr.getValue());
    if (!none || none.getValue() != "none")
      return op->emitOpError()
             << "attribute '" << getQConfigAttrName()
             << "' must be a #qfx.qconfig or the string \"none\"";
    return success();
  }
  if (attr.getName() == getPatternAttrName()) {
    auto pattern = llvm::dyn_cast<mlir::ArrayAttr>(attr.getValue());
    if (!pattern || pattern.empty() || pattern.size() > 3 ||
        !llvm::all_of(pattern, [](Attribute a) {
          auto s = llvm::dyn_cast<mlir::StringAttr>(a);
          return s && !s.getValue().empty();
        }))
      return op->emitOpError() << "attribute '" << getPatternAttrName()
                               << "' must be an array of 1 to 3 op names, e.g. "
                                  "[\"tosa.conv2d\", \"tosa.clamp\"]";
    return success();
  }
  if (attr.getName() == getQuantizedAttrName()) {
    auto type = llvm::dyn_cast<mlir::TypeAttr>(attr.getValue());
    auto quantized =
        type ? llvm::dyn_cast<mlir::quant::QuantizedType>(type.getValue())
             : nullptr;
    if (!quantized || op->getNumResults() != 1 ||
        mlir::getElementTypeOrSelf(op->getResult(0).getType()) !=
            quantized.getStorageType())
      return op->emitOpError()
             << "attribute '" << getQuantizedAttrName()
             << "' must be a quantized type whose storage type is the "
                "element type of the op's one result";
    return success();
  }
  return op->emitOpError() << "unknown qfx attribute '"
                           << attr.getName().getValue() << "', expected '"
                           << getOriginAttrName() << "', '"
                           << getQConfigAttrName() << "', '"
                           << getPatternAttrName() << "' or '"
                           << getQuantizedAttrName() << "'";
}
