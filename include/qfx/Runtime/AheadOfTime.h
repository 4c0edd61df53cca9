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

/// Compiles an LLVM-dialect module to an ELF object for `target` at -O3,
/// instrumented for ThreadSanitizer if `sanitizeThreads`. Only `exported`
/// keeps external linkage.
llvm::Expected<std::string> emitObject(mlir::ModuleOp module,
                                       const AotTarget &target,
                                       llvm::StringRef exported,
                                       bool sanitizeThreads = false);

/// The C header for a model whose entry point is `_mlir_ciface_FUNCTION`:
/// memref descriptor types, the declaration, and an inline wrapper
/// `qfx_FUNCTION(inputs..., outputs...)` over plain C-order arrays.
std::string generateHeader(llvm::StringRef function,
                           llvm::ArrayRef<TensorSignature> inputs,
                           llvm::ArrayRef<TensorSignature> results,
                           llvm::StringRef source, const AotTarget &target);

/// What compileAheadOfTime writes.
struct AotOptions {
  /// The function to compile; empty: the module's only public function.
  std::string entry;
  /// The name it is exported under (_mlir_ciface_NAME and the header's
  /// qfx_NAME); empty: the entry's name. A C identifier.
  std::string exportName;
  /// An object file (.o) or a shared library (.so, linked with clang).
  std::string outputPath;
  /// The C header; empty: the output path with .h.
  std::string headerPath;
  /// What the header says it was compiled from.
  std::string sourceName;
  /// Instrument the code for ThreadSanitizer: a program that links it must
  /// be built with -fsanitize=thread (its runtime), as clang's own objects.
  bool sanitizeThreads = false;
};

/// quant-compile: lowers `options.entry` of `module` (cloned, not changed)
/// with qfx-lower-to-native for `target`, compiles it at -O3 and writes the
/// object file or shared library and its C header. A shared library links
/// MLIR's C runner utilities and the OpenMP runtime, found at run time where
/// qfx found them. Errors carry the MLIR diagnostics; nothing is left behind
/// on failure.
llvm::Error compileAheadOfTime(mlir::ModuleOp module, const AotTarget &target,
                               const AotOptions &options);

} // namespace qfx

#endif // QFX_RUNTIME_AHEADOFTIME_H
