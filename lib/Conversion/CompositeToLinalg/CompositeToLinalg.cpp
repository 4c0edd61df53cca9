//===- CompositeToLinalg.cpp - composites as PyTorch's float kernels ------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-lower-gelu: a `qfx.composite "torch.nn.GELU"` on float32 becomes a
// linalg.generic whose body is oneDNN 2.6's gelu_erf, the kernel PyTorch 1.13
// runs on x86-64, operation for operation as qfx::geluAsPyTorch
// (lib/Numerics/Activations.cpp) writes it: each vmulps, vaddps, vdivps one
// arith op (which LLVM does not fuse), each vfmadd one math.fma.
// qfx-lower-softmax: a last-dimension `qfx.composite "torch.nn.Softmax"` on
// float32 becomes PyTorch's _vec_softmax_lastdim (SLEEF's expf, sums in
// eight lanes combined as a tree). qfx-lower-division: a "torch.div" on
// float32 becomes arith.divf, not the body's multiply by the reciprocal.
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "CompositeLowering.h"

#include "qfx/Conversion/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/bit.h"

namespace qfx {
#define GEN_PASS_DEF_QFXLOWERGELU
#define GEN_PASS_DEF_QFXLOWERSOFTMAX
#define GEN_PASS_DEF_QFXLOWERDIVISION
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
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
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

/// The float32 input of `op`, a composite named `name` with one input and a
/// result of the input's type (of rank `minRank` or more), or a match
/// failure.
mlir::FailureOr<Value> getFloat32Operand(qfx::CompositeOp op,
                                         llvm::StringRef name,
                                         PatternRewriter &rewriter,
                                         int64_t minRank = 0) {
  if (op.getName() != name)
    return rewriter.notifyMatchFailure(op, "not a " + name);
  if (op.getInputs().size() != 1 || op->getNumResults() != 1)
    return rewriter.notifyMatchFailure(op, "not one input and one result");
  Value input = op.getInputs()[0];
  auto type = llvm::dyn_cast<RankedTensorType>(input.getType());
  if (!type || type.getRank() < minRank || !type.getElementType().isF32() ||
      op->getResult(0).getType() != type)
    return rewriter.notifyMatchFailure(
        op, "PyTorch's kernel is reproduced for float32 tensors only");
  return input;
}

struct LowerGeluComposite : mlir::OpRewritePattern<qfx::CompositeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::CompositeOp op,
                  PatternRewriter &rewriter) const override {
    mlir::FailureOr<Value> operand =
        getFloat32Operand(op, "torch.nn.GELU", rewriter);
    if (failed(operand))
      return mlir::failure();
    Value input = *operand;
    auto type = llvm::cast<RankedTensorType>(input.getType());
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

/// SLEEF 3.5.1's expf_u10 (xexpf in sleefsimdsp.c) as its AVX2 build
/// computes it, which PyTorch's Vectorized<float>::exp calls: q = d / ln 2
/// rounded to nearest even (vcvtps2dq), s = d - q ln 2 in two fused
/// multiply-adds, 1 + s + s^2 poly(s), times 2^(q >> 1) and 2^(q - (q >> 1));
/// 0 below -104, +inf above 100, an all-ones NaN for NaN. q is computed from
/// d clamped to [-104, 100] (NaN to -104), where every other lane's result
/// is selected away, so its conversion to an integer is defined.
Value buildSleefExp(Scalar &s, Value d) {
  OpBuilder &b = s.b;
  Value low = s.f32(0xc2d00000), high = s.f32(0x42c80000); // -104, 100
  Value clamped = s.select(s.less(low, d), d, low);
  clamped = s.select(s.less(clamped, high), clamped, high);
  Value q = math::RoundEvenOp::create(
      b, s.loc, s.mul(clamped, s.f32(0x3fb8aa3b))); // 1 / ln 2
  Value r = s.fma(q, s.f32(0xbf317200), d);         // -L2U
  r = s.fma(q, s.f32(0xb5bfbe8e), r);               // -L2L
  Value u = s.f32(0x39502bda);
  for (uint32_t c :
       {0x3ab696c9u, 0x3c0888a6u, 0x3d2aaa7au, 0x3e2aaaabu, 0x3f000000u})
    u = s.fma(u, r, s.f32(c));
  u = s.add(s.f32(0x3f800000), s.fma(s.mul(r, r), u, r));
  Value qi = arith::FPToSIOp::create(b, s.loc, b.getI32Type(), q);
  Value half = arith::ShRSIOp::create(b, s.loc, qi, s.i32(1));
  Value rest = arith::SubIOp::create(b, s.loc, qi, half);
  auto twoTo = [&](Value e) {
    return s.fromBits(arith::ShLIOp::create(
        b, s.loc, arith::AddIOp::create(b, s.loc, e, s.i32(127)), s.i32(23)));
  };
  u = s.mul(s.mul(u, twoTo(half)), twoTo(rest));
  u = s.select(s.less(d, low), s.f32(0), u);
  u = s.select(s.less(high, d), s.f32(0x7f800000), u);
  Value isNaN =
      arith::CmpFOp::create(b, s.loc, arith::CmpFPredicate::UNO, d, d);
  return s.select(isNaN, s.f32(0xffffffff), u);
}

/// Lanes within a vector of PyTorch's AVX2 kernels.
constexpr int64_t kLanes = 8;

/// Builds PyTorch's _vec_softmax_lastdim on a float32 tensor whose last
/// dimension (static) is the softmax's.
class SoftmaxBuilder {
public:
  SoftmaxBuilder(OpBuilder &b, Location loc, Value input)
      : b(b), loc(loc), input(input),
        type(llvm::cast<RankedTensorType>(input.getType())),
        rank(type.getRank()), length(type.getShape().back()) {
    sizes = tensor::getMixedSizes(b, loc, input);
  }

  Value build() {
    Value top = reduceRows(
        input, /*-inf*/ 0xff800000, [](Scalar &s, Value x, Value acc) {
          return arith::MaximumFOp::create(s.b, s.loc, x, acc);
        });
    Value exps = elementwise(input, top, [](Scalar &s, Value x, Value rowMax) {
      return buildSleefExp(s, s.sub(x, rowMax));
    });
    Value inverse = length < kLanes ? combine(exps, length, /*tree=*/false)
                                    : combine(laneSums(exps), kLanes, true);
    return elementwise(exps, inverse, [](Scalar &s, Value e, Value inv) {
      return s.mul(e, inv);
    });
  }

private:
  using Body = llvm::function_ref<Value(Scalar &, Value, Value)>;

  mlir::AffineMap identity(int64_t dims) {
    return mlir::AffineMap::getMultiDimIdentityMap(dims, b.getContext());
  }
  /// (d0, ..., dn) -> (d0, ..., dn-1).
  mlir::AffineMap dropLast(int64_t dims) {
    return identity(dims).getMajorSubMap(dims - 1);
  }
  llvm::SmallVector<mlir::utils::IteratorType> parallel(int64_t dims) {
    return llvm::SmallVector<mlir::utils::IteratorType>(
        dims, mlir::utils::IteratorType::parallel);
  }
  Value empty(llvm::ArrayRef<mlir::OpFoldResult> shape) {
    return tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  }
  llvm::ArrayRef<mlir::OpFoldResult> rowSizes() {
    return llvm::ArrayRef(sizes).drop_back();
  }

  /// The rows of `x` reduced along the last dimension by `body`, in order,
  /// from the float32 of bits `initBits`.
  Value reduceRows(Value x, uint32_t initBits, Body body) {
    Scalar s{b, loc};
    Value init =
        linalg::FillOp::create(b, loc, s.f32(initBits), empty(rowSizes()))
            .getResult(0);
    auto iterators = parallel(rank);
    iterators.back() = mlir::utils::IteratorType::reduction;
    return linalg::GenericOp::create(
               b, loc, init.getType(), x, init,
               llvm::ArrayRef<mlir::AffineMap>{identity(rank), dropLast(rank)},
               iterators,
               [&](OpBuilder &nested, Location bodyLoc, mlir::ValueRange args) {
                 Scalar s{nested, bodyLoc};
                 linalg::YieldOp::create(nested, bodyLoc,
                                         body(s, args[0], args[1]));
               })
        .getResult(0);
  }

  /// body(x, row's value) for every element of `x` (the input's shape).
  Value elementwise(Value x, Value row, Body body) {
    return linalg::GenericOp::create(
               b, loc, type, mlir::ValueRange{x, row}, empty(sizes),
               llvm::ArrayRef<mlir::AffineMap>{identity(rank), dropLast(rank),
                                               identity(rank)},
               parallel(rank),
               [&](OpBuilder &nested, Location bodyLoc, mlir::ValueRange args) {
                 Scalar s{nested, bodyLoc};
                 linalg::YieldOp::create(nested, bodyLoc,
                                         body(s, args[0], args[1]));
               })
        .getResult(0);
  }

  /// Each row's sums of its elements i with i mod 8 = lane, in order: the
  /// row padded with +0 (exact: every exponential is +0 or more) to whole
  /// vectors, [rows, vectors, 8] summed over the vectors.
  Value laneSums(Value exps) {
    int64_t vectors = llvm::divideCeil(length, kLanes);
    llvm::SmallVector<mlir::OpFoldResult> low(rank, b.getIndexAttr(0));
    llvm::SmallVector<mlir::OpFoldResult> high = low;
    high.back() = b.getIndexAttr(vectors * kLanes - length);
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    llvm::SmallVector<int64_t> paddedShape(type.getShape());
    paddedShape.back() = vectors * kLanes;
    Value padded = tensor::PadOp::create(
        b, loc, RankedTensorType::get(paddedShape, b.getF32Type()), exps, low,
        high, zero);
    llvm::SmallVector<mlir::ReassociationIndices> groups;
    for (int64_t d = 0; d + 1 < rank; ++d)
      groups.push_back({d});
    groups.push_back({rank - 1, rank});
    llvm::SmallVector<mlir::OpFoldResult> splitSizes(rowSizes());
    splitSizes.push_back(b.getIndexAttr(vectors));
    splitSizes.push_back(b.getIndexAttr(kLanes));
    llvm::SmallVector<int64_t> splitShape(type.getShape().drop_back());
    splitShape.append({vectors, kLanes});
    Value split = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(splitShape, b.getF32Type()), padded,
        groups, splitSizes);
    llvm::SmallVector<mlir::OpFoldResult> laneSizes(rowSizes());
    laneSizes.push_back(b.getIndexAttr(kLanes));
    Value init =
        linalg::FillOp::create(b, loc, zero, empty(laneSizes)).getResult(0);
    // (rows..., vector, lane) -> (rows..., lane)
    llvm::SmallVector<mlir::AffineExpr> laneResults;
    for (int64_t d = 0; d < rank - 1; ++d)
      laneResults.push_back(b.getAffineDimExpr(d));
    laneResults.push_back(b.getAffineDimExpr(rank));
    auto iterators = parallel(rank + 1);
    iterators[rank - 1] = mlir::utils::IteratorType::reduction;
    return linalg::GenericOp::create(
               b, loc, init.getType(), split, init,
               llvm::ArrayRef<mlir::AffineMap>{
                   identity(rank + 1),
                   mlir::AffineMap::get(rank + 1, 0, laneResults,
                                        b.getContext())},
               iterators,
               [](OpBuilder &nested, Location bodyLoc, mlir::ValueRange args) {
                 Value sum =
                     arith::AddFOp::create(nested, bodyLoc, args[1], args[0]);
                 linalg::YieldOp::create(nested, bodyLoc, sum);
               })
        .getResult(0);
  }

  /// 1 / the sum of the `count` values of each row of `values` (the last
  /// dimension): as PyTorch's vec_reduce_all combines eight lanes (`tree`),
  /// else in order.
  Value combine(Value values, int64_t count, bool tree) {
    int64_t rows = rank - 1;
    llvm::SmallVector<mlir::AffineMap> maps;
    for (int64_t lane = 0; lane < count; ++lane) {
      llvm::SmallVector<mlir::AffineExpr> results;
      for (int64_t d = 0; d < rows; ++d)
        results.push_back(b.getAffineDimExpr(d));
      results.push_back(b.getAffineConstantExpr(lane));
      maps.push_back(mlir::AffineMap::get(rows, 0, results, b.getContext()));
    }
    maps.push_back(identity(rows));
    llvm::SmallVector<Value> operands(count, values);
    return linalg::GenericOp::create(
               b, loc,
               RankedTensorType::get(type.getShape().drop_back(),
                                     b.getF32Type()),
               operands, empty(rowSizes()), maps, parallel(rows),
               [&](OpBuilder &nested, Location bodyLoc, mlir::ValueRange args) {
                 Scalar s{nested, bodyLoc};
                 Value sum;
                 if (tree) {
                   // 128-bit, 64-bit, then 32-bit shuffles and adds.
                   Value l[kLanes];
                   for (int64_t i = 0; i < kLanes; ++i)
                     l[i] = args[i];
                   sum = s.add(s.add(s.add(l[0], l[4]), s.add(l[2], l[6])),
                               s.add(s.add(l[1], l[5]), s.add(l[3], l[7])));
                 } else {
                   sum = args[0];
                   for (int64_t i = 1; i < count; ++i)
                     sum = s.add(sum, args[i]);
                 }
                 Value inverse = arith::DivFOp::create(nested, bodyLoc,
                                                       s.f32(0x3f800000), sum);
                 linalg::YieldOp::create(nested, bodyLoc, inverse);
               })
        .getResult(0);
  }

  OpBuilder &b;
  Location loc;
  Value input;
  RankedTensorType type;
  int64_t rank;
  int64_t length;
  llvm::SmallVector<mlir::OpFoldResult> sizes;
};

struct LowerSoftmaxComposite : mlir::OpRewritePattern<qfx::CompositeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::CompositeOp op,
                  PatternRewriter &rewriter) const override {
    mlir::FailureOr<Value> operand =
        getFloat32Operand(op, "torch.nn.Softmax", rewriter, /*minRank=*/1);
    if (failed(operand))
      return mlir::failure();
    Value input = *operand;
    auto type = llvm::cast<RankedTensorType>(input.getType());
    mlir::DictionaryAttr attributes = op.getCompositeAttributesAttr();
    auto axis = attributes ? attributes.getAs<mlir::IntegerAttr>("axis")
                           : mlir::IntegerAttr();
    auto lastDim = attributes ? attributes.getAs<mlir::BoolAttr>("last_dim")
                              : mlir::BoolAttr();
    if (!axis || axis.getInt() != type.getRank() - 1 || !lastDim ||
        !lastDim.getValue())
      return rewriter.notifyMatchFailure(
          op, "not over PyTorch's last dimension, innermost here");
    if (type.isDynamicDim(type.getRank() - 1))
      return rewriter.notifyMatchFailure(op,
                                         "the reduced dimension is dynamic");
    rewriter.replaceOp(op,
                       SoftmaxBuilder(rewriter, op.getLoc(), input).build());
    return mlir::success();
  }
};

struct QFXLowerSoftmaxPass
    : qfx::impl::QFXLowerSoftmaxBase<QFXLowerSoftmaxPass> {
  using Base::Base;

  void runOnOperation() override {
    qfx::lowerEachComposite<LowerSoftmaxComposite>(getOperation());
  }
};

struct LowerDivisionComposite : mlir::OpRewritePattern<qfx::CompositeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::CompositeOp op,
                  PatternRewriter &rewriter) const override {
    if (op.getName() != "torch.div")
      return rewriter.notifyMatchFailure(op, "not a division");
    auto type = llvm::dyn_cast<RankedTensorType>(op->getResultTypes().front());
    if (op->getNumResults() != 1 || !type || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(
          op, "PyTorch's division is reproduced for float32 tensors only");
    mlir::DictionaryAttr attributes = op.getCompositeAttributesAttr();
    auto divisor = attributes ? attributes.getAs<mlir::FloatAttr>("divisor")
                              : mlir::FloatAttr();
    mlir::ValueRange inputs = op.getInputs();
    if (inputs.size() != (divisor ? 1u : 2u))
      return rewriter.notifyMatchFailure(
          op, "not one input and a divisor, or two inputs");
    if (divisor ? inputs.front().getType() != type : !type.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "a result of another type than the dividend, or a dynamic "
              "broadcast");
    int64_t rank = type.getRank();
    // Each input's map: a dimension of size 1 where the result's is not is
    // broadcast (read at 0).
    llvm::SmallVector<mlir::AffineMap> maps;
    for (Value input : inputs) {
      auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
      if (!inputType || inputType.getRank() != rank ||
          !inputType.getElementType().isF32())
        return rewriter.notifyMatchFailure(op, "an input of another type");
      llvm::SmallVector<mlir::AffineExpr> results;
      for (int64_t d = 0; d < rank; ++d)
        results.push_back(inputType.getDimSize(d) == 1 &&
                                  type.getDimSize(d) != 1
                              ? rewriter.getAffineConstantExpr(0)
                              : rewriter.getAffineDimExpr(d));
      maps.push_back(
          mlir::AffineMap::get(rank, 0, results, rewriter.getContext()));
    }
    maps.push_back(
        mlir::AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext()));
    Location loc = op.getLoc();
    llvm::SmallVector<mlir::OpFoldResult> sizes =
        divisor ? tensor::getMixedSizes(rewriter, loc, inputs.front())
                : mlir::getAsIndexOpFoldResult(rewriter.getContext(),
                                               type.getShape());
    Value init =
        tensor::EmptyOp::create(rewriter, loc, sizes, rewriter.getF32Type());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, inputs, init, maps,
        llvm::SmallVector<mlir::utils::IteratorType>(
            rank, mlir::utils::IteratorType::parallel),
        [&](OpBuilder &b, Location bodyLoc, mlir::ValueRange args) {
          Value y =
              divisor
                  ? arith::ConstantOp::create(b, bodyLoc, divisor).getResult()
                  : args[1];
          Value quotient = arith::DivFOp::create(b, bodyLoc, args[0], y);
          linalg::YieldOp::create(b, bodyLoc, quotient);
        });
    rewriter.replaceOp(op, generic.getResults());
    return mlir::success();
  }
};

struct QFXLowerDivisionPass
    : qfx::impl::QFXLowerDivisionBase<QFXLowerDivisionPass> {
  using Base::Base;

  void runOnOperation() override {
    qfx::lowerEachComposite<LowerDivisionComposite>(getOperation());
  }
};

struct QFXLowerGeluPass : qfx::impl::QFXLowerGeluBase<QFXLowerGeluPass> {
  using Base::Base;

  void runOnOperation() override {
    qfx::lowerEachComposite<LowerGeluComposite>(getOperation());
  }
};

} // namespace
