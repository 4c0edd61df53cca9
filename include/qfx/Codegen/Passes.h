//===- Passes.h - qfx code generation passes --------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CODEGEN_PASSES_H
#define QFX_CODEGEN_PASSES_H

#include "qfx/Codegen/Targets.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace affine {
class AffineDialect;
} // namespace affine
namespace amx {
class AMXDialect;
} // namespace amx
namespace arith {
class ArithDialect;
} // namespace arith
namespace bufferization {
class BufferizationDialect;
} // namespace bufferization
namespace func {
class FuncDialect;
} // namespace func
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace LLVM {
class LLVMDialect;
} // namespace LLVM
namespace memref {
class MemRefDialect;
} // namespace memref
namespace quant {
class QuantDialect;
} // namespace quant
namespace scf {
class SCFDialect;
} // namespace scf
namespace tensor {
class TensorDialect;
} // namespace tensor
namespace tosa {
class TosaDialect;
} // namespace tosa
namespace vector {
class VectorDialect;
} // namespace vector
} // namespace mlir

namespace qfx {

#define GEN_PASS_DECL
#include "qfx/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "qfx/Codegen/Passes.h.inc"

} // namespace qfx

#endif // QFX_CODEGEN_PASSES_H
