//===- LowerObservers.cpp - Remove observers or call the runtime ----------===//
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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace qfx {
#define GEN_PASS_DEF_QFXLOWEROBSERVERS
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

namespace {

/// The runtime function every observer calls during calibration.
constexpr llvm::StringLiteral kObserveFunction = "qfxObserve";

struct QFXLowerObserversPass
    : qfx::impl::QFXLowerObserversBase<QFXLowerObserversPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    llvm::SmallVector<qfx::ObserveOp> observers;
    module.walk([&](qfx::ObserveOp op) { observers.push_back(op); });
    if (observers.empty())
      return;

    mlir::func::FuncOp callee;
    if (calibrate && failed(declareCallee(module, callee)))
      return signalPassFailure();

    mlir::OpBuilder builder(&getContext());
    for (auto [slot, op] : llvm::enumerate(observers)) {
      if (calibrate) {
        builder.setInsertionPoint(op);
        emitRuntimeCall(builder, callee, op, slot);
      }
      op.replaceAllUsesWith(op.getInput());
      op.erase();
    }
  }

  /// Declares `@qfxObserve(i64, tensor<*xf32>)` with a C interface, or
  /// reuses a matching declaration.
  mlir::LogicalResult declareCallee(mlir::ModuleOp module,
                                    mlir::func::FuncOp &callee) {
    mlir::MLIRContext *context = &getContext();
    auto type = mlir::FunctionType::get(
        context,
        {mlir::IntegerType::get(context, 64),
         mlir::UnrankedTensorType::get(mlir::Float32Type::get(context))},
        {});
    mlir::FailureOr<mlir::func::FuncOp> declared = qfx::declareRuntimeFunction(
        module, kObserveFunction, type, "calibration runtime");
    if (mlir::failed(declared))
      return mlir::failure();
    callee = *declared;
    // The runtime only reads the tensor: bufferization must neither copy it
    // nor assume it changed.
    callee.setArgAttr(1, "bufferization.access",
                      mlir::StringAttr::get(context, "read"));
    return mlir::success();
  }

  void emitRuntimeCall(mlir::OpBuilder &builder, mlir::func::FuncOp callee,
                       qfx::ObserveOp op, int64_t slot) {
    mlir::Location loc = op.getLoc();
    mlir::Value input = op.getInput();
    auto type = llvm::cast<mlir::ShapedType>(input.getType());
    auto f32 = builder.getF32Type();
    if (type.getElementType() != f32) {
      mlir::Type converted = type.clone(f32);
      if (type.getElementTypeBitWidth() < 32)
        input = mlir::arith::ExtFOp::create(builder, loc, converted, input);
      else
        input = mlir::arith::TruncFOp::create(builder, loc, converted, input);
    }
    mlir::Value unranked = mlir::tensor::CastOp::create(
        builder, loc, mlir::UnrankedTensorType::get(f32), input);
    mlir::Value slotValue =
        mlir::arith::ConstantIntOp::create(builder, loc, slot, 64);
    mlir::func::CallOp::create(builder, loc, callee,
                               mlir::ValueRange{slotValue, unranked});
  }
};
} // namespace
