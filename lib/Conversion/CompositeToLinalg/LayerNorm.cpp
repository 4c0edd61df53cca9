//===- LayerNorm.cpp - qfx-lower-layer-norm: PyTorch's float layer norm ---===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-lower-layer-norm: a float32 `qfx.composite "torch.nn.LayerNorm"` whose
// normalized dimensions are its operand's innermost, in PyTorch's order
// (`torch_order`), becomes PyTorch 1.13's LayerNormKernelImplInternal as its
// AVX2 build computes it. Each row of N values: RowwiseMoments' Welford
// means and squared deviations in eight lanes (element i into lane i mod 8)
// over chunks of 16 vectors, the chunks merged by a binary cascade
// (AddMomentsVec), the last N mod 8 elements by a scalar Welford, the lanes
// merged into that one by one (AddMoments); then rstd = 1 / sqrt(var + eps)
// and y = fma(fma(x, rstd, -rstd * mean), gamma, beta). Every other
// multiply and add rounds on its own (GCC contracted only the output's).
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
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

namespace qfx {
#define GEN_PASS_DEF_QFXLOWERLAYERNORM
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using llvm::ArrayRef;
using llvm::SmallVector;
using mlir::AffineMap;
using mlir::Location;
using mlir::OpBuilder;
using mlir::PatternRewriter;
using mlir::RankedTensorType;
using mlir::Value;
namespace arith = mlir::arith;
namespace linalg = mlir::linalg;
namespace math = mlir::math;
namespace tensor = mlir::tensor;
using Iterator = mlir::utils::IteratorType;

namespace {

/// Floats in one of PyTorch's AVX2 vectors.
constexpr int64_t kLanes = 8;
/// RowwiseMoments' chunk: 16 vectors by Welford, then one cascade step.
constexpr int64_t kChunk = 16;

/// What qfx-lower-layer-norm reads of a "torch.nn.LayerNorm" composite.
struct LayerNormOperands {
  RankedTensorType type;
  /// The number of innermost (normalized) dimensions and their elements.
  int64_t normalized, count;
  float eps;
  /// Per element of a row; empty where the module has none.
  SmallVector<float> weight, bias;
};

/// The operands of `op` if it is a float32 LayerNorm composite with
/// `torch_order = true` and static normalized dimensions; otherwise why
/// not, in `whyNot`, and `malformed` set where its attributes contradict
/// its operand.
std::optional<LayerNormOperands>
readLayerNorm(qfx::CompositeOp op, std::string &whyNot, bool &malformed) {
  malformed = false;
  mlir::DictionaryAttr attributes = op.getCompositeAttributesAttr();
  auto torchOrder = attributes ? attributes.getAs<mlir::BoolAttr>("torch_order")
                               : mlir::BoolAttr();
  if (op.getName() != "torch.nn.LayerNorm" || !torchOrder ||
      !torchOrder.getValue()) {
    whyNot = "not a layer norm over its operand's innermost dimensions in "
             "PyTorch's order (torch_order)";
    return std::nullopt;
  }
  auto type =
      op.getInputs().size() == 1
          ? llvm::dyn_cast<RankedTensorType>(op.getInputs()[0].getType())
          : RankedTensorType();
  if (!type || !type.getElementType().isF32() || op->getNumResults() != 1 ||
      op->getResult(0).getType() != type) {
    whyNot = "PyTorch's kernel is reproduced for one float32 tensor, the "
             "result of its type";
    return std::nullopt;
  }
  malformed = true;
  auto axes = attributes.getAs<mlir::DenseI64ArrayAttr>("axes");
  auto eps = attributes.getAs<mlir::FloatAttr>("eps");
  int64_t rank = type.getRank();
  if (!axes || axes.empty() || !eps) {
    whyNot = "needs `axes` and `eps`";
    return std::nullopt;
  }
  int64_t normalized = axes.size();
  for (int64_t i = 0; i < normalized; ++i)
    if (axes[i] != rank - normalized + i) {
      whyNot = "with torch_order needs `axes` the operand's innermost "
               "dimensions, in order";
      return std::nullopt;
    }
  malformed = false;
  int64_t count = 1;
  for (int64_t d = rank - normalized; d < rank; ++d) {
    if (type.isDynamicDim(d)) {
      whyNot = "a normalized dimension is dynamic";
      return std::nullopt;
    }
    count *= type.getDimSize(d);
  }
  LayerNormOperands result{type,  normalized,
                           count, static_cast<float>(eps.getValueAsDouble()),
                           {},    {}};
  for (auto [name, values] :
       {std::pair{"weight", &result.weight}, std::pair{"bias", &result.bias}}) {
    auto dense = attributes.getAs<mlir::DenseElementsAttr>(name);
    if (!dense)
      continue;
    if (!dense.getElementType().isF32() || dense.getNumElements() != count) {
      malformed = true;
      whyNot = "needs `" + std::string(name) + "` of " + std::to_string(count) +
               " float32 values";
      return std::nullopt;
    }
    values->assign(dense.getValues<float>().begin(),
                   dense.getValues<float>().end());
  }
  return result;
}

/// Welford moments of `count` values: their mean and the sum of their
/// squared deviations (PyTorch's m0, m1, m2), values in a generic's body.
struct Moments {
  int64_t count;
  Value mean, squares;
};

/// Builds the kernel on rows [R, N] of the operand.
class LayerNormBuilder {
public:
  LayerNormBuilder(OpBuilder &b, Location loc, const LayerNormOperands &ln)
      : b(b), loc(loc), ln(ln), f32(b.getF32Type()) {}

  Value build(Value input) {
    Value rows = toRows(input);
    int64_t vectors = ln.count / kLanes;
    Value lanes[2] = {};
    if (vectors > 0) {
      auto [chunkMeans, chunkSquares] = welfordChunks(rows, vectors);
      std::tie(lanes[0], lanes[1]) = cascade(chunkMeans, chunkSquares, vectors);
    }
    auto [scale, shift] = rowScales(rows, lanes, vectors);
    return fromRows(normalize(rows, scale, shift), input);
  }

private:
  Value constant(OpBuilder &builder, Location where, float value) {
    return arith::ConstantOp::create(builder, where,
                                     builder.getF32FloatAttr(value));
  }
  AffineMap map(int64_t dims, ArrayRef<mlir::AffineExpr> results) {
    return AffineMap::get(dims, 0, results, b.getContext());
  }
  mlir::AffineExpr dim(int64_t d) { return b.getAffineDimExpr(d); }
  mlir::AffineExpr at(int64_t value) { return b.getAffineConstantExpr(value); }
  Value empty(ArrayRef<mlir::OpFoldResult> shape) {
    return tensor::EmptyOp::create(b, loc, shape, f32);
  }
  mlir::OpFoldResult rowCount() { return rowSizes.front(); }

  /// The operand as [R, N]: the leading dimensions collapsed (a unit one
  /// added where there are none), the normalized ones collapsed; sets
  /// rowSizes.
  Value toRows(Value input) {
    int64_t rank = ln.type.getRank(), leading = rank - ln.normalized;
    if (rank == 2 && leading == 1) {
      rowSizes = tensor::getMixedSizes(b, loc, input);
      return input;
    }
    if (leading == 0) {
      SmallVector<mlir::ReassociationIndices> groups{{0, 1}};
      for (int64_t d = 1; d < rank; ++d)
        groups.push_back({d + 1});
      SmallVector<int64_t> shape{1};
      llvm::append_range(shape, ln.type.getShape());
      input = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, f32), input, groups);
      ++rank, ++leading;
    }
    mlir::ReassociationIndices front, back;
    for (int64_t d = 0; d < rank; ++d)
      (d < leading ? front : back).push_back(d);
    Value rows = tensor::CollapseShapeOp::create(
        b, loc, input, SmallVector<mlir::ReassociationIndices>{front, back});
    rowSizes = tensor::getMixedSizes(b, loc, rows);
    return rows;
  }

  /// [R, N] back to the operand's shape.
  Value fromRows(Value rows, Value input) {
    int64_t rank = ln.type.getRank(), leading = rank - ln.normalized;
    if (rank == 2 && leading == 1)
      return rows;
    mlir::ReassociationIndices front, back;
    for (int64_t d = 0; d < rank; ++d)
      (d < leading ? front : back).push_back(d);
    if (leading == 0) {
      // [1, N] to [N], then to the operand's shape.
      Value flat = tensor::CollapseShapeOp::create(
          b, loc, rows, SmallVector<mlir::ReassociationIndices>{{0, 1}});
      if (rank == 1)
        return flat;
      return tensor::ExpandShapeOp::create(
          b, loc, ln.type, flat, SmallVector<mlir::ReassociationIndices>{back},
          tensor::getMixedSizes(b, loc, input));
    }
    return tensor::ExpandShapeOp::create(
        b, loc, ln.type, rows,
        SmallVector<mlir::ReassociationIndices>{front, back},
        tensor::getMixedSizes(b, loc, input));
  }

  /// Each chunk's Welford moments per lane, [R, chunks, 8] twice: the
  /// row's whole vectors, padded to whole chunks, as [R, chunks, 16, 8]
  /// (one chunk of fewer vectors: [R, 1, vectors, 8]), the vectors of a
  /// chunk taken in order; padding is skipped.
  std::pair<Value, Value> welfordChunks(Value rows, int64_t vectors) {
    int64_t chunks = llvm::divideCeil(vectors, kChunk);
    int64_t length = std::min(vectors, kChunk);
    mlir::OpFoldResult zeroIndex = b.getIndexAttr(0),
                       oneIndex = b.getIndexAttr(1);
    using Indices = SmallVector<mlir::OpFoldResult>;
    Value whole = tensor::ExtractSliceOp::create(
        b, loc, rows, Indices{zeroIndex, zeroIndex},
        Indices{rowCount(), b.getIndexAttr(vectors * kLanes)},
        Indices{oneIndex, oneIndex});
    int64_t padded = chunks * length * kLanes;
    if (padded != vectors * kLanes) {
      auto paddedType = RankedTensorType::get(
          {llvm::cast<RankedTensorType>(rows.getType()).getDimSize(0), padded},
          f32);
      whole = tensor::PadOp::create(
          b, loc, paddedType, whole, Indices{zeroIndex, zeroIndex},
          Indices{zeroIndex, b.getIndexAttr(padded - vectors * kLanes)},
          constant(b, loc, 0.0f));
    }
    auto wholeType = llvm::cast<RankedTensorType>(whole.getType());
    Value split = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({wholeType.getDimSize(0), chunks, length, kLanes},
                              f32),
        whole, SmallVector<mlir::ReassociationIndices>{{0}, {1, 2, 3}},
        SmallVector<mlir::OpFoldResult>{rowCount(), b.getIndexAttr(chunks),
                                        b.getIndexAttr(length),
                                        b.getIndexAttr(kLanes)});
    Value init =
        linalg::FillOp::create(
            b, loc, constant(b, loc, 0.0f),
            empty({rowCount(), b.getIndexAttr(chunks), b.getIndexAttr(kLanes)}))
            .getResult(0);
    // PyTorch's c_vecs: 1 / (j + 1) in float for the chunk's vector j.
    SmallVector<float> reciprocals;
    for (int64_t j = 0; j < length; ++j)
      reciprocals.push_back(1.0f / static_cast<float>(j + 1));
    Value cs = arith::ConstantOp::create(
        b, loc,
        mlir::DenseElementsAttr::get(RankedTensorType::get({length}, f32),
                                     ArrayRef<float>(reciprocals)));
    AffineMap out = map(4, {dim(0), dim(1), dim(3)});
    bool ragged = vectors % length != 0;
    auto generic = linalg::GenericOp::create(
        b, loc, mlir::TypeRange{init.getType(), init.getType()},
        mlir::ValueRange{split, cs}, mlir::ValueRange{init, init},
        ArrayRef<AffineMap>{
            AffineMap::getMultiDimIdentityMap(4, b.getContext()),
            map(4, {dim(2)}), out, out},
        ArrayRef<Iterator>{Iterator::parallel, Iterator::parallel,
                           Iterator::reduction, Iterator::parallel},
        [&](OpBuilder &nb, Location bl, mlir::ValueRange args) {
          Value x = args[0], c = args[1], mean = args[2], squares = args[3];
          Value delta = arith::SubFOp::create(nb, bl, x, mean);
          Value newMean = arith::AddFOp::create(
              nb, bl, mean, arith::MulFOp::create(nb, bl, delta, c));
          Value newSquares = arith::AddFOp::create(
              nb, bl, squares,
              arith::MulFOp::create(nb, bl, delta,
                                    arith::SubFOp::create(nb, bl, x, newMean)));
          if (ragged) {
            // The vector's index in the row, chunk * 16 + j, below the
            // row's whole vectors.
            Value chunk = linalg::IndexOp::create(nb, bl, 1);
            Value index = arith::AddIOp::create(
                nb, bl,
                arith::MulIOp::create(
                    nb, bl, chunk,
                    arith::ConstantIndexOp::create(nb, bl, length)),
                linalg::IndexOp::create(nb, bl, 2));
            Value real = arith::CmpIOp::create(
                nb, bl, arith::CmpIPredicate::ult, index,
                arith::ConstantIndexOp::create(nb, bl, vectors));
            newMean = arith::SelectOp::create(nb, bl, real, newMean, mean);
            newSquares =
                arith::SelectOp::create(nb, bl, real, newSquares, squares);
          }
          linalg::YieldOp::create(nb, bl,
                                  mlir::ValueRange{newMean, newSquares});
        });
    return {generic.getResult(0), generic.getResult(1)};
  }

  /// AddMoments(Vec): `into` absorbs `add`. c is the count ratio in float,
  /// as PyTorch divides the two counts.
  void addMoments(OpBuilder &nb, Location bl, const Moments &add,
                  Moments &into) {
    int64_t total = into.count + add.count;
    float c = total == 0
                  ? 0.0f
                  : static_cast<float>(add.count) / static_cast<float>(total);
    Value cValue = constant(nb, bl, c);
    Value delta = arith::SubFOp::create(nb, bl, add.mean, into.mean);
    into.mean = arith::AddFOp::create(
        nb, bl, into.mean, arith::MulFOp::create(nb, bl, cValue, delta));
    // m2 + (m2_add + delta * delta * c * m0)
    Value term = arith::MulFOp::create(
        nb, bl,
        arith::MulFOp::create(
            nb, bl, arith::MulFOp::create(nb, bl, delta, delta), cValue),
        constant(nb, bl, static_cast<float>(into.count)));
    into.squares = arith::AddFOp::create(
        nb, bl, into.squares, arith::AddFOp::create(nb, bl, add.squares, term));
    into.count = total;
  }

  /// The chunks' moments merged per lane as RowwiseMomentsImpl's stack
  /// does (chunk i into level 0; level j - 1 into level j while i + 1 is
  /// divisible by 2^j; then every level into level 0), [R, 8] twice. The
  /// schedule depends on the chunk count alone, so it is unrolled here.
  std::pair<Value, Value> cascade(Value means, Value squares, int64_t vectors) {
    int64_t chunks = llvm::divideCeil(vectors, kChunk);
    int64_t depth = chunks <= 2 ? 1 : llvm::Log2_64_Ceil(chunks);
    SmallVector<Value> operands;
    SmallVector<AffineMap> maps;
    for (int64_t i = 0; i < chunks; ++i)
      for (Value v : {means, squares}) {
        operands.push_back(v);
        maps.push_back(map(2, {dim(0), at(i), dim(1)}));
      }
    Value init = empty({rowCount(), b.getIndexAttr(kLanes)});
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, b.getContext());
    maps.append({identity, identity});
    auto generic = linalg::GenericOp::create(
        b, loc, mlir::TypeRange{init.getType(), init.getType()}, operands,
        mlir::ValueRange{init, init}, maps,
        ArrayRef<Iterator>{Iterator::parallel, Iterator::parallel},
        [&](OpBuilder &nb, Location bl, mlir::ValueRange args) {
          Value zero = constant(nb, bl, 0.0f);
          SmallVector<Moments> stack(depth, Moments{0, zero, zero});
          for (int64_t i = 0; i < chunks; ++i) {
            Moments chunk{std::min(kChunk, vectors - i * kChunk), args[2 * i],
                          args[2 * i + 1]};
            addMoments(nb, bl, chunk, stack[0]);
            for (int64_t j = 1, mask = i + 1; j < depth && (mask & 1) == 0;
                 ++j, mask >>= 1) {
              addMoments(nb, bl, stack[j - 1], stack[j]);
              stack[j - 1] = Moments{0, zero, zero};
            }
          }
          for (int64_t i = 1; i < depth; ++i)
            addMoments(nb, bl, stack[i], stack[0]);
          linalg::YieldOp::create(
              nb, bl, mlir::ValueRange{stack[0].mean, stack[0].squares});
        });
    return {generic.getResult(0), generic.getResult(1)};
  }

  /// Each row's rstd and -rstd * mean, [R] twice: the last N mod 8 values
  /// by a scalar Welford, the eight lanes (`lanes`, each of `vectors`
  /// values; none when the row is shorter than a vector) merged into it in
  /// order, the variance m2 / N.
  std::pair<Value, Value> rowScales(Value rows, Value lanes[2],
                                    int64_t vectors) {
    int64_t tail = ln.count - vectors * kLanes;
    SmallVector<Value> operands;
    SmallVector<AffineMap> maps;
    for (int64_t t = 0; t < tail; ++t) {
      operands.push_back(rows);
      maps.push_back(map(1, {dim(0), at(vectors * kLanes + t)}));
    }
    if (vectors > 0)
      for (int64_t lane = 0; lane < kLanes; ++lane)
        for (Value v : {lanes[0], lanes[1]}) {
          operands.push_back(v);
          maps.push_back(map(1, {dim(0), at(lane)}));
        }
    Value init = empty({rowCount()});
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, b.getContext());
    maps.append({identity, identity});
    auto generic = linalg::GenericOp::create(
        b, loc, mlir::TypeRange{init.getType(), init.getType()}, operands,
        mlir::ValueRange{init, init}, maps,
        ArrayRef<Iterator>{Iterator::parallel},
        [&](OpBuilder &nb, Location bl, mlir::ValueRange args) {
          Value zero = constant(nb, bl, 0.0f);
          Moments row{0, zero, zero};
          for (int64_t t = 0; t < tail; ++t) {
            Value x = args[t];
            Value delta = arith::SubFOp::create(nb, bl, x, row.mean);
            ++row.count;
            row.mean = arith::AddFOp::create(
                nb, bl, row.mean,
                arith::DivFOp::create(
                    nb, bl, delta,
                    constant(nb, bl, static_cast<float>(row.count))));
            row.squares = arith::AddFOp::create(
                nb, bl, row.squares,
                arith::MulFOp::create(
                    nb, bl, delta, arith::SubFOp::create(nb, bl, x, row.mean)));
          }
          for (int64_t lane = 0; lane < kLanes; ++lane) {
            Moments add{vectors, zero, zero};
            if (vectors > 0)
              add.mean = args[tail + 2 * lane],
              add.squares = args[tail + 2 * lane + 1];
            addMoments(nb, bl, add, row);
          }
          Value var = arith::DivFOp::create(
              nb, bl, row.squares,
              constant(nb, bl, static_cast<float>(ln.count)));
          Value rstd = arith::DivFOp::create(
              nb, bl, constant(nb, bl, 1.0f),
              math::SqrtOp::create(nb, bl,
                                   arith::AddFOp::create(
                                       nb, bl, var, constant(nb, bl, ln.eps))));
          Value shift = arith::MulFOp::create(
              nb, bl, arith::NegFOp::create(nb, bl, rstd), row.mean);
          linalg::YieldOp::create(nb, bl, mlir::ValueRange{rstd, shift});
        });
    return {generic.getResult(0), generic.getResult(1)};
  }

  /// fma(fma(x, scale, shift), gamma, beta) per element of [R, N]; gamma 1
  /// and beta 0 where the module has none (PyTorch's scalar loop).
  Value normalize(Value rows, Value scale, Value shift) {
    SmallVector<Value> operands{rows, scale, shift};
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, b.getContext());
    AffineMap perRow = map(2, {dim(0)}), perColumn = map(2, {dim(1)});
    SmallVector<AffineMap> maps{identity, perRow, perRow};
    auto type = RankedTensorType::get({ln.count}, f32);
    for (const SmallVector<float> *values : {&ln.weight, &ln.bias})
      if (!values->empty()) {
        operands.push_back(arith::ConstantOp::create(
            b, loc,
            mlir::DenseElementsAttr::get(type, ArrayRef<float>(*values))));
        maps.push_back(perColumn);
      }
    maps.push_back(identity);
    Value init = empty(rowSizes);
    bool weighted = !ln.weight.empty(), biased = !ln.bias.empty();
    return linalg::GenericOp::create(
               b, loc, init.getType(), operands, init, maps,
               ArrayRef<Iterator>{Iterator::parallel, Iterator::parallel},
               [&](OpBuilder &nb, Location bl, mlir::ValueRange args) {
                 Value gamma = weighted ? args[3] : constant(nb, bl, 1.0f);
                 Value beta =
                     biased ? args[3 + weighted] : constant(nb, bl, 0.0f);
                 Value y = math::FmaOp::create(
                     nb, bl,
                     math::FmaOp::create(nb, bl, args[0], args[1], args[2]),
                     gamma, beta);
                 linalg::YieldOp::create(nb, bl, y);
               })
        .getResult(0);
  }

  OpBuilder &b;
  Location loc;
  const LayerNormOperands &ln;
  mlir::Type f32;
  SmallVector<mlir::OpFoldResult> rowSizes;
};

struct LowerLayerNormComposite : mlir::OpRewritePattern<qfx::CompositeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::CompositeOp op,
                  PatternRewriter &rewriter) const override {
    std::string whyNot;
    bool malformed;
    std::optional<LayerNormOperands> ln = readLayerNorm(op, whyNot, malformed);
    if (!ln)
      return rewriter.notifyMatchFailure(op, whyNot);
    rewriter.replaceOp(
        op,
        LayerNormBuilder(rewriter, op.getLoc(), *ln).build(op.getInputs()[0]));
    return mlir::success();
  }
};

struct QFXLowerLayerNormPass
    : qfx::impl::QFXLowerLayerNormBase<QFXLowerLayerNormPass> {
  using Base::Base;

  void runOnOperation() override {
    if (mlir::failed(qfx::lowerEachWellFormedComposite<LowerLayerNormComposite>(
            getOperation(), "torch.nn.LayerNorm", readLayerNorm)))
      signalPassFailure();
  }
};

} // namespace
