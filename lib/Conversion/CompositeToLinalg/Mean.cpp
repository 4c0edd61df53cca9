//===- Mean.cpp - qfx-lower-mean: PyTorch's float mean --------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-lower-mean: a float32 `qfx.composite "torch.mean"` that says how
// PyTorch holds its operand (`torch_dims`, `torch_strides`) becomes the sum
// PyTorch 1.13's at::mean computes on x86-64, then the division by the
// count. at::sum orders a reduction by TensorIterator's rules (reduced
// dimensions innermost, then by stride; adjacent dimensions coalesced) and
// sums each two-dimensional block by cascade_sum's kernels: vectors of eight
// lanes, four interleaved partial sums (row_sum), chunks of 16 summed in
// levels (multi_row_sum). Every one of those is a fixed order of float
// additions; this file writes each as linalg.generic reductions, which add
// in index order. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "CompositeLowering.h"

#include "qfx/Conversion/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace qfx {
#define GEN_PASS_DEF_QFXLOWERMEAN
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using llvm::ArrayRef;
using llvm::SmallVector;
using mlir::Location;
using mlir::OpBuilder;
using mlir::PatternRewriter;
using mlir::RankedTensorType;
using mlir::Value;
namespace arith = mlir::arith;
namespace linalg = mlir::linalg;
namespace tensor = mlir::tensor;

namespace {

/// Floats in one of PyTorch's AVX2 vectors.
constexpr int64_t kLanes = 8;
/// row_sum's interleaved partial sums, and the rows (columns of a
/// multi-row block) cascade_sum's outer kernels sum at once.
constexpr int64_t kPartials = 4;
/// multi_row_sum's chunk: it adds 16 values, then folds the chunk into the
/// next level; 16 chunks make one value of the level above.
constexpr int64_t kChunk = 16;
/// multi_row_sum's chunks are 16 long for runs of up to 2^19 values.
constexpr int64_t kLongestRun = int64_t{1} << 19;

/// One dimension of TensorIterator's iteration space: the held axes it
/// coalesces (innermost first), its size and its input and output strides
/// (elements; an output stride of 0 marks a reduced dimension).
struct IterDim {
  SmallVector<int64_t> axes;
  int64_t size;
  int64_t in;
  int64_t out;
};

/// TensorIterator's dimensions, innermost first, for summing the held axes
/// `reduced` of a tensor of `shape` whose axes are PyTorch's dimensions
/// `torchDims` with PyTorch's strides `strides`: the output (contiguous in
/// PyTorch's order, reduced dimensions of stride 0) then the input decide
/// the order, reduced dimensions first; neighbours that step through both
/// operands as one are coalesced.
SmallVector<IterDim> iterationDims(ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> torchDims,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<bool> reduced) {
  int64_t rank = shape.size();
  SmallVector<int64_t> heldAxis(rank);
  for (int64_t axis = 0; axis < rank; ++axis)
    heldAxis[torchDims[axis]] = axis;
  SmallVector<int64_t> out(rank);
  int64_t step = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t axis = heldAxis[d];
    out[axis] = reduced[axis] ? 0 : step;
    step *= reduced[axis] ? 1 : shape[axis];
  }
  // 1: `a1` goes inside `a0`; -1: it stays outside; 0: undecided.
  auto compare = [&](int64_t a0, int64_t a1) {
    for (auto [s, isOutput] :
         {std::pair{ArrayRef<int64_t>(out), true}, std::pair{strides, false}}) {
      if (isOutput && (s[a0] == 0) != (s[a1] == 0))
        return s[a1] == 0 ? 1 : -1;
      if (s[a0] == 0 || s[a1] == 0)
        continue;
      if (s[a0] != s[a1])
        return s[a0] < s[a1] ? -1 : 1;
      if (shape[a0] > shape[a1])
        return 1;
    }
    return 0;
  };
  SmallVector<int64_t> perm;
  for (int64_t d = rank - 1; d >= 0; --d)
    perm.push_back(heldAxis[d]);
  for (int64_t i = 1; i < rank; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int comparison = compare(perm[d0], perm[d1]);
      if (comparison > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  SmallVector<IterDim> dims;
  for (int64_t axis : perm) {
    IterDim next{{axis}, shape[axis], strides[axis], out[axis]};
    if (dims.empty()) {
      dims.push_back(next);
      continue;
    }
    IterDim &prev = dims.back();
    if (prev.size != 1 && next.size != 1 &&
        (prev.size * prev.in != next.in || prev.size * prev.out != next.out)) {
      dims.push_back(next);
      continue;
    }
    if (prev.size == 1) {
      prev.in = next.in;
      prev.out = next.out;
    }
    prev.size *= next.size;
    prev.axes.push_back(axis);
  }
  return dims;
}

/// Builds the sums on static float32 tensors; each reduces the last axis.
class SumBuilder {
public:
  SumBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// The values of the last axis added in order to +0.
  Value inOrder(Value t) {
    auto type = llvm::cast<RankedTensorType>(t.getType());
    int64_t rank = type.getRank();
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    Value init =
        linalg::FillOp::create(b, loc, zero, empty(type.getShape().drop_back()))
            .getResult(0);
    SmallVector<mlir::utils::IteratorType> iterators(
        rank, mlir::utils::IteratorType::parallel);
    iterators.back() = mlir::utils::IteratorType::reduction;
    auto identity = mlir::AffineMap::getMultiDimIdentityMap(rank, ctx());
    return linalg::GenericOp::create(
               b, loc, init.getType(), t, init,
               ArrayRef<mlir::AffineMap>{identity,
                                         identity.getMajorSubMap(rank - 1)},
               iterators,
               [](OpBuilder &nested, Location bodyLoc, mlir::ValueRange args) {
                 linalg::YieldOp::create(
                     nested, bodyLoc,
                     arith::AddFOp::create(nested, bodyLoc, args[1], args[0])
                         .getResult());
               })
        .getResult(0);
  }

  /// multi_row_sum's order for one column: chunks of 16 in order, 16
  /// chunks to a value of the next level, each level's remainder added at
  /// the end. Padding the run with +0 to whole blocks of the top level
  /// changes no sum (x + 0 = x, and a + b = b + a), so it is nested sums
  /// in order.
  Value levels(Value t) {
    int64_t length = shapeOf(t).back();
    if (length <= kChunk)
      return inOrder(t);
    int64_t depth = length <= kChunk * kChunk            ? 1
                    : length <= kChunk * kChunk * kChunk ? 2
                                                         : 3;
    int64_t block = 1;
    for (int64_t i = 0; i < depth; ++i)
      block *= kChunk;
    int64_t blocks = llvm::divideCeil(length, block);
    SmallVector<int64_t> shape(shapeOf(t).drop_back());
    shape.push_back(blocks);
    shape.append(depth, kChunk);
    Value nested = reshape(padLast(t, blocks * block), shape);
    for (int64_t i = 0; i <= depth; ++i)
      nested = inOrder(nested);
    return nested;
  }

  /// row_sum: four partial sums of the elements i = k mod 4 (each by
  /// multi_row_sum), the last n mod 4 elements added to the first, then
  /// the four added in order.
  Value rowSum(Value t) {
    int64_t length = shapeOf(t).back();
    int64_t rows = length / kPartials;
    SmallVector<std::pair<Value, int64_t>> terms;
    Value partials;
    if (rows) {
      SmallVector<int64_t> shape(shapeOf(t).drop_back());
      shape.append({rows, kPartials});
      partials =
          levels(swapLast(reshape(slice(t, 0, rows * kPartials), shape)));
      terms.push_back({partials, 0});
    }
    appendTail(terms, t, rows * kPartials);
    for (int64_t k = 1; rows && k < kPartials; ++k)
      terms.push_back({partials, k});
    return add(terms);
  }

  /// vectorized_inner_sum on a contiguous run of eight or more: each lane's
  /// row_sum over the whole vectors, then the elements after the last whole
  /// vector and the lanes, in order (PyTorch adds them to +0, which changes
  /// no value but the sign of a zero).
  Value lanes(Value t) {
    int64_t length = shapeOf(t).back();
    int64_t vectors = length / kLanes;
    SmallVector<int64_t> shape(shapeOf(t).drop_back());
    shape.append({vectors, kLanes});
    Value lane =
        rowSum(swapLast(reshape(slice(t, 0, vectors * kLanes), shape)));
    SmallVector<std::pair<Value, int64_t>> terms;
    appendTail(terms, t, vectors * kLanes);
    for (int64_t k = 0; k < kLanes; ++k)
      terms.push_back({lane, k});
    return add(terms);
  }

  /// The outer kernels on [..., columns, run]: multi_row_sum for the
  /// columns before `blocked` (those in whole blocks of columns), row_sum
  /// for the rest.
  Value columns(Value t, int64_t blocked) {
    SmallVector<int64_t> shape(shapeOf(t));
    int64_t columns = shape[shape.size() - 2];
    if (blocked == columns)
      return levels(t);
    if (blocked == 0)
      return rowSum(t);
    int64_t axis = shape.size() - 2;
    Value first = levels(sliceAxis(t, axis, 0, blocked));
    Value rest = rowSum(sliceAxis(t, axis, blocked, columns));
    shape.pop_back();
    Value result = empty(shape);
    result = insertAt(first, result, axis, 0);
    return insertAt(rest, result, axis, blocked);
  }

  /// `t` with its axes in the order `order` (result axis j is t's axis
  /// order[j]).
  Value permute(Value t, ArrayRef<int64_t> order) {
    if (llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
      return t;
    ArrayRef<int64_t> shape = shapeOf(t);
    SmallVector<int64_t> permuted;
    SmallVector<mlir::AffineExpr> reads(order.size());
    for (auto [j, axis] : llvm::enumerate(order)) {
      permuted.push_back(shape[axis]);
      reads[axis] = b.getAffineDimExpr(j);
    }
    int64_t rank = order.size();
    Value init = empty(permuted);
    return linalg::GenericOp::create(
               b, loc, init.getType(), t, init,
               ArrayRef<mlir::AffineMap>{
                   mlir::AffineMap::get(rank, 0, reads, ctx()),
                   mlir::AffineMap::getMultiDimIdentityMap(rank, ctx())},
               SmallVector<mlir::utils::IteratorType>(
                   rank, mlir::utils::IteratorType::parallel),
               [](OpBuilder &nested, Location bodyLoc, mlir::ValueRange args) {
                 linalg::YieldOp::create(nested, bodyLoc, args[0]);
               })
        .getResult(0);
  }

  /// `t`'s elements (rank 1 or more), in order, as a tensor of `shape`.
  Value reshape(Value t, ArrayRef<int64_t> shape) {
    if (shapeOf(t) == shape)
      return t;
    auto type = RankedTensorType::get(shape, b.getF32Type());
    auto everything = [](int64_t rank) {
      SmallVector<mlir::ReassociationIndices> groups;
      if (rank)
        groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
      return groups;
    };
    if (shapeOf(t).size() != 1)
      t = tensor::CollapseShapeOp::create(
          b, loc,
          RankedTensorType::get({type.getNumElements()}, b.getF32Type()), t,
          everything(shapeOf(t).size()));
    if (shape.size() == 1)
      return t;
    if (shape.empty())
      return tensor::CollapseShapeOp::create(b, loc, type, t, everything(0));
    return tensor::ExpandShapeOp::create(b, loc, type, t,
                                         everything(shape.size()));
  }

  /// Each element divided by `count` (PyTorch's `div_`: rounded once).
  Value divide(Value t, int64_t count) {
    auto type = llvm::cast<RankedTensorType>(t.getType());
    int64_t rank = type.getRank();
    auto identity = mlir::AffineMap::getMultiDimIdentityMap(rank, ctx());
    return linalg::GenericOp::create(
               b, loc, type, t, empty(type.getShape()),
               ArrayRef<mlir::AffineMap>{identity, identity},
               SmallVector<mlir::utils::IteratorType>(
                   rank, mlir::utils::IteratorType::parallel),
               [count](OpBuilder &nested, Location bodyLoc,
                       mlir::ValueRange args) {
                 Value divisor = arith::ConstantOp::create(
                     nested, bodyLoc,
                     nested.getF32FloatAttr(static_cast<float>(count)));
                 linalg::YieldOp::create(
                     nested, bodyLoc,
                     arith::DivFOp::create(nested, bodyLoc, args[0], divisor)
                         .getResult());
               })
        .getResult(0);
  }

private:
  mlir::MLIRContext *ctx() { return b.getContext(); }
  static ArrayRef<int64_t> shapeOf(Value t) {
    return llvm::cast<RankedTensorType>(t.getType()).getShape();
  }
  Value empty(ArrayRef<int64_t> shape) {
    return tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  }

  /// The terms (a tensor, an index into its last axis) added in order, the
  /// first to the second, their sum to the third and so on.
  Value add(ArrayRef<std::pair<Value, int64_t>> terms) {
    ArrayRef<int64_t> rows = shapeOf(terms.front().first).drop_back();
    int64_t rank = rows.size();
    SmallVector<Value> operands;
    SmallVector<mlir::AffineMap> maps;
    for (auto [value, index] : terms) {
      SmallVector<mlir::AffineExpr> results;
      for (int64_t d = 0; d < rank; ++d)
        results.push_back(b.getAffineDimExpr(d));
      results.push_back(b.getAffineConstantExpr(index));
      operands.push_back(value);
      maps.push_back(mlir::AffineMap::get(rank, 0, results, ctx()));
    }
    maps.push_back(mlir::AffineMap::getMultiDimIdentityMap(rank, ctx()));
    Value init = empty(rows);
    return linalg::GenericOp::create(
               b, loc, init.getType(), operands, init, maps,
               SmallVector<mlir::utils::IteratorType>(
                   rank, mlir::utils::IteratorType::parallel),
               [&](OpBuilder &nested, Location bodyLoc, mlir::ValueRange args) {
                 Value sum = args[0];
                 for (Value term : args.drop_back().drop_front())
                   sum = arith::AddFOp::create(nested, bodyLoc, sum, term);
                 linalg::YieldOp::create(nested, bodyLoc, sum);
               })
        .getResult(0);
  }

  /// Appends to `terms` the elements of `t`'s last axis from `begin` on.
  void appendTail(SmallVector<std::pair<Value, int64_t>> &terms, Value t,
                  int64_t begin) {
    int64_t length = shapeOf(t).back();
    if (begin == length)
      return;
    Value tail = slice(t, begin, length);
    for (int64_t i = 0; i < length - begin; ++i)
      terms.push_back({tail, i});
  }

  Value sliceAxis(Value t, int64_t axis, int64_t begin, int64_t end) {
    SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
    for (auto [d, size] : llvm::enumerate(shapeOf(t))) {
      bool cut = static_cast<int64_t>(d) == axis;
      offsets.push_back(b.getIndexAttr(cut ? begin : 0));
      sizes.push_back(b.getIndexAttr(cut ? end - begin : size));
      strides.push_back(b.getIndexAttr(1));
    }
    return tensor::ExtractSliceOp::create(b, loc, t, offsets, sizes, strides);
  }
  Value slice(Value t, int64_t begin, int64_t end) {
    return sliceAxis(t, shapeOf(t).size() - 1, begin, end);
  }

  /// `part` written into `whole` from `offset` along `axis`.
  Value insertAt(Value part, Value whole, int64_t axis, int64_t offset) {
    SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
    for (auto [d, size] : llvm::enumerate(shapeOf(part))) {
      offsets.push_back(
          b.getIndexAttr(static_cast<int64_t>(d) == axis ? offset : 0));
      sizes.push_back(b.getIndexAttr(size));
      strides.push_back(b.getIndexAttr(1));
    }
    return tensor::InsertSliceOp::create(b, loc, part, whole, offsets, sizes,
                                         strides);
  }

  /// `t` padded with +0 at the end of its last axis to `length`.
  Value padLast(Value t, int64_t length) {
    SmallVector<int64_t> shape(shapeOf(t));
    if (shape.back() == length)
      return t;
    SmallVector<mlir::OpFoldResult> low(shape.size(), b.getIndexAttr(0));
    SmallVector<mlir::OpFoldResult> high = low;
    high.back() = b.getIndexAttr(length - shape.back());
    shape.back() = length;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    return tensor::PadOp::create(b, loc,
                                 RankedTensorType::get(shape, b.getF32Type()),
                                 t, low, high, zero);
  }

  Value swapLast(Value t) {
    auto order = llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(t).size()));
    std::swap(order[order.size() - 1], order[order.size() - 2]);
    return permute(t, order);
  }

  OpBuilder &b;
  Location loc;
};

/// What qfx-lower-mean reads of a "torch.mean" composite.
struct MeanOperands {
  RankedTensorType type;
  RankedTensorType resultType;
  SmallVector<int64_t> torchDims;
  SmallVector<int64_t> torchStrides;
  SmallVector<bool> reduced;
};

/// The integer array attribute `name` of `attributes`, or std::nullopt.
std::optional<SmallVector<int64_t>> getIntegers(mlir::DictionaryAttr attributes,
                                                llvm::StringRef name) {
  auto array = attributes ? attributes.getAs<mlir::DenseI64ArrayAttr>(name)
                          : mlir::DenseI64ArrayAttr();
  if (!array)
    return std::nullopt;
  return SmallVector<int64_t>(array.asArrayRef());
}

/// The operands of `op` if it is a float32 "torch.mean" composite of
/// static shapes with `torch_dims` and `torch_strides`; otherwise why not,
/// in `whyNot`, and `malformed` set where the composite carries them but
/// they (or its `axes` and result) contradict its types.
std::optional<MeanOperands> readMean(qfx::CompositeOp op, std::string &whyNot,
                                     bool &malformed) {
  malformed = false;
  mlir::DictionaryAttr attributes = op.getCompositeAttributesAttr();
  std::optional<SmallVector<int64_t>> torchDims =
      getIntegers(attributes, "torch_dims");
  std::optional<SmallVector<int64_t>> torchStrides =
      getIntegers(attributes, "torch_strides");
  std::optional<SmallVector<int64_t>> axes = getIntegers(attributes, "axes");
  if (op.getName() != "torch.mean" || !torchDims || !torchStrides) {
    whyNot = "not a mean with torch_dims and torch_strides";
    return std::nullopt;
  }
  auto type =
      op.getInputs().size() == 1
          ? llvm::dyn_cast<RankedTensorType>(op.getInputs()[0].getType())
          : RankedTensorType();
  auto resultType =
      op->getNumResults() == 1
          ? llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType())
          : RankedTensorType();
  if (!type || !resultType || !type.getElementType().isF32() ||
      !resultType.getElementType().isF32() || !type.hasStaticShape() ||
      !resultType.hasStaticShape()) {
    whyNot = "PyTorch's sum is reproduced for one static float32 tensor";
    return std::nullopt;
  }
  int64_t rank = type.getRank();
  malformed = true;
  SmallVector<bool> seen(rank, false), reduced(rank, false);
  if (!axes || static_cast<int64_t>(torchDims->size()) != rank ||
      static_cast<int64_t>(torchStrides->size()) != rank) {
    whyNot = "needs `axes`, and `torch_dims` and `torch_strides` of " +
             std::to_string(rank) + " values (the operand's rank)";
    return std::nullopt;
  }
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = (*torchDims)[i];
    if (dim < 0 || dim >= rank || seen[dim] || (*torchStrides)[i] <= 0) {
      whyNot = "needs `torch_dims` a permutation of 0.." +
               std::to_string(rank - 1) + " and positive `torch_strides`";
      return std::nullopt;
    }
    seen[dim] = true;
  }
  int64_t kept = type.getNumElements();
  for (int64_t axis : *axes) {
    if (axis < 0 || axis >= rank || reduced[axis]) {
      whyNot = "needs distinct `axes` within the rank";
      return std::nullopt;
    }
    reduced[axis] = true;
    kept /= type.getDimSize(axis);
  }
  if (resultType.getNumElements() != kept) {
    whyNot = "has a result of " + std::to_string(resultType.getNumElements()) +
             " elements where its axes leave " + std::to_string(kept);
    return std::nullopt;
  }
  malformed = false;
  return MeanOperands{type, resultType, std::move(*torchDims),
                      std::move(*torchStrides), std::move(reduced)};
}

struct LowerMeanComposite : mlir::OpRewritePattern<qfx::CompositeOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(qfx::CompositeOp op,
                  PatternRewriter &rewriter) const override {
    std::string whyNot;
    bool malformed;
    std::optional<MeanOperands> mean = readMean(op, whyNot, malformed);
    if (!mean)
      return rewriter.notifyMatchFailure(op, whyNot);
    RankedTensorType type = mean->type;
    int64_t count = 1, kept = 1;
    for (int64_t axis = 0; axis < type.getRank(); ++axis)
      (mean->reduced[axis] ? count : kept) *= type.getDimSize(axis);
    SmallVector<IterDim> dims = iterationDims(
        type.getShape(), mean->torchDims, mean->torchStrides, mean->reduced);
    // for_each hands the kernel two dimensions, a missing second one of
    // size 1 and strides 0.
    if (dims.size() == 1)
      dims.push_back(IterDim{{}, 1, 0, 0});
    // The reduced run every kernel sums: dims[0], or dims[1] where
    // cascade_sum swaps them to make the reduced one first.
    if (dims[0].out != 0 && dims[1].out == 0)
      std::swap(dims[0], dims[1]);
    if (dims[0].size > kLongestRun)
      return rewriter.notifyMatchFailure(
          op, "a reduced run of more than 2^19 values (longer chunks)");

    // The operand with its axes in iteration order, outermost first, and
    // each iteration dimension's held axes collapsed into one.
    SumBuilder sums(rewriter, op.getLoc());
    SmallVector<int64_t> order, iterShape;
    for (const IterDim &dim : llvm::reverse(dims)) {
      order.append(dim.axes.rbegin(), dim.axes.rend());
      iterShape.push_back(dim.size);
    }
    Value t = sums.reshape(sums.permute(op.getInputs()[0], order), iterShape);

    // cascade_sum's kernel on the innermost two dimensions.
    const IterDim &run = dims[0], &across = dims[1];
    SmallVector<IterDim> left(llvm::reverse(dims));
    if (run.out != 0 && across.out != 0) {
      // Nothing reduced there: the output adds the elements.
    } else {
      left.pop_back();
      if (run.in == 1 && run.size >= kLanes)
        t = sums.lanes(t);
      else if (across.in == 1 && across.size >= kLanes)
        t = sums.columns(t, across.size / (kPartials * kLanes) *
                                (kPartials * kLanes));
      else if (run.in < across.in)
        t = sums.rowSum(t);
      else
        t = sums.columns(t, across.size / kPartials * kPartials);
    }

    // The output accumulates the rest in iteration order (the innermost
    // fastest): the kept dimensions first, the reduced ones summed.
    SmallVector<int64_t> keptAxes, summedAxes, keptHeld, keptShape;
    int64_t summed = 1;
    for (auto [i, dim] : llvm::enumerate(left)) {
      if (dim.out == 0) {
        summedAxes.push_back(i);
        summed *= dim.size;
        continue;
      }
      keptAxes.push_back(i);
      for (int64_t axis : llvm::reverse(dim.axes)) {
        if (type.getDimSize(axis) == 1)
          continue;
        keptHeld.push_back(axis);
        keptShape.push_back(type.getDimSize(axis));
      }
    }
    SmallVector<int64_t> accumulation(keptAxes);
    accumulation.append(summedAxes);
    t = sums.permute(t, accumulation);
    t = summed == 1 ? sums.reshape(t, {kept})
                    : sums.inOrder(sums.reshape(t, {kept, summed}));
    t = sums.divide(t, count);
    // Back to the held order of the kept axes, then the result's shape.
    if (keptShape.empty()) {
      keptHeld.push_back(0);
      keptShape.push_back(1);
    }
    auto held = llvm::to_vector(llvm::seq<int64_t>(0, keptHeld.size()));
    llvm::sort(held,
               [&](int64_t x, int64_t y) { return keptHeld[x] < keptHeld[y]; });
    t = sums.permute(sums.reshape(t, keptShape), held);
    rewriter.replaceOp(op, sums.reshape(t, mean->resultType.getShape()));
    return mlir::success();
  }
};

struct QFXLowerMeanPass : qfx::impl::QFXLowerMeanBase<QFXLowerMeanPass> {
  using Base::Base;

  void runOnOperation() override {
    if (mlir::failed(qfx::lowerEachWellFormedComposite<LowerMeanComposite>(
            getOperation(), "torch.mean", readMean)))
      signalPassFailure();
  }
};

} // namespace
