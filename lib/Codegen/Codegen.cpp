//===- Codegen.cpp - the qfx-codegen passes -------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen picks the target's kernels and replaces each int8 chain they
// take (DotKernels.cpp: matmul and conv2d; DepthwiseKernels.cpp: depthwise
// convolutions) with a call of a generated kernel; qfx-lower-intrinsic-calls
// turns the kernels' intrinsic placeholders into LLVM intrinsics.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "Kernels.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace qfx {
#define GEN_PASS_DEF_QFXCODEGEN
#define GEN_PASS_DEF_QFXLOWERINTRINSICCALLS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

namespace qfx::codegen {
namespace {

/// The kernels for this machine, if it has an instruction qfx-codegen uses.
const KernelTarget *getHostTarget() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512vnni") && features.lookup("avx512bw"))
    return &kVnni;
  if (features.lookup("avx2"))
    return &kAvx2;
  if (features.lookup("i8mm"))
    return &kI8mm;
  if (features.lookup("dotprod"))
    return &kSdot;
  return nullptr;
}

struct QFXCodegenPass : qfx::impl::QFXCodegenBase<QFXCodegenPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    const KernelTarget *kernels = nullptr;
    if (target == "host")
      kernels = getHostTarget();
    else if (target == kVnni.name)
      kernels = &kVnni;
    else if (target == kSdot.name)
      kernels = &kSdot;
    else if (target == kI8mm.name)
      kernels = &kI8mm;
    else if (target == kAvx2.name)
      kernels = &kAvx2;
    else if (target != "none") {
      module.emitError() << "qfx-codegen: unknown target '" << target
                         << "', expected x86-64-avx512vnni, x86-64-avx2, "
                            "aarch64-dotprod, aarch64-i8mm, host or none";
      return signalPassFailure();
    }
    if (!kernels)
      return;
    std::vector<Chain> chains;
    module.walk([&](mlir::Operation *op) {
      std::optional<Chain> start = matchDotStart(op);
      if (!start)
        start = matchDepthwiseStart(op);
      if (!start)
        return;
      if (std::optional<Chain> chain = matchEpilogue(std::move(*start)))
        chains.push_back(std::move(*chain));
    });
    mlir::SymbolTable symbols(module);
    for (auto [i, chain] : llvm::enumerate(chains)) {
      std::string name =
          (kernels->prefix + (chain.isDepthwise() ? "depthwise_" : "matmul_"))
              .str() +
          std::to_string(i);
      while (symbols.lookup(name))
        name += "_";
      mlir::func::FuncOp kernel =
          chain.isDepthwise()
              ? buildDepthwiseKernel(module, chain, *kernels, name)
              : buildDotKernel(module, chain, *kernels, name);
      replaceChain(chain, kernel);
    }
  }
};

struct QFXLowerIntrinsicCallsPass
    : qfx::impl::QFXLowerIntrinsicCallsBase<QFXLowerIntrinsicCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    llvm::SmallVector<mlir::func::FuncOp> declarations;
    for (auto func : module.getOps<mlir::func::FuncOp>())
      if (func.isExternal() && func->hasAttr(kIntrinsicAttr))
        declarations.push_back(func);
    for (mlir::func::FuncOp decl : declarations) {
      auto intrinsic = decl->getAttrOfType<mlir::StringAttr>(kIntrinsicAttr);
      std::optional<mlir::SymbolTable::UseRange> uses =
          mlir::SymbolTable::getSymbolUses(decl, module);
      for (const mlir::SymbolTable::SymbolUse &use : *uses) {
        auto call = llvm::dyn_cast<mlir::func::CallOp>(use.getUser());
        if (!call) {
          use.getUser()->emitError()
              << "qfx-lower-intrinsic-calls: " << decl.getName()
              << " is used other than by func.call";
          return signalPassFailure();
        }
        mlir::OpBuilder b(call);
        auto replacement = mlir::LLVM::CallIntrinsicOp::create(
            b, call.getLoc(), call.getResultTypes(), intrinsic,
            call.getOperands(), mlir::LLVM::FastmathFlagsAttr{});
        call->replaceAllUsesWith(replacement);
        call.erase();
      }
      decl.erase();
    }
  }
};

} // namespace
} // namespace qfx::codegen
