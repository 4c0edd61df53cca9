//===- RuntimeFunctions.h - Declarations of qfx's runtime calls -*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_TRANSFORMS_RUNTIMEFUNCTIONS_H
#define QFX_LIB_TRANSFORMS_RUNTIMEFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace qfx {

/// The private declaration `@name` of `type` with a C interface
/// (`llvm.emit_c_interface`: the runtime implements `_mlir_ciface_NAME`):
/// added at the start of `module`, or the module's own if it has `type`;
/// failure, with an error saying it is reserved for `runtime`, if it has
/// another type.
inline mlir::FailureOr<mlir::func::FuncOp>
declareRuntimeFunction(mlir::ModuleOp module, llvm::StringRef name,
                       mlir::FunctionType type, llvm::StringRef runtime) {
  if (auto callee = module.lookupSymbol<mlir::func::FuncOp>(name)) {
    if (callee.getFunctionType() == type)
      return callee;
    return callee.emitError() << "@" << name << " is reserved for the "
                              << runtime << "; expected type " << type;
  }
  mlir::OpBuilder builder = mlir::OpBuilder::atBlockBegin(module.getBody());
  auto callee =
      mlir::func::FuncOp::create(builder, module.getLoc(), name, type);
  callee.setPrivate();
  callee->setAttr(mlir::LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  builder.getUnitAttr());
  return callee;
}

} // namespace qfx

#endif // QFX_LIB_TRANSFORMS_RUNTIMEFUNCTIONS_H
