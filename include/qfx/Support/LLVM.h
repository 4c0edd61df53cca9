//===- LLVM.h - Import common MLIR and LLVM names into qfx ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Files that define passes must not say `using namespace mlir` (the generated
// `impl::` names would clash); this header imports the names qfx uses most
// into namespace qfx instead.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_SUPPORT_LLVM_H
#define QFX_SUPPORT_LLVM_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class AsmParser;
class AsmPrinter;
class Attribute;
class Block;
class Builder;
class DialectRegistry;
class Location;
class MLIRContext;
class ModuleOp;
class OpBuilder;
class Operation;
class Pass;
class PatternRewriter;
class Region;
class RewritePatternSet;
class Type;
class Value;
} // namespace mlir

namespace qfx {
// mlir/Support/LLVM.h brings LLVM's ADT names (ArrayRef, StringRef, ...)
// into namespace mlir; re-export the common ones.
using mlir::ArrayRef;
using mlir::failed;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::ParseResult;
using mlir::SmallVector;
using mlir::StringRef;
using mlir::succeeded;
using mlir::success;

using mlir::AsmParser;
using mlir::AsmPrinter;
using mlir::Attribute;
using mlir::Block;
using mlir::Builder;
using mlir::DialectRegistry;
using mlir::Location;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::Pass;
using mlir::PatternRewriter;
using mlir::Region;
using mlir::RewritePatternSet;
using mlir::Type;
using mlir::Value;
} // namespace qfx

#endif // QFX_SUPPORT_LLVM_H
