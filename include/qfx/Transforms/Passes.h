//===- Passes.h - qfx transformation passes ---------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_TRANSFORMS_PASSES_H
#define QFX_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace arith {
class ArithDialect;
} // namespace arith
namespace func {
class FuncDialect;
} // namespace func
namespace LLVM {
class LLVMDialect;
} // namespace LLVM
namespace memref {
class MemRefDialect;
} // namespace memref
namespace tensor {
class TensorDialect;
} // namespace tensor
namespace tosa {
class TosaDialect;
} // namespace tosa
} // namespace mlir

namespace qfx {

class QFXDialect;

#define GEN_PASS_DECL
#include "qfx/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "qfx/Transforms/Passes.h.inc"

} // namespace qfx

#endif // QFX_TRANSFORMS_PASSES_H
