//===- Jit.h - LLVM-dialect modules compiled in parallel --------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// CompiledModel's JIT: an LLVM-dialect module is split into partitions (its
// functions spread by size, each global with its first user), each
// partition is translated to LLVM IR, optimized and compiled to an object
// file on its own thread of the MLIR context's pool, and ORC's LLJIT links
// the objects in this process. mlir::ExecutionEngine compiles one module on
// one thread, and LLVM's code generation is most of a large model's compile
// time.
//
// A large constant global (a model's weights) is not compiled: the Jit
// copies its bytes into a buffer of its own and binds the global's symbol
// to it (a Jit that does not outlive the module's context reads them where
// the context holds them). Compiled, the bytes would be copied three times over
// (an LLVM IR constant, the object file, the JIT's memory) and written out by
// LLVM's code generation.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_RUNTIME_JIT_H
#define QFX_LIB_RUNTIME_JIT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace qfx::runtime {

/// Whether qfx is built with ThreadSanitizer (QFX_SANITIZE=thread).
#ifdef __SANITIZE_THREAD__
inline constexpr bool kBuiltWithThreadSanitizer = true;
#else
inline constexpr bool kBuiltWithThreadSanitizer = false;
#endif

struct JitOptions {
  /// The function to call: it takes pointers only, returns nothing, and is
  /// called with an array of its arguments (see Jit::call).
  std::string entry;
  /// LLVM's middle-end optimization level (0-3).
  unsigned optLevel = 2;
  /// Optimize for the host's vector registers (the loop vectorizer's cost
  /// model), not for a target without any.
  bool hostCostModel = true;
  /// Also write the optimized LLVM IR to this file; the module is then
  /// compiled as one partition, so that the file is one module.
  std::string llvmIRPath;
  /// Shared libraries the code's external functions are looked up in.
  llvm::SmallVector<std::string> libraries;
  /// Functions of this process the code calls, by name.
  llvm::StringMap<void *> symbols;
  /// Constant globals of more bytes than this are bound to a buffer of the
  /// Jit instead of being compiled (see the file comment). Smaller ones
  /// (lookup tables) stay in the code, where LLVM knows their values.
  size_t maxCompiledConstantBytes = 4096;
  /// Bind those constants to copies the Jit owns. Otherwise the code reads
  /// the bytes where the module's context holds them (no copy; the
  /// global's alignment becomes theirs): the context must outlive the Jit.
  bool copyConstants = true;
  /// Instrument the code for ThreadSanitizer, whose runtime must be in the
  /// process: the default when qfx itself is built with it
  /// (QFX_SANITIZE=thread), so that races in a model's code are reported
  /// with those of qfx's own.
  bool sanitizeThreads = kBuiltWithThreadSanitizer;
};

/// Instruments every function of `module` for ThreadSanitizer, as clang's
/// -fsanitize=thread does after optimizing: the code then calls TSan's
/// runtime, which the (instrumented) process that runs it must have.
void instrumentForThreadSanitizer(llvm::Module &module,
                                  llvm::TargetMachine &machine);

/// An LLVM-dialect module compiled and linked in this process.
class Jit {
public:
  ~Jit();
  Jit(Jit &&) noexcept;

  /// Compiles `module` (the LLVM dialect, translatable to LLVM IR; it is
  /// changed: the entry's wrapper is added) in as many partitions as the
  /// context has threads, at most one per function (one if multithreading
  /// is disabled or `options.llvmIRPath` is set).
  static llvm::Expected<Jit> compile(mlir::ModuleOp module,
                                     const JitOptions &options);

  /// Calls the entry function with `arguments[i]` as its i-th argument.
  void call(void **arguments) const { entry(arguments); }

  /// How many objects the module was compiled into.
  unsigned getNumPartitions() const { return numPartitions; }

  /// How many constant globals are bound instead of compiled, their bytes,
  /// and the bytes of the Jit's copies of them.
  size_t getNumBoundConstants() const { return numBound; }
  size_t getBoundConstantBytes() const { return boundBytes; }
  size_t getCopiedConstantBytes() const { return copiedBytes; }

private:
  Jit() = default;
  struct FreeAligned {
    size_t size, alignment;
    void operator()(char *data) const;
  };
  using Constant = std::unique_ptr<char[], FreeAligned>;
  /// Makes each large constant global of `module` (more than `maxBytes`) an
  /// external declaration of the same name, which `symbols` binds to its
  /// bytes: copied into a buffer of its alignment (a cache line at least)
  /// if `copy`, else where the context holds them.
  void bindConstants(mlir::ModuleOp module, size_t maxBytes, bool copy,
                     llvm::StringMap<void *> &symbols);
  /// Declared before the JIT: the code refers to them until it is gone.
  llvm::SmallVector<Constant, 0> constants;
  size_t numBound = 0, boundBytes = 0, copiedBytes = 0;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
  unsigned numPartitions = 0;
};

} // namespace qfx::runtime

#endif // QFX_LIB_RUNTIME_JIT_H
