//===- PackWeights.cpp - GEMM weights packed in the IR --------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The first layer of qfx-codegen's GEMM kernels, as IREE's data tiling
// expresses it: the weights of each int8 GEMM contraction are packed for
// the target's microkernel by ops in the IR (collapse to [N, taps, run],
// transpose, widen, pad each run to whole groups, linalg.pack into
// [block][k group][lane][group]), handed to the contraction as its `packed`
// operand with the #qfx.weight_packing that names the layout; then evaluated
// at compile time into the constant the kernel reads.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "qfx/Codegen/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Support/DenseValues.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/bit.h"

namespace qfx {
#define GEN_PASS_DEF_QFXPACKWEIGHTS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

namespace qfx::codegen {
namespace {

/// The ops that pack `op`'s weight as `packing` says, before `op`, as
/// `element`s (the weight's, or i16 where the target multiplies int16).
Value buildPacking(OpBuilder &b, ContractOp op, const Chain &chain,
                   const WeightPacking &packing, Type element) {
  Location loc = op.getLoc();
  Value w = op.getWeight();
  auto shapeOf = [](Value v) {
    return llvm::cast<RankedTensorType>(v.getType()).getShape();
  };
  auto collapse =
      [&](Value v, llvm::ArrayRef<mlir::ReassociationIndices> groups) -> Value {
    return mlir::tensor::CollapseShapeOp::create(b, loc, v, groups);
  };
  Type weightElement = op.getWeight().getType().getElementType();
  Value zero;
  auto getZero = [&] {
    if (!zero)
      zero = mlir::arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    return zero;
  };
  std::optional<Value> padding;
  if (chain.n % packing.lanes)
    padding = getZero();
  llvm::SmallVector<mlir::OpFoldResult> lanes = {b.getIndexAttr(packing.lanes)};
  // Groups of one k value (the float kernels): [blocks, K, lanes] by one
  // pack of the weight as [K, N] or [O, K], N tiled by lanes.
  if (packing.group == 1) {
    Value source =
        chain.conv ? collapse(w, {{0}, {1, 2, 3}}) : collapse(w, {{0, 1}, {2}});
    llvm::SmallVector<int64_t> innerDims = {chain.conv ? 0 : 1}, outerPerm;
    if (!chain.conv)
      outerPerm = {1, 0};
    Value dest = mlir::linalg::PackOp::createDestinationTensor(
        b, loc, source, lanes, innerDims, outerPerm);
    return mlir::linalg::PackOp::create(b, loc, source, dest, innerDims, lanes,
                                        padding, outerPerm)
        .getResult();
  }
  // [N, K] (one run) or [N, taps, K / taps].
  Value source;
  if (!chain.conv) {
    Value kn = collapse(w, {{0, 1}, {2}});
    Value init = mlir::tensor::EmptyOp::create(
        b, loc, llvm::ArrayRef<int64_t>{chain.n, chain.k}, weightElement);
    source = mlir::linalg::TransposeOp::create(b, loc, kn, init,
                                               llvm::ArrayRef<int64_t>{1, 0})
                 .getResult()
                 .front();
  } else if (packing.taps == 1) {
    source = collapse(w, {{0}, {1, 2, 3}});
  } else if (packing.taps == chain.conv->kh * chain.conv->kw) {
    source = collapse(w, {{0}, {1, 2}, {3}});
  } else {
    source = collapse(w, {{0}, {1}, {2, 3}});
  }
  auto sourceType = llvm::cast<RankedTensorType>(source.getType());
  if (element != weightElement)
    source =
        mlir::arith::ExtSIOp::create(b, loc, sourceType.clone(element), source);
  // Each run padded with zeros to its groups.
  int64_t rank = sourceType.getRank();
  int64_t run = sourceType.getShape().back();
  int64_t padded = packing.tapGroups * packing.group;
  if (padded > run) {
    llvm::SmallVector<mlir::OpFoldResult> low(rank, b.getIndexAttr(0)),
        high(rank, b.getIndexAttr(0));
    high.back() = b.getIndexAttr(padded - run);
    llvm::SmallVector<int64_t> shape(shapeOf(source));
    shape.back() = padded;
    source = mlir::tensor::PadOp::create(
        b, loc, RankedTensorType::get(shape, element), source, low, high,
        getZero(), /*nofold=*/false);
  }
  // [blocks, (taps,) tap groups, lanes, group], zero beyond N.
  llvm::SmallVector<int64_t> innerDims = {0, rank - 1};
  llvm::SmallVector<mlir::OpFoldResult> tiles = {b.getIndexAttr(packing.lanes),
                                                 b.getIndexAttr(packing.group)};
  Value dest = mlir::linalg::PackOp::createDestinationTensor(
      b, loc, source, tiles, innerDims, /*outerDimsPerm=*/{});
  Value packed = mlir::linalg::PackOp::create(b, loc, source, dest, innerDims,
                                              tiles, padding)
                     .getResult();
  // [blocks, k groups, lanes * group], as the kernel's global.
  if (rank == 3)
    return collapse(packed, {{0}, {1, 2}, {3, 4}});
  return collapse(packed, {{0}, {1}, {2, 3}});
}

/// A tensor evaluated at compile time: row-major values, as the bits of
/// f32 or of integers of up to 16 bits sign-extended (the packing ops move
/// weights and zeros).
struct Evaluated {
  llvm::SmallVector<int64_t> shape;
  std::vector<uint32_t> values;
};

/// Calls `body(index)` for each index of `shape` in row-major order.
template <typename Body>
void forEachIndex(llvm::ArrayRef<int64_t> shape, Body &&body) {
  if (llvm::any_of(shape, [](int64_t size) { return size == 0; }))
    return;
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  while (true) {
    body(llvm::ArrayRef<int64_t>(index));
    int64_t d = static_cast<int64_t>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// Fills `result` (of its shape) row by row: for each index of all but the
/// last dimension, `rowStart(index)` gives where the row's first value is
/// in `source` along with the source dimension the row runs along (or -1
/// for a row of `fill`); values past that dimension's end are `fill`.
template <typename RowStart>
void gatherRows(const Evaluated &source, Evaluated &result, uint32_t fill,
                RowStart &&rowStart) {
  llvm::ArrayRef<int64_t> shape = result.shape;
  int64_t length = shape.back();
  llvm::SmallVector<int64_t> strides = mlir::computeStrides(source.shape);
  result.values.reserve(llvm::product_of(shape));
  forEachIndex(shape.drop_back(), [&](llvm::ArrayRef<int64_t> index) {
    // (source coordinates, the dimension the row runs along)
    auto [at, along] = rowStart(index);
    if (along < 0) {
      result.values.insert(result.values.end(), length, fill);
      return;
    }
    int64_t offset = 0;
    for (auto [d, i] : llvm::enumerate(at))
      offset += i * strides[d];
    int64_t inside =
        std::clamp<int64_t>(source.shape[along] - at[along], 0, length);
    for (int64_t t = 0; t < inside; ++t)
      result.values.push_back(source.values[offset + t * strides[along]]);
    result.values.insert(result.values.end(), length - inside, fill);
  });
}

/// The bits of a constant scalar operand (an integer sign-extended).
std::optional<uint32_t> getConstantBits(Value value) {
  Attribute attr;
  if (!value || !mlir::matchPattern(value, mlir::m_Constant(&attr)))
    return std::nullopt;
  if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(attr))
    return static_cast<uint32_t>(integer.getValue().getSExtValue());
  if (auto real = llvm::dyn_cast<mlir::FloatAttr>(attr);
      real && real.getType().isF32())
    return llvm::bit_cast<uint32_t>(real.getValue().convertToFloat());
  return std::nullopt;
}

/// `value` evaluated from constants through the ops buildPacking writes
/// (tensor.collapse_shape / expand_shape, linalg.transpose, arith.extsi,
/// tensor.pad with static amounts and a constant, linalg.pack with
/// constant tiles and padding), on f32 and integers of up to 16 bits;
/// none for anything else.
std::optional<Evaluated> evaluate(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  Type element = type ? type.getElementType() : Type();
  if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
      !(element.isF32() ||
        (element.isSignlessInteger() && element.getIntOrFloatBitWidth() <= 16)))
    return std::nullopt;
  Evaluated result;
  result.shape.assign(type.getShape().begin(), type.getShape().end());
  mlir::DenseElementsAttr constant;
  if (mlir::matchPattern(value, mlir::m_Constant(&constant))) {
    result.values.reserve(type.getNumElements());
    if (element.isF32())
      for (float v : constant.getValues<float>())
        result.values.push_back(llvm::bit_cast<uint32_t>(v));
    else if (element.getIntOrFloatBitWidth() <= 8)
      llvm::append_range(result.values, constant.getValues<int8_t>());
    else
      llvm::append_range(result.values, constant.getValues<int16_t>());
    return result;
  }
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (llvm::isa<mlir::tensor::CollapseShapeOp, mlir::tensor::ExpandShapeOp,
                mlir::arith::ExtSIOp>(op)) {
    std::optional<Evaluated> source = evaluate(op->getOperand(0));
    if (!source)
      return std::nullopt;
    result.values = std::move(source->values);
    return result;
  }
  if (auto transpose = llvm::dyn_cast<mlir::linalg::TransposeOp>(op)) {
    std::optional<Evaluated> source = evaluate(transpose.getInput());
    if (!source)
      return std::nullopt;
    llvm::ArrayRef<int64_t> permutation = transpose.getPermutation();
    // Result dimension d runs along source dimension permutation[d].
    gatherRows(*source, result, 0, [&](llvm::ArrayRef<int64_t> index) {
      llvm::SmallVector<int64_t> at(source->shape.size(), 0);
      for (auto [d, i] : llvm::enumerate(index))
        at[permutation[d]] = i;
      return std::make_pair(at, permutation.back());
    });
    return result;
  }
  if (auto pad = llvm::dyn_cast<mlir::tensor::PadOp>(op)) {
    std::optional<Evaluated> source = evaluate(pad.getSource());
    std::optional<uint32_t> fill =
        getConstantBits(pad.getConstantPaddingValue());
    llvm::ArrayRef<int64_t> low = pad.getStaticLow();
    if (!source || !fill || !pad.getLow().empty() || !pad.getHigh().empty() ||
        low.back() != 0)
      return std::nullopt;
    int64_t last = static_cast<int64_t>(low.size()) - 1;
    gatherRows(*source, result, *fill, [&](llvm::ArrayRef<int64_t> index) {
      llvm::SmallVector<int64_t> at(low.size(), 0);
      for (auto [d, i] : llvm::enumerate(index)) {
        at[d] = i - low[d];
        if (at[d] < 0 || at[d] >= source->shape[d])
          return std::make_pair(at, int64_t{-1});
      }
      return std::make_pair(at, last);
    });
    return result;
  }
  if (auto pack = llvm::dyn_cast<mlir::linalg::PackOp>(op)) {
    std::optional<Evaluated> source = evaluate(pack.getSource());
    std::optional<uint32_t> fill = 0;
    if (Value padding = pack.getPaddingValue())
      fill = getConstantBits(padding);
    llvm::SmallVector<int64_t> tiles(pack.getStaticInnerTiles());
    if (!source || !fill || llvm::any_of(tiles, mlir::ShapedType::isDynamic))
      return std::nullopt;
    int64_t rank = static_cast<int64_t>(source->shape.size());
    llvm::ArrayRef<int64_t> innerDims = pack.getInnerDimsPos();
    llvm::SmallVector<int64_t> outerPerm(pack.getOuterDimsPerm());
    if (outerPerm.empty())
      outerPerm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    // A row is the last tile: it runs along the last inner dimension.
    gatherRows(*source, result, *fill, [&](llvm::ArrayRef<int64_t> index) {
      // The outer index, times its tile where tiled, plus the index within
      // the tile (the row's first: 0 in the last tile).
      llvm::SmallVector<int64_t> at(rank);
      for (int64_t d = 0; d < rank; ++d)
        at[outerPerm[d]] = index[d];
      for (auto [j, dim] : llvm::enumerate(innerDims))
        at[dim] =
            at[dim] * tiles[j] +
            (rank + static_cast<int64_t>(j) < static_cast<int64_t>(index.size())
                 ? index[rank + j]
                 : 0);
      for (int64_t d = 0; d < rank; ++d)
        if (at[d] >= source->shape[d] && d != innerDims.back())
          return std::make_pair(at, int64_t{-1});
      return std::make_pair(at, innerDims.back());
    });
    return result;
  }
  return std::nullopt;
}

/// Erases `op` if it is unused, and then the producers of the values it
/// used (in its regions too) that it leaves unused.
void eraseUnused(Operation *op) {
  llvm::SmallVector<Operation *> worklist = {op};
  while (!worklist.empty()) {
    Operation *next = worklist.pop_back_val();
    if (!mlir::isOpTriviallyDead(next))
      continue;
    llvm::SetVector<Operation *> producers;
    next->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && !next->isAncestor(producer))
          producers.insert(producer);
    });
    next->erase();
    llvm::append_range(worklist, producers);
  }
}

struct QFXPackWeightsPass : qfx::impl::QFXPackWeightsBase<QFXPackWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    if (const KernelTarget *kernels = getKernels(target))
      packContractWeights(module, *kernels);
    if (fold && failed(foldPackedWeights(module)))
      signalPassFailure();
  }
};

} // namespace

void packContractWeights(mlir::ModuleOp module, const KernelTarget &target) {
  module.walk([&](ContractOp op) {
    if (op.getPackedWeight())
      return;
    std::optional<Chain> chain = matchContract(op);
    if (!chain || !isPackedGemm(*chain))
      return;
    WeightPacking packing = getWeightPacking(*chain, target);
    OpBuilder b(op);
    Type element = chain->f32 ? Type(b.getF32Type())
                              : b.getIntegerType(target.elementBits);
    Value packed = buildPacking(b, op, *chain, packing, element);
    op.getPackedWeightMutable().assign(packed);
    op.setWeightPackingAttr(
        WeightPackingAttr::get(op.getContext(), packing.lanes, packing.group,
                               packing.taps, packing.tapGroups));
  });
}

mlir::LogicalResult foldPackedWeights(mlir::ModuleOp module) {
  mlir::WalkResult result = module.walk([&](ContractOp op) {
    Value packed = op.getPackedWeight();
    if (!packed || mlir::matchPattern(packed, mlir::m_Constant()))
      return mlir::WalkResult::advance();
    std::optional<Evaluated> values = evaluate(packed);
    if (!values) {
      op.emitOpError() << "has packed weights that qfx-codegen cannot "
                          "compute at compile time: expected the packing "
                          "ops of qfx-pack-weights on constants";
      return mlir::WalkResult::interrupt();
    }
    auto type = llvm::cast<RankedTensorType>(packed.getType());
    // f32 values are their bits already; integers are narrowed.
    auto narrowed = [&](auto zero) {
      std::vector<decltype(zero)> elements(values->values.begin(),
                                           values->values.end());
      return mlir::DenseElementsAttr::get(type, llvm::ArrayRef(elements));
    };
    mlir::DenseElementsAttr attr =
        type.getElementType().isF32()
            ? mlir::DenseElementsAttr::getFromRawBuffer(
                  type,
                  llvm::ArrayRef(
                      reinterpret_cast<const char *>(values->values.data()),
                      values->values.size() * sizeof(uint32_t)))
        : type.getElementTypeBitWidth() == 8 ? narrowed(int8_t{0})
                                             : narrowed(int16_t{0});
    OpBuilder b(op);
    Value constant = mlir::arith::ConstantOp::create(b, op.getLoc(), attr);
    Operation *producer = packed.getDefiningOp();
    op.getPackedWeightMutable().assign(constant);
    if (producer)
      eraseUnused(producer);
    return mlir::WalkResult::advance();
  });
  return mlir::failure(result.wasInterrupted());
}

} // namespace qfx::codegen
