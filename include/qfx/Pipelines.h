//===- Pipelines.h - qfx's named pass pipelines -----------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The stages of DESIGN.md's pipeline as named pass pipelines, registered with
// the passes (registerQFXPasses) so that `quant-opt` and `mlir-opt` with
// qfx's plugin run them by name:
//
//   qfx-prepare-pipeline   float model → observed model (qfx-fuse, qfx-prepare)
//   qfx-quantize-pipeline  calibrated model → int8 TOSA (qfx-convert,
//   qfx-lower) qfx-lower-to-native    any stage → the LLVM dialect, int8
//   patterns through
//                          qfx-codegen's kernels for a target
//
//===----------------------------------------------------------------------===//

#ifndef QFX_PIPELINES_H
#define QFX_PIPELINES_H

#include "qfx/Codegen/Targets.h"

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace qfx {

/// Options of qfx-prepare-pipeline: those of qfx-fuse and qfx-prepare.
struct PreparePipelineOptions
    : public mlir::PassPipelineOptions<PreparePipelineOptions> {
  Option<std::string> qconfigMapping{
      *this, "qconfig-mapping",
      llvm::cl::desc("A QConfigMapping JSON file or a preset (default:x86, "
                     "default:fbgemm, default:qnnpack, default:onednn)"),
      llvm::cl::init("default:x86")};
  Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc("A BackendConfig JSON file or a built-in table (x86, "
                     "fbgemm, qnnpack, onednn, tosa)"),
      llvm::cl::init("x86")};
  Option<std::string> engine{
      *this, "engine",
      llvm::cl::desc("qfx-prepare's engine: the PyTorch quantized engine "
                     "whose numerics the model follows (x86, fbgemm, qnnpack, "
                     "onednn); unset: the backend's")};
  Option<bool> foldBatchNorm{
      *this, "fold-batch-norm",
      llvm::cl::desc("Fold a per-channel affine (batch norm) after a conv or "
                     "matmul into its weights, as PyTorch's fusion does"),
      llvm::cl::init(true)};
};

/// qfx-fuse, then qfx-prepare.
void buildPreparePipeline(mlir::OpPassManager &pm,
                          const PreparePipelineOptions &options);

/// Options of qfx-quantize-pipeline: those of qfx-convert and qfx-lower.
struct QuantizePipelineOptions
    : public mlir::PassPipelineOptions<QuantizePipelineOptions> {
  Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc("The BackendConfig the model was prepared with: a JSON "
                     "file or a built-in table"),
      llvm::cl::init("x86")};
  Option<std::string> dynamicReduceRange{
      *this, "dynamic-reduce-range",
      llvm::cl::desc("true: dynamic quantization computes activation qparams "
                     "in quint8 [0, 127] (PyTorch's reduce_range on x86); "
                     "false: [0, 255]; unset: as the engine of the model's "
                     "backend does (reduced but for qnnpack)")};
};

/// qfx-convert, then qfx-lower on every function.
void buildQuantizePipeline(mlir::OpPassManager &pm,
                           const QuantizePipelineOptions &options);

/// Options of qfx-lower-to-native.
struct LowerToNativeOptions
    : public mlir::PassPipelineOptions<LowerToNativeOptions> {
  Option<NativeTarget> target{
      *this, "target",
      llvm::cl::desc("qfx-codegen's target for the int8 kernels "
                     "(qfx/Codegen/Targets.h)"),
      llvm::cl::init(NativeTarget::Host), nativeTargetValues()};
  Option<bool> calibrate{
      *this, "calibrate",
      llvm::cl::desc("Call the calibration runtime from every qfx.observe "
                     "(otherwise observers are removed)"),
      llvm::cl::init(false)};
  Option<bool> emulateAmx{
      *this, "emulate-amx",
      llvm::cl::desc("Run the AMX tile kernels with AVX-512 VNNI, for "
                     "testing them without AMX"),
      llvm::cl::init(false)};
  Option<bool> bufferCache{
      *this, "buffer-cache",
      llvm::cl::desc("Allocate and free buffers with MLIR's generic "
                     "functions (_mlir_memref_to_llvm_alloc, ..._free), "
                     "which qfx's runtime gives its buffer cache; "
                     "otherwise malloc and free"),
      llvm::cl::init(false)};
  Option<bool> byteConstants{
      *this, "byte-constants",
      llvm::cl::desc("End with qfx-byte-constants (large constants as "
                     "arrays of bytes, for LLVM's object writer); qfx's JIT "
                     "does not compile large constants and turns it off"),
      llvm::cl::init(true)};
};

/// The passes of qfx-lower-to-native as a textual pipeline on a
/// builtin.module: observers lowered (or removed), fused and composite
/// regions inlined, qfx-codegen's kernels, then upstream's lowering of TOSA,
/// linalg and buffers to the LLVM dialect with a C interface per public
/// function.
std::string getLowerToNativePasses(const LowerToNativeOptions &options);

/// Adds those passes to `pm`. Fails, writing why to `errors`, when one of
/// upstream's passes is not registered (mlir::registerAllPasses).
llvm::LogicalResult
buildLowerToNativePipeline(mlir::OpPassManager &pm,
                           const LowerToNativeOptions &options,
                           llvm::raw_ostream &errors);

/// Registers the three pipelines by name (once, however often it is called).
void registerQFXPipelines();

} // namespace qfx

#endif // QFX_PIPELINES_H
