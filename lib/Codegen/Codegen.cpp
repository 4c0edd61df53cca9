//===- Codegen.cpp - the qfx-codegen passes -------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen picks the target's kernels and replaces each qfx.contract they
// take (DotKernels.cpp: matmul and conv2d; DepthwiseKernels.cpp: depthwise
// convolutions; FloatKernels.cpp: float ones) and each int8 max pool
// (PoolKernels.cpp) with a call of a generated kernel;
// qfx-lower-intrinsic-calls turns the kernels' intrinsic placeholders into
// LLVM intrinsics.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "Kernels.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/TargetParser/Host.h"

#include <limits>

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

} // namespace

const KernelTarget *getKernels(NativeTarget target) {
  switch (target) {
  case NativeTarget::Host:
    return getHostTarget();
  case NativeTarget::X86Avx512Vnni:
    return &kVnni;
  case NativeTarget::X86Amx:
    return &kAmx;
  case NativeTarget::X86Avx2:
    return &kAvx2;
  case NativeTarget::AArch64DotProd:
    return &kSdot;
  case NativeTarget::AArch64I8mm:
    return &kI8mm;
  case NativeTarget::None:
    return nullptr;
  }
  llvm_unreachable("unknown NativeTarget");
}

namespace {

constexpr llvm::StringLiteral kInlineAsmAttr = "qfx_inline_asm";
constexpr llvm::StringLiteral kInlineAsmConstraintsAttr =
    "qfx_inline_asm_constraints";

/// @qfx_amx_ready() -> i1: whether this process may use AMX tile data,
/// asked of Linux once (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA):
/// refused on CPUs or kernels without AMX) and remembered in a global.
mlir::func::FuncOp getAmxReady(mlir::ModuleOp module) {
  constexpr llvm::StringLiteral name = "qfx_amx_ready";
  if (auto existing = module.lookupSymbol<mlir::func::FuncOp>(name))
    return existing;
  Location loc = module.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  // The system call as a placeholder until qfx-lower-intrinsic-calls makes
  // it inline assembly (rax = 158, arch_prctl; rdi = 0x1023,
  // ARCH_REQ_XCOMP_PERM; rsi = 18, XFEATURE_XTILEDATA).
  auto syscall = mlir::func::FuncOp::create(
      b, loc, "qfx.syscall", b.getFunctionType({i64, i64, i64}, {i64}));
  syscall.setPrivate();
  syscall->setAttr(kInlineAsmAttr, b.getStringAttr("syscall"));
  syscall->setAttr(kInlineAsmConstraintsAttr,
                   b.getStringAttr("={ax},{ax},{di},{si},~{rcx},~{r11},"
                                   "~{memory},~{dirflag},~{fpsr},~{flags}"));
  // 0: not asked yet, 1: granted, 2: refused. Kernels run on many threads
  // at once: the state is read and written atomically (two threads that
  // both find it unasked both ask, and Linux gives both one answer).
  mlir::LLVM::GlobalOp::create(b, loc, i32, /*isConstant=*/false,
                               mlir::LLVM::Linkage::Internal, "qfx_amx_state",
                               b.getI32IntegerAttr(0));
  auto ready =
      mlir::func::FuncOp::create(b, loc, name, b.getFunctionType({}, {i1}));
  ready.setPrivate();
  b.setInsertionPointToStart(ready.addEntryBlock());
  auto constant = [&](Type type, int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value global = mlir::LLVM::AddressOfOp::create(
      b, loc, mlir::LLVM::LLVMPointerType::get(b.getContext()),
      "qfx_amx_state");
  Value state = mlir::LLVM::LoadOp::create(
      b, loc, i32, global, /*alignment=*/4, /*isVolatile=*/false,
      /*isNonTemporal=*/false, /*isInvariant=*/false,
      /*isInvariantGroup=*/false, mlir::LLVM::AtomicOrdering::monotonic);
  Value notAsked = constant(i32, 0), yes = constant(i32, 1),
        no = constant(i32, 2);
  Value archPrctl = constant(i64, 158),
        requestPermission = constant(i64, 0x1023), tileData = constant(i64, 18),
        success = constant(i64, 0);
  Value unknown =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, state, notAsked);
  auto ask = mlir::scf::IfOp::create(b, loc, mlir::TypeRange{i32}, unknown,
                                     /*withElseRegion=*/true);
  {
    OpBuilder tb = ask.getThenBodyBuilder();
    Value result = mlir::func::CallOp::create(
                       tb, loc, syscall,
                       mlir::ValueRange{archPrctl, requestPermission, tileData})
                       .getResult(0);
    Value granted = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::eq,
                                          result, success);
    Value answer = arith::SelectOp::create(tb, loc, granted, yes, no);
    mlir::LLVM::StoreOp::create(tb, loc, answer, global, /*alignment=*/4,
                                /*isVolatile=*/false, /*isNonTemporal=*/false,
                                /*isInvariantGroup=*/false,
                                mlir::LLVM::AtomicOrdering::monotonic);
    mlir::scf::YieldOp::create(tb, loc, answer);
    OpBuilder eb = ask.getElseBodyBuilder();
    mlir::scf::YieldOp::create(eb, loc, state);
  }
  Value granted = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        ask.getResult(0), yes);
  mlir::func::ReturnOp::create(b, loc, granted);
  return ready;
}

/// The kernel functions built so far, by type. A kernel's constants are
/// its arguments, so chains of the same geometry and epilogue build the
/// same function: a new kernel whose attributes (its name aside) and body
/// are those of an earlier one is erased, and the earlier one called.
class KernelFunctions {
public:
  /// `kernel`'s function, or the earlier one it is the same as.
  Kernel reuse(Kernel kernel) {
    llvm::SmallVector<mlir::func::FuncOp> &candidates =
        byType[kernel.func.getFunctionType()];
    for (mlir::func::FuncOp existing : candidates)
      if (attributesOf(existing) == attributesOf(kernel.func) &&
          mlir::OperationEquivalence::isRegionEquivalentTo(
              &existing.getBody(), &kernel.func.getBody(),
              mlir::OperationEquivalence::IgnoreLocations)) {
        kernel.func.erase();
        kernel.func = existing;
        return kernel;
      }
    candidates.push_back(kernel.func);
    return kernel;
  }

private:
  static mlir::DictionaryAttr attributesOf(mlir::func::FuncOp func) {
    mlir::NamedAttrList attributes(func->getAttrDictionary());
    attributes.erase(func.getSymNameAttrName());
    return attributes.getDictionary(func.getContext());
  }

  llvm::DenseMap<Type, llvm::SmallVector<mlir::func::FuncOp>> byType;
};

/// The kernel of an AMX chain: the tile kernel if Linux grants AMX, else
/// the VNNI kernel (AMX CPUs have VNNI); it takes both kernels' constants.
Kernel buildAmxKernel(mlir::ModuleOp module, const Chain &chain,
                      const std::string &name, KernelFunctions &functions) {
  Kernel tiles = buildDotKernel(module, chain, kAmx, name + "_tiles");
  // The tile kernel is compiled for AMX whatever the module's target is
  // (quant-run compiles for this machine); only called where it runs.
  mlir::MLIRContext *context = module.getContext();
  tiles.func->setAttr(
      "target_features",
      mlir::LLVM::TargetFeaturesAttr::get(
          context, llvm::ArrayRef<llvm::StringRef>{"+amx-tile", "+amx-int8"}));
  tiles = functions.reuse(std::move(tiles));
  Kernel vnni =
      functions.reuse(buildDotKernel(module, chain, kVnni, name + "_vnni"));
  // The VNNI kernel reads the tile kernel's packed weights (and may share
  // other constants): one global each.
  for (mlir::memref::GlobalOp &constant : vnni.constants)
    for (mlir::memref::GlobalOp shared : tiles.constants)
      if (shared.getType() == constant.getType() &&
          shared.getInitialValueAttr() == constant.getInitialValueAttr()) {
        constant.erase();
        constant = shared;
        break;
      }
  mlir::func::FuncOp ready = getAmxReady(module);
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = module.getLoc();
  // (input, output, the tile kernel's constants, the VNNI kernel's).
  llvm::SmallVector<Type> types(tiles.func.getArgumentTypes());
  llvm::append_range(types, vnni.func.getArgumentTypes().drop_front(2));
  auto dispatch =
      mlir::func::FuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  dispatch.setPrivate();
  b.setInsertionPointToStart(dispatch.addEntryBlock());
  Value granted = mlir::func::CallOp::create(b, loc, ready, mlir::ValueRange{})
                      .getResult(0);
  mlir::ValueRange arguments = dispatch.getArguments();
  size_t split = tiles.func.getNumArguments();
  auto call = [&](OpBuilder &cb, Location l, mlir::func::FuncOp callee,
                  mlir::ValueRange constants) {
    llvm::SmallVector<Value> operands(arguments.take_front(2));
    llvm::append_range(operands, constants);
    mlir::func::CallOp::create(cb, l, callee, operands);
    mlir::scf::YieldOp::create(cb, l);
  };
  mlir::scf::IfOp::create(
      b, loc, granted,
      [&](OpBuilder &tb, Location l) {
        call(tb, l, tiles.func, arguments.slice(2, split - 2));
      },
      [&](OpBuilder &eb, Location l) {
        call(eb, l, vnni.func, arguments.drop_front(split));
      });
  mlir::func::ReturnOp::create(b, loc);
  Kernel kernel{dispatch, std::move(tiles.constants)};
  llvm::append_range(kernel.constants, vnni.constants);
  return kernel;
}

struct QFXCodegenPass : qfx::impl::QFXCodegenBase<QFXCodegenPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    // The target the kernels are for, "none" without kernels.
    const KernelTarget *kernels = getKernels(target);
    module->setAttr(
        qfx::QFXDialect::getTargetAttrName(),
        mlir::StringAttr::get(
            &getContext(),
            getNativeTargetInfo(kernels ? kernels->target : NativeTarget::None)
                .name));
    if (!kernels)
      return;
    // The GEMMs' weights packed for the microkernels (qfx-pack-weights, for
    // the contractions it has not packed), then evaluated.
    packContractWeights(module, *kernels);
    if (failed(foldPackedWeights(module)))
      return signalPassFailure();
    std::vector<Chain> chains;
    module.walk([&](mlir::Operation *op) {
      std::optional<Chain> chain;
      if (auto contract = llvm::dyn_cast<ContractOp>(op))
        chain = matchContract(contract);
      else
        chain = matchMaxPool(op);
      if (chain)
        chains.push_back(std::move(*chain));
    });
    // A packing for other kernels (qfx-pack-weights with another target) is
    // an error, not a reason to run the generic lowering.
    for (const Chain &chain : chains) {
      // (AMX's VNNI fallback reads its int8 packing too.)
      if (!isPackedGemm(chain) ||
          (readsPacking(chain, *kernels) &&
           (chain.f32 || !kernels->is(MicroKernelKind::Tiles) ||
            readsPacking(chain, kVnni))))
        continue;
      chain.op->emitOpError()
          << "has weights packed as " << chain.op->getAttr("weight_packing")
          << ", which the kernels of target "
          << getNativeTargetInfo(kernels->target).name
          << " do not read (qfx-pack-weights packs for the target given to "
             "it)";
      return signalPassFailure();
    }
    mlir::SymbolTable symbols(module);
    KernelFunctions functions;
    for (auto [i, chain] : llvm::enumerate(chains)) {
      std::string name =
          (kernels->prefix + (chain.f32             ? "f32_"
                              : chain.maxPool       ? "maxpool_"
                              : chain.isDepthwise() ? "depthwise_"
                                                    : "matmul_"))
              .str() +
          std::to_string(i);
      while (symbols.lookup(name))
        name += "_";
      // (Depthwise convolutions and pools run on the vector kernels; float
      // contractions on the target's float lanes.)
      const KernelTarget &vectorKernels = kernels->getVectorKernels();
      Kernel kernel =
          chain.f32 ? buildFloatKernel(module, chain, *kernels, name)
          : chain.maxPool
              ? buildMaxPoolKernel(module, chain, vectorKernels, name)
          : chain.isDepthwise()
              ? buildDepthwiseKernel(module, chain, vectorKernels, name)
          : kernels->is(MicroKernelKind::Tiles)
              ? buildAmxKernel(module, chain, name, functions)
              : buildDotKernel(module, chain, *kernels, name);
      replaceChain(chain, functions.reuse(std::move(kernel)));
    }
  }
};

/// glibc's table for expf (e_exp2f_data.c, from Arm's optimized routines):
/// the bits of 2^(i/32), correctly rounded, minus i << 47.
constexpr uint64_t kExp2fTable[32] = {
    0x3ff0000000000000ULL, 0x3fefd9b0d3158574ULL, 0x3fefb5586cf9890fULL,
    0x3fef9301d0125b51ULL, 0x3fef72b83c7d517bULL, 0x3fef54873168b9aaULL,
    0x3fef387a6e756238ULL, 0x3fef1e9df51fdee1ULL, 0x3fef06fe0a31b715ULL,
    0x3feef1a7373aa9cbULL, 0x3feedea64c123422ULL, 0x3feece086061892dULL,
    0x3feebfdad5362a27ULL, 0x3feeb42b569d4f82ULL, 0x3feeab07dd485429ULL,
    0x3feea47eb03a5585ULL, 0x3feea09e667f3bcdULL, 0x3fee9f75e8ec5f74ULL,
    0x3feea11473eb0187ULL, 0x3feea589994cce13ULL, 0x3feeace5422aa0dbULL,
    0x3feeb737b0cdc5e5ULL, 0x3feec49182a3f090ULL, 0x3feed503b23e255dULL,
    0x3feee89f995ad3adULL, 0x3feeff76f2fb5e47ULL, 0x3fef199bdd85529cULL,
    0x3fef3720dcef9069ULL, 0x3fef5818dcfba487ULL, 0x3fef7c97337b9b5fULL,
    0x3fefa4afa2a490daULL, 0x3fefd0765b6e4540ULL};

/// Replaces every f32 `math.exp` of `module` with glibc's expf as
/// arithmetic, bit for bit: x * 32 / ln 2 = k + r (in double, with fused
/// multiply-adds, as the x86-64 build's __expf_fma computes it), 2^(k/32)
/// from the table and the exponent bits, times a cubic in r, rounded to
/// float once; +inf above log(2^128), 0 below log(2^-150), NaN for NaN.
/// Equal to glibc 2.36's expf on all 2^32 inputs (checked exhaustively when
/// this was written; test/Codegen/qfx-lower-intrinsic-calls.mlir checks
/// 1.05 M of them). Unlike a call of expf, LLVM vectorizes it (softmax,
/// sigmoid).
void expandExpf(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::math::ExpOp> exps;
  module.walk([&](mlir::math::ExpOp op) {
    if (op.getType().isF32())
      exps.push_back(op);
  });
  if (exps.empty())
    return;
  mlir::MLIRContext *context = module.getContext();
  mlir::OpBuilder b(context);
  auto i64 = b.getI64Type();
  auto tableType = mlir::MemRefType::get({32}, i64);
  b.setInsertionPointToStart(module.getBody());
  auto global = mlir::memref::GlobalOp::create(
      b, module.getLoc(), "qfx_expf_table", b.getStringAttr("private"),
      tableType,
      mlir::DenseElementsAttr::get(
          mlir::RankedTensorType::get({32}, i64),
          llvm::ArrayRef<uint64_t>(kExp2fTable, std::size(kExp2fTable))),
      /*constant=*/true, /*alignment=*/nullptr);
  mlir::SymbolTable(module).insert(global);
  for (mlir::math::ExpOp op : exps) {
    mlir::Location loc = op.getLoc();
    // The table's address is taken next to each exp, not once per function:
    // a value captured from outside a parallel loop reaches its body through
    // OpenMP's argument struct, where LLVM no longer sees the constant.
    b.setInsertionPoint(op);
    mlir::Value table = mlir::memref::GetGlobalOp::create(b, loc, tableType,
                                                          global.getSymName());
    auto f64 = [&](double value) -> mlir::Value {
      return mlir::arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
    };
    auto f32 = [&](float value) -> mlir::Value {
      return mlir::arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
    };
    auto int64 = [&](int64_t value) -> mlir::Value {
      return mlir::arith::ConstantOp::create(b, loc,
                                             b.getI64IntegerAttr(value));
    };
    auto fma = [&](mlir::Value x, mlir::Value y, mlir::Value z) {
      return mlir::math::FmaOp::create(b, loc, x, y, z).getResult();
    };
    mlir::Value x = op.getOperand();
    mlir::Value xd = mlir::arith::ExtFOp::create(b, loc, b.getF64Type(), x);
    mlir::Value invLn2N = f64(0x1.71547652b82fep+0 * 32);
    mlir::Value shift = f64(0x1.8p+52);
    mlir::Value shifted = fma(invLn2N, xd, shift);
    mlir::Value ki = mlir::arith::BitcastOp::create(b, loc, i64, shifted);
    mlir::Value kd = mlir::arith::SubFOp::create(b, loc, shifted, shift);
    mlir::Value r = fma(invLn2N, xd, mlir::arith::NegFOp::create(b, loc, kd));
    mlir::Value index = mlir::arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        mlir::arith::AndIOp::create(b, loc, ki, int64(31)));
    mlir::Value bits = mlir::arith::AddIOp::create(
        b, loc, mlir::memref::LoadOp::create(b, loc, table, index),
        mlir::arith::ShLIOp::create(b, loc, ki, int64(47)));
    mlir::Value s =
        mlir::arith::BitcastOp::create(b, loc, b.getF64Type(), bits);
    mlir::Value z = fma(f64(0x1.c6af84b912394p-5 / 32 / 32 / 32), r,
                        f64(0x1.ebfce50fac4f3p-3 / 32 / 32));
    mlir::Value y = fma(f64(0x1.62e42ff0c52d6p-1 / 32), r, f64(1.0));
    y = fma(z, mlir::arith::MulFOp::create(b, loc, r, r), y);
    y = mlir::arith::MulFOp::create(b, loc, y, s);
    mlir::Value result =
        mlir::arith::TruncFOp::create(b, loc, b.getF32Type(), y);
    using mlir::arith::CmpFPredicate;
    auto select = [&](CmpFPredicate predicate, mlir::Value rhs,
                      mlir::Value value) {
      mlir::Value is = mlir::arith::CmpFOp::create(b, loc, predicate, x, rhs);
      result = mlir::arith::SelectOp::create(b, loc, is, value, result);
    };
    select(CmpFPredicate::UNO, x, mlir::arith::AddFOp::create(b, loc, x, x));
    select(CmpFPredicate::OLT, f32(-0x1.9fe368p6f), f32(0.0f));
    select(CmpFPredicate::OGT, f32(0x1.62e42ep6f),
           f32(std::numeric_limits<float>::infinity()));
    op.replaceAllUsesWith(result);
    op.erase();
  }
}

struct QFXLowerIntrinsicCallsPass
    : qfx::impl::QFXLowerIntrinsicCallsBase<QFXLowerIntrinsicCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    llvm::SmallVector<mlir::func::FuncOp> declarations;
    for (auto func : module.getOps<mlir::func::FuncOp>())
      if (func.isExternal() &&
          (func->hasAttr(kIntrinsicAttr) || func->hasAttr(kInlineAsmAttr)))
        declarations.push_back(func);
    for (mlir::func::FuncOp decl : declarations) {
      auto intrinsic = decl->getAttrOfType<mlir::StringAttr>(kIntrinsicAttr);
      auto assembly = decl->getAttrOfType<mlir::StringAttr>(kInlineAsmAttr);
      auto constraints =
          decl->getAttrOfType<mlir::StringAttr>(kInlineAsmConstraintsAttr);
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
        Operation *replacement =
            intrinsic ? mlir::LLVM::CallIntrinsicOp::create(
                            b, call.getLoc(), call.getResultTypes(), intrinsic,
                            call.getOperands(), mlir::LLVM::FastmathFlagsAttr{})
                      : mlir::LLVM::InlineAsmOp::create(
                            b, call.getLoc(), call.getResultTypes(),
                            call.getOperands(), assembly, constraints,
                            /*has_side_effects=*/b.getUnitAttr(),
                            /*is_align_stack=*/nullptr,
                            mlir::LLVM::TailCallKindAttr::get(
                                b.getContext(), mlir::LLVM::TailCallKind::None),
                            mlir::LLVM::AsmDialectAttr::get(
                                b.getContext(), mlir::LLVM::AsmDialect::AD_ATT),
                            /*operand_attrs=*/nullptr);
        call->replaceAllUsesWith(replacement);
        call.erase();
      }
      decl.erase();
    }
    expandExpf(module);
    // Rounding half to even (the float requantization's, and every
    // tosa.cast from float to int): LLVM's intrinsic, which selects a
    // vector rounding instruction, where convert-math-to-libm would call
    // roundevenf once per element (docs/performance.md, "Measured decisions").
    module.walk([](mlir::math::RoundEvenOp op) {
      mlir::OpBuilder b(op);
      op.replaceAllUsesWith(mlir::LLVM::RoundEvenOp::create(
                                b, op.getLoc(), op.getType(), op.getOperand())
                                .getResult());
      op.erase();
    });
    // The same for the exact operations qfx-lower-gelu's arithmetic uses
    // (fused multiply-add, floor, absolute value): libm's fmaf, floorf and
    // fabsf calls kept LLVM from vectorizing a float GELU (docs/performance.md,
    // "Measured decisions").
    module.walk([](mlir::Operation *op) {
      mlir::OpBuilder b(op);
      mlir::Value replacement =
          llvm::TypeSwitch<mlir::Operation *, mlir::Value>(op)
              .Case([&](mlir::math::FmaOp fma) {
                return mlir::LLVM::FMAOp::create(b, fma.getLoc(), fma.getA(),
                                                 fma.getB(), fma.getC());
              })
              .Case([&](mlir::math::FloorOp floor) {
                return mlir::LLVM::FFloorOp::create(b, floor.getLoc(),
                                                    floor.getOperand());
              })
              .Case([&](mlir::math::AbsFOp abs) {
                return mlir::LLVM::FAbsOp::create(b, abs.getLoc(),
                                                  abs.getOperand());
              })
              .Default([](mlir::Operation *) { return mlir::Value(); });
      if (!replacement)
        return;
      op->replaceAllUsesWith(mlir::ValueRange{replacement});
      op->erase();
    });
  }
};

} // namespace
} // namespace qfx::codegen
