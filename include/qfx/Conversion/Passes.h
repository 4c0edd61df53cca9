//===- Passes.h - qfx conversion passes -------------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_PASSES_H
#define QFX_CONVERSION_PASSES_H

#include "qfx/Dialect/QFX/IR/QFXDialect.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace arith {
class ArithDialect;
} // namespace arith
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace math {
class MathDialect;
} // namespace math
namespace quant {
class QuantDialect;
} // namespace quant
namespace tensor {
class TensorDialect;
} // namespace tensor
namespace tosa {
class TosaDialect;
} // namespace tosa
} // namespace mlir

namespace qfx {

#define GEN_PASS_DECL
#include "qfx/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "qfx/Conversion/Passes.h.inc"

} // namespace qfx

#endif // QFX_CONVERSION_PASSES_H
