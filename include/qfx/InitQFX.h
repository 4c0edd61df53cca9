//===- InitQFX.h - Register what a qfx pipeline needs -----------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The dialects, interfaces and passes a quantization pipeline uses, from the
// float TOSA model to LLVM, registered in one place so that every qfx tool,
// and every compiler that embeds qfx, sees the same set.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_INITQFX_H
#define QFX_INITQFX_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace qfx {

/// Registers qfx and the upstream dialects a pipeline needs (func, arith,
/// math, tensor, tosa, quant, linalg, bufferization, memref, scf, vector,
/// x86vector, amx, arm_neon, llvm) with their external interface models,
/// and qfx's QuantizableOpInterface models of the TOSA ops.
void registerQFXDialects(mlir::DialectRegistry &registry);

/// Registers qfx's passes, its named pipelines (qfx/Pipelines.h) and
/// upstream's passes, which the pipelines name.
void registerQFXPasses();

/// Registers qfx's passes and named pipelines only: for a host that
/// registers upstream's passes itself (mlir-opt loading qfx's plugin).
void registerQFXOnlyPasses();

} // namespace qfx

#endif // QFX_INITQFX_H
