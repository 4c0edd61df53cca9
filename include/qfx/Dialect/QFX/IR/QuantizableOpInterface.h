//===- QuantizableOpInterface.h - What quantizing an op needs ---*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QUANTIZABLEOPINTERFACE_H
#define QFX_DIALECT_QFX_IR_QUANTIZABLEOPINTERFACE_H

#include "qfx/Config/LoweringKind.h"

#include "mlir/IR/OpDefinition.h"

#include <functional>
#include <optional>

namespace mlir {
class DialectRegistry;
} // namespace mlir

#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.h.inc"

namespace qfx {

/// Attaches QuantizableOpInterface to the TOSA ops qfx quantizes.
void registerQuantizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

/// The output channel each element (row-major index) of the weight of `op`
/// feeds, from its getWeightChannelAxes and the weight's static shape; none
/// if the op has no weight channel axes or the shape is not static.
std::optional<std::function<int64_t(int64_t)>>
getWeightChannelOf(QuantizableOpInterface op);

} // namespace qfx

#endif // QFX_DIALECT_QFX_IR_QUANTIZABLEOPINTERFACE_H
