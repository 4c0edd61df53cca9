//===- TosaBuilders.h - Small TOSA constructions qfx repeats ----*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The constants, shapes and roundings that qfx-lower's patterns and the
// expansion of qfx.contract both write in TOSA.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_UTILS_TOSABUILDERS_H
#define QFX_CONVERSION_UTILS_TOSABUILDERS_H

#include "qfx/Support/LLVM.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <utility>

namespace qfx::tosa_builders {

/// A zero point operand of TOSA's convolutions, matmul and rescale: a
/// one-element tensor of `element` (integer or float).
Value zeroPoint(OpBuilder &b, Location loc, Type element, int64_t zp);

/// A rank-1 integer constant of `width` bits.
Value constant1D(OpBuilder &b, Location loc, ArrayRef<int32_t> values,
                 unsigned width);
/// A rank-1 int8 constant.
Value constant1D(OpBuilder &b, Location loc, ArrayRef<int8_t> values);

/// The zero shift operand of tosa.mul.
Value noShift(OpBuilder &b, Location loc);

/// A tosa.const_shape of `shape`.
Value constShape(OpBuilder &b, Location loc, ArrayRef<int64_t> shape);

/// `value` reshaped to `shape` (itself if it has that shape).
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> shape);

/// A constant of `rank` dimensions broadcast along the last: [1, ..., 1, C],
/// or [1, ..., 1] when all values are equal.
Value channelConstant(OpBuilder &b, Location loc, int64_t rank,
                      ArrayRef<float> values);
Value channelConstant(OpBuilder &b, Location loc, int64_t rank,
                      ArrayRef<int32_t> values);

/// float32 `value` rounded half to even into int8: clamped to `range` less
/// `intZp` (rounding keeps integer bounds), tosa.cast (which rounds half to
/// even), plus the integer zero point `intZp`.
Value roundToInt8(OpBuilder &b, Location loc, Value value, int64_t intZp,
                  std::pair<int64_t, int64_t> range);

/// tosa.rescale of `input` to `outputElement` with `multipliers` and
/// `shifts` (one, or one per channel), TOSA's single rounding and 32-bit
/// multipliers.
Value rescale(OpBuilder &b, Location loc, Value input,
              ArrayRef<int32_t> multipliers, ArrayRef<int32_t> shifts,
              int64_t inputZp, int64_t outputZp, Type outputElement,
              bool inputUnsigned = false, bool outputUnsigned = false);

} // namespace qfx::tosa_builders

#endif // QFX_CONVERSION_UTILS_TOSABUILDERS_H
