//===- BufferizableOpInterfaceImpl.h - qfx ops in bufferization -*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_BUFFERIZABLEOPINTERFACEIMPL_H
#define QFX_DIALECT_QFX_IR_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace qfx {

/// Attaches one-shot bufferization's interface to qfx.host_call: it reads
/// its inputs' buffers and writes its results into fresh ones (its buffer
/// form).
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace qfx

#endif // QFX_DIALECT_QFX_IR_BUFFERIZABLEOPINTERFACEIMPL_H
