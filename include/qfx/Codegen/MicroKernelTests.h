//===- MicroKernelTests.h - The microkernels, tested alone ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen's GEMM microkernels (lib/Codegen/MicroKernels.h) built alone,
// as IREE's mmt4d_test builds its ukernels: random tiles of one target's
// microkernel behind one C entry point, and a C header describing the
// tiles and the packed layouts, for a test driver that compares each tile
// with its own reference (test/Codegen/Inputs/microkernel-test.c; AArch64
// under qemu). tools/qfx-microkernels compiles them.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CODEGEN_MICROKERNELTESTS_H
#define QFX_CODEGEN_MICROKERNELTESTS_H

#include "qfx/Codegen/Targets.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace qfx {

/// The C entry point the tests are called through.
inline constexpr llvm::StringLiteral kMicroKernelTestsEntry =
    "qfx_microkernels";

/// Adds to `module` `count` random tiles of `target`'s microkernel (shapes
/// from the seed, the microkernel's largest and smallest tiles among them)
/// and the public function
///   qfx_microkernels(case: i64, a: memref<?xi8>, weights: memref<?xi8>,
///                    sums: memref<?xi8>)
/// that runs tile `case`: A is [rows][K] in the target's element type (the
/// microkernel packs it), the weights packed, [column blocks][k groups]
/// [lane][group], the sums [rows][blocks * lanes] int32. Returns the C
/// header: the target's lanes, group, element type, the tiles' shapes and a
/// wrapper over the entry point. Fails for a target without kernels.
llvm::Expected<std::string> buildMicroKernelTests(mlir::ModuleOp module,
                                                  NativeTarget target,
                                                  unsigned count,
                                                  uint32_t seed);

} // namespace qfx

#endif // QFX_CODEGEN_MICROKERNELTESTS_H
