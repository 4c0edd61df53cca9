//===- CompositeToLinalg.cpp - GELU as PyTorch's kernel -------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-lower-gelu: a `qfx.composite "torch.nn.GELU"` on float32 becomes a
// linalg.generic whose body is oneDNN 2.6's gelu_erf, the kernel PyTorch 1.13
// runs on x86-64, operation for operation as qfx::geluAsPyTorch
// (lib/Numerics/Activations.cpp) writes it: each vmulps, vaddps, vdivps one
// arith op (which LLVM does not fuse), each vfmadd one math.fma. See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Conversion/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "llvm/ADT/bit.h"

namespace qfx {
#define GEN_PASS_DEF_QFXLOWERGELU
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using mlir::Location;
using mlir::OpBuilder;
using mlir::PatternRewriter;
using mlir::RankedTensorType;
using mlir::Value;
namespace arith = mlir::arith;
namespace linalg = mlir::linalg;
namespace math = mlir::math;
namespace tensor = mlir::tensor;

namespace {

/// Scalar f32 and i32 arithmetic in a generic's body.
struct Scalar {
  OpBuilder &b;
  Location loc;

  Value f32(uint32_t bits) {
    return arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(llvm::bit_cast<float>(bits)));
  }
  Value i32(int32_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value less(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value toBits(Value x) {
    return arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  }
  Value fromBits(Value x) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), x);
  }
};

/// oneDNN's exp (qfx/Numerics/Activations.cpp, expAsOneDnn).
Value buildExp(Scalar &s, Value v) {
  Value lnFltMax = s.f32(0x42b17218), lnFltMin = s.f32(0xc2aeac50);
  Value underflows = s.less(v, lnFltMin);
  // vminps / vmaxps: the second operand unless the first compares less
  // (greater).
  v = s.select(s.less(v, lnFltMax), v, lnFltMax);
  v = s.select(s.less(lnFltMin, v), v, lnFltMin);
  Value n = math::FloorOp::create(
      s.b, s.loc, s.add(s.mul(v, s.f32(0x3fb8aa3b)), s.f32(0x3f000000)));
  Value negN = arith::NegFOp::create(s.b, s.loc, n);
  Value r = s.fma(negN, s.f32(0x3f317218), v);
  Value nMinus1 = arith::FPToSIOp::create(
      s.b, s.loc, s.b.getI32Type(),
      arith::SubFOp::create(s.b, s.loc, n, s.f32(0x3f800000)));
  Value biased = arith::AddIOp::create(s.b, s.loc, nMinus1, s.i32(127));
  Value twoToNMinus1 =
      s.fromBits(arith::ShLIOp::create(s.b, s.loc, biased, s.i32(23)));
  twoToNMinus1 = s.select(underflows, s.f32(0), twoToNMinus1);
  Value q = s.f32(0x3c07cfce);
  for (uint32_t p : {0x3d2b9d0du, 0x3e2aad40u, 0x3efffee3u, 0x3f7ffffbu})
    q = s.fma(q, r, s.f32(p));
  q = s.fma(q, r, s.f32(0x3f800000));
  return s.mul(s.mul(q, twoToNMinus1), s.f32(0x40000000));
}

/// oneDNN's gelu_erf of the f32 `input` (qfx::geluAsPyTorch).
Value buildGelu(OpBuilder &b, Location loc, Value input) {
  Scalar s{b, loc};
  Value one = s.f32(0x3f800000);
  Value x = s.mul(input, s.f32(0x3f3504f3));
  Value absX = math::AbsFOp::create(b, loc, x);
  Value t =
      arith::DivFOp::create(b, loc, one, s.fma(s.f32(0x3ea7ba05), absX, one));
  Value xx = s.mul(x, x);
  Value e = arith::NegFOp::create(
      b, loc, buildExp(s, arith::NegFOp::create(b, loc, xx)));
  e = s.mul(e, t);
  Value poly = s.f32(0x3f87dc22);
  for (uint32_t a : {0xbfba00e3u, 0x3fb5f0e3u, 0xbe91a98eu, 0x3e827906u})
    poly = s.fma(poly, t, s.f32(a));
  Value erf = s.fma(e, poly, one);
  Value sign = arith::AndIOp::create(b, loc, s.toBits(x),
                                     s.i32(static_cast<int32_t>(0x80000000u)));
  erf = s.fromBits(arith::XOrIOp::create(b, loc, s.toBits(erf), sign));
  Value half = s.mul(input, s.f32(0x3f000000));
  return s.fma(erf, half, half);
}

struct LowerGeluComposite : mlir::OpRewritePattern<qfx::CompositeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::CompositeOp op,
                  PatternRewriter &rewriter) const override {
    if (op.getName() != "torch.nn.GELU")
      return rewriter.notifyMatchFailure(op, "not a GELU");
    if (op.getInputs().size() != 1 || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not one input and one result");
    Value input = op.getInputs()[0];
    auto type = llvm::dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.getElementType().isF32() ||
        op->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(
          op, "PyTorch's kernel is reproduced for float32 tensors only");
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, input),
        type.getElementType());
    auto identity = mlir::AffineMap::getMultiDimIdentityMap(
        type.getRank(), rewriter.getContext());
    llvm::SmallVector<mlir::utils::IteratorType> iterators(
        type.getRank(), mlir::utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, input, init,
        llvm::ArrayRef<mlir::AffineMap>{identity, identity}, iterators,
        [](OpBuilder &b, Location bodyLoc, mlir::ValueRange args) {
          linalg::YieldOp::create(b, bodyLoc, buildGelu(b, bodyLoc, args[0]));
        });
    rewriter.replaceOp(op, generic.getResults());
    return mlir::success();
  }
};

struct QFXLowerGeluPass : qfx::impl::QFXLowerGeluBase<QFXLowerGeluPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<LowerGeluComposite>(&getContext());
    // Each composite once, and nothing else touched: the greedy driver
    // would also fold quant.dcast(quant.qcast(x)) to x, erasing the
    // rounding a reference model holds.
    mlir::walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
