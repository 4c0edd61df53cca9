//===- InitQFX.cpp - Register what a qfx pipeline needs -------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"

#include "qfx/Dialect/QFX/IR/QFXDialect.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmNeon/ArmNeonDialect.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void qfx::registerQFXDialects(mlir::DialectRegistry &registry) {
  registry.insert<qfx::QFXDialect, mlir::amx::AMXDialect,
                  mlir::arith::ArithDialect, mlir::arm_neon::ArmNeonDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::func::FuncDialect, mlir::LLVM::LLVMDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::quant::QuantDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
                  mlir::tosa::TosaDialect, mlir::vector::VectorDialect,
                  mlir::x86vector::X86VectorDialect>();
  // Bufferization, inlining and conversion-to-LLVM interfaces of those
  // dialects live in extensions.
  mlir::registerAllExtensions(registry);
}

void qfx::registerQFXPasses() {
  // Upstream's passes (canonicalize, cse, tosa-to-linalg, bufferization,
  // convert-*-to-llvm, ...). qfx's own passes register here as they land.
  mlir::registerAllPasses();
}
