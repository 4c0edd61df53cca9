//===- LowerHostCalls.cpp - qfx.host_call as calls of the runtime ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/Passes.h"

#include "RuntimeFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace qfx {
#define GEN_PASS_DEF_QFXLOWERHOSTCALLS
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// The runtime function every host call calls.
constexpr llvm::StringLiteral kHostCallFunction = "qfxHostCall";

struct QFXLowerHostCallsPass
    : qfx::impl::QFXLowerHostCallsBase<QFXLowerHostCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<qfx::HostCallOp> calls;
    module.walk([&](qfx::HostCallOp op) {
      if (op.hasBufferSemantics())
        calls.push_back(op);
    });
    if (calls.empty())
      return;
    // @qfxHostCall(i64, memref<?xi64>).
    MLIRContext *context = &getContext();
    auto i64 = IntegerType::get(context, 64);
    auto type = FunctionType::get(
        context, {i64, MemRefType::get({ShapedType::kDynamic}, i64)}, {});
    FailureOr<func::FuncOp> callee = qfx::declareRuntimeFunction(
        module, kHostCallFunction, type, "host-call runtime");
    if (failed(callee))
      return signalPassFailure();
    for (qfx::HostCallOp op : calls)
      lower(op, *callee);
  }

  void lower(qfx::HostCallOp op, func::FuncOp callee) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    // C-order copies of strided buffers; outputs are copied back after.
    SmallVector<Value> buffers, temporaries;
    SmallVector<std::pair<Value, Value>> copyBack;
    auto contiguous = [&](Value buffer) -> Value {
      auto type = llvm::cast<MemRefType>(buffer.getType());
      if (type.getLayout().isIdentity())
        return buffer;
      Value copy = memref::AllocOp::create(
          builder, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          MemRefLayoutAttrInterface(), type.getMemorySpace()));
      temporaries.push_back(copy);
      return copy;
    };
    for (Value input : op.getInputs()) {
      Value buffer = contiguous(input);
      if (buffer != input)
        memref::CopyOp::create(builder, loc, input, buffer);
      buffers.push_back(buffer);
    }
    for (Value output : op.getOutputs()) {
      Value buffer = contiguous(output);
      if (buffer != output)
        copyBack.push_back({buffer, output});
      buffers.push_back(buffer);
    }
    auto i64 = builder.getI64Type();
    auto count = static_cast<int64_t>(buffers.size());
    Value pointers =
        memref::AllocaOp::create(builder, loc, MemRefType::get({count}, i64));
    for (auto [index, buffer] : llvm::enumerate(buffers)) {
      Value address =
          memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
      Value address64 = arith::IndexCastOp::create(builder, loc, i64, address);
      Value position = arith::ConstantIndexOp::create(builder, loc, index);
      memref::StoreOp::create(builder, loc, address64, pointers, position);
    }
    Value dynamic = memref::CastOp::create(
        builder, loc, MemRefType::get({ShapedType::kDynamic}, i64), pointers);
    Value id = arith::ConstantIntOp::create(builder, loc, op.getId(), 64);
    func::CallOp::create(builder, loc, callee, ValueRange{id, dynamic});
    for (auto [buffer, output] : copyBack)
      memref::CopyOp::create(builder, loc, buffer, output);
    for (Value temporary : temporaries)
      memref::DeallocOp::create(builder, loc, temporary);
    op.erase();
  }
};

} // namespace
