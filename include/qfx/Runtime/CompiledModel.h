//===- CompiledModel.h - JIT-compiled pipeline stages -----------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Compiles one function of any pipeline stage (float TOSA, observed,
// reference with quant casts) to native code in-process (ORC's LLJIT, the
// module's parts compiled in parallel), and runs it on .npy arrays.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_RUNTIME_COMPILEDMODEL_H
#define QFX_RUNTIME_COMPILEDMODEL_H

#include "qfx/Codegen/Targets.h"
#include "qfx/Runtime/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>

namespace qfx {
namespace runtime {
class Jit;
} // namespace runtime

/// The type of one argument or result of the entry function.
struct TensorSignature {
  NpyDType dtype;
  llvm::SmallVector<int64_t> shape;
  std::string describe() const;
};

/// Receives every tensor an observer sees while a calibrating model runs.
class ObservationSink {
public:
  virtual ~ObservationSink();
  /// `data` holds the observed tensor of shape `shape` (C order, float32)
  /// that reached the `slot`-th qfx.observe of the module (walk order).
  virtual void observe(int64_t slot, llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<float> data) = 0;
};

/// Runs the qfx.host_call ops of the programs this thread runs: `id` is the
/// op's, `buffers[0..count)` the C-order data of its inputs then of its
/// results, of the shapes and element types its types say (the results are
/// written). Returns 0, or non-zero if it failed.
using HostCallback = int (*)(void *userData, int64_t id, void *const *buffers,
                             size_t count);

/// Sets the calling thread's host callback (null: none), which the programs
/// CompiledModel::run runs on this thread call. A program reaching a
/// qfx.host_call without one, or whose callback fails, skips its later host
/// calls, and CompiledModel::run returns an error naming the call.
void setHostCallback(HostCallback callback, void *userData);

/// Options of CompiledModel::compile.
struct CompileOptions {
  /// The function to run; empty: the module's only public function.
  std::string entry;
  /// Call the calibration runtime from every qfx.observe (otherwise
  /// observers are removed).
  bool calibrate = false;
  /// qfx-codegen's target for the int8 kernels.
  NativeTarget codegenTarget = NativeTarget::Host;
  /// Run the AMX tile kernels with AVX-512 VNNI (qfx-emulate-amx), without
  /// asking Linux for AMX: for testing them on machines without AMX.
  bool emulateAmx = false;
  /// Write the LLVM IR the JIT compiles, after LLVM's optimizations, to
  /// this file (for reading what the code became); empty: none.
  std::string llvmIRPath;
  /// Take the program's buffers from qfx's buffer cache
  /// (qfx/Runtime/BufferCache.h) instead of malloc: CompiledModel::compile
  /// sets it (the JIT provides the cache's functions); an object file for
  /// another program calls malloc.
  bool bufferCache = false;
  /// End the lowering with qfx-byte-constants, for an object file's writer:
  /// CompiledModel::compile clears it (its JIT binds large constants to
  /// buffers instead of compiling them).
  bool byteConstants = true;
  /// The JIT's code reads large constants where the module's context holds
  /// them instead of copies of its own: only for a model that does not
  /// outlive that context (calibration compiles, runs and drops the model
  /// within one call).
  bool borrowConstants = false;
};

/// A model's entry function lowered to the LLVM dialect with a C interface
/// (`_mlir_ciface_ENTRY`, taking one memref descriptor per input, then one
/// per result), and its signature.
struct LoweredModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The entry function's name.
  std::string entry;
  llvm::SmallVector<TensorSignature> inputs, results;
};

/// Whether CompiledModel runs code of `target` here: host, none and the
/// targets of this machine's architecture.
bool isJitTarget(const NativeTargetInfo &target);

/// The name of the function to run: `name` if `module` defines it, for an
/// empty name the module's only public function with a body; errors name
/// the functions there are.
llvm::Expected<std::string> findEntry(mlir::ModuleOp module,
                                      llvm::StringRef name);

/// Lowers `options.entry` of `module` (which is cloned, not changed) with
/// CompiledModel's pipeline. Errors carry the MLIR diagnostics.
llvm::Expected<LoweredModel> lowerToLLVMDialect(mlir::ModuleOp module,
                                                const CompileOptions &options);

/// A function of a module, compiled and ready to run.
class CompiledModel {
public:
  ~CompiledModel();
  CompiledModel(CompiledModel &&) noexcept;

  /// The name of the function compiled.
  llvm::StringRef getEntry() const { return entry; }
  /// The entry function's argument and result types.
  llvm::ArrayRef<TensorSignature> getInputs() const { return inputs; }
  llvm::ArrayRef<TensorSignature> getResults() const { return results; }

  /// Checks `inputs` against the signature: one error naming the argument,
  /// the expected and the given dtype and shape.
  llvm::Error checkInputs(llvm::ArrayRef<NpyArray> inputs) const;

  /// Runs the function once. `inputs` must pass checkInputs. A model
  /// compiled with `calibrate` hands every observed tensor to `sink`.
  llvm::Expected<llvm::SmallVector<NpyArray>>
  run(llvm::ArrayRef<NpyArray> inputs, ObservationSink *sink = nullptr);

  /// Runs the function once on the C-order data of each input (read in
  /// place, never written), writing each result's C-order data to
  /// `results`: the buffers must have
  /// the signature's dtypes and shapes (nothing checks them; only their
  /// counts).
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<void *> results,
                  ObservationSink *sink = nullptr);

  /// Compiles `options.entry` of `module` (which is cloned, not changed).
  /// Its qfx.host_call ops call the thread's host callback when it runs
  /// (setHostCallback). The pipeline names qfx and upstream passes: the tool
  /// must have called qfx::registerQFXPasses(). Lowering failures carry the
  /// MLIR diagnostics.
  static llvm::Expected<CompiledModel> compile(mlir::ModuleOp module,
                                               const CompileOptions &options);

  /// The pass pipeline that lowers a stage to the LLVM dialect.
  static std::string getLoweringPipeline(const CompileOptions &options);

private:
  CompiledModel() = default;

  std::unique_ptr<runtime::Jit> jit;
  std::string entry;
  llvm::SmallVector<TensorSignature> inputs, results;
  /// The callee of each qfx.host_call, by id (for errors).
  std::map<int64_t, std::string> hostCallees;
};

} // namespace qfx

#endif // QFX_RUNTIME_COMPILEDMODEL_H
