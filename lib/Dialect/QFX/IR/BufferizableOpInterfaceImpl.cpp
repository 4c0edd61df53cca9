//===- BufferizableOpInterfaceImpl.cpp - qfx ops in bufferization ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/BufferizableOpInterfaceImpl.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {

/// qfx.host_call with tensors: reads each input (never in place: the host
/// writes only the results), and each result is a fresh buffer of identity
/// layout, which the host fills.
struct HostCallBufferization
    : BufferizableOpInterface::ExternalModel<HostCallBufferization,
                                             qfx::HostCallOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }

  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }

  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }

  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    // (Bufferization reaches only the tensor form.)
    auto call = llvm::cast<qfx::HostCallOp>(op);
    SmallVector<Value> inputs;
    for (Value input : call.getInputs()) {
      FailureOr<Value> buffer = getBuffer(rewriter, input, options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(*buffer);
    }
    SmallVector<Value> outputs;
    for (Value result : call.getResults()) {
      auto type = llvm::cast<RankedTensorType>(result.getType());
      FailureOr<Value> buffer = options.createAlloc(
          rewriter, call.getLoc(),
          MemRefType::get(type.getShape(), type.getElementType()), {});
      if (failed(buffer))
        return failure();
      outputs.push_back(*buffer);
    }
    qfx::HostCallOp::create(rewriter, call.getLoc(), TypeRange(),
                            call.getCalleeAttr(), call.getIdAttr(), inputs,
                            outputs);
    replaceOpWithBufferizedValues(rewriter, op, outputs);
    return success();
  }
};

} // namespace

void qfx::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, qfx::QFXDialect *) {
    qfx::HostCallOp::attachInterface<HostCallBufferization>(*context);
  });
}
