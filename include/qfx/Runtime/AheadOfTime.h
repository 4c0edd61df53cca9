//===- AheadOfTime.h - Compile a model to an object file --------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// quant-compile's library: a model lowered to the LLVM dialect
// (lowerToLLVMDialect) compiled by LLVM for a named target to an object file,
// and the C header that declares its entry point.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_RUNTIME_AHEADOFTIME_H
#define QFX_RUNTIME_AHEADOFTIME_H

#include "qfx/Runtime/CompiledModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace qfx {

/// A target quant-compile generates code for: one of the registry's
/// (qfx/Codegen/Targets.h) with a triple.
struct AotTarget {
  NativeTarget target;
  /// quant-compile's name, e.g. "x86-64-avx512vnni".
  llvm::StringRef name;
  llvm::StringRef triple;
  llvm::StringRef cpu;
  llvm::StringRef features;
  llvm::StringRef description;
};

/// Whether quant-compile compiles for `target` (all but none).
bool isAotTarget(const NativeTargetInfo &target);

/// The target called `name`, or an error listing the names. "host" resolves
/// to this machine's triple and CPU.
llvm::Expected<AotTarget> lookupAotTarget(llvm::StringRef name);

/// Compiles an LLVM-dialect module to an ELF object for `target` at -O3.
/// Only `exported` keeps external linkage.
llvm::Expected<std::string> emitObject(mlir::ModuleOp module,
                                       const AotTarget &target,
                                       llvm::StringRef exported);

/// The C header for a model whose entry point is `_mlir_ciface_FUNCTION`:
/// memref descriptor types, the declaration, and an inline wrapper
/// `qfx_FUNCTION(inputs..., outputs...)` over plain C-order arrays.
std::string generateHeader(llvm::StringRef function,
                           llvm::ArrayRef<TensorSignature> inputs,
                           llvm::ArrayRef<TensorSignature> results,
                           llvm::StringRef source, const AotTarget &target);

} // namespace qfx

#endif // QFX_RUNTIME_AHEADOFTIME_H
