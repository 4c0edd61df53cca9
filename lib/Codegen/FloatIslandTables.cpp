//===- FloatIslandTables.cpp - Float ops between int8 casts as tables -----===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-float-island-tables: dcast -> elementwise composite -> qcast becomes a
// lookup in a 256-entry table the program computes with the same body.
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/ConversionUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <numeric>

namespace qfx {
#define GEN_PASS_DEF_QFXFLOATISLANDTABLES
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// Activations smaller than this many elements are left alone.
constexpr int64_t kMinElements = 4096;

/// An int8 per-tensor quantized tensor type of static shape.
quant::UniformQuantizedType getInt8PerTensor(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getRank() == 0)
    return nullptr;
  auto quantized =
      llvm::dyn_cast<quant::UniformQuantizedType>(tensor.getElementType());
  if (!quantized || quantized.getStorageTypeIntegralWidth() != 8)
    return nullptr;
  return quantized;
}

/// Whether every op of `body` is a constant or an elementwise TOSA op whose
/// results have `shape` and whose operands are computed from the argument
/// or are constants of one element.
bool isElementwiseBody(Block &body, ArrayRef<int64_t> shape) {
  for (Operation &op : body.without_terminator()) {
    if (llvm::isa<tosa::ConstOp>(op))
      continue;
    // (tosa.mul, with its shift operand, and tosa.cast do not have the
    // trait.)
    if (!op.hasTrait<OpTrait::tosa::TosaElementwiseOperator>() &&
        !llvm::isa<tosa::MulOp, tosa::CastOp>(op))
      return false;
    for (Type type : op.getResultTypes()) {
      auto tensor = llvm::dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.getShape() != shape)
        return false;
    }
    // (The body is isolated from above: an operand that no constant
    // defines is the argument or computed from it.)
    for (Value operand : op.getOperands()) {
      if (!operand.getDefiningOp<tosa::ConstOp>())
        continue;
      auto tensor = llvm::dyn_cast<RankedTensorType>(operand.getType());
      if (!tensor || !tensor.hasStaticShape() || tensor.getNumElements() != 1)
        return false;
    }
  }
  return true;
}

struct QFXFloatIslandTablesPass
    : qfx::impl::QFXFloatIslandTablesBase<QFXFloatIslandTablesPass> {
  void runOnOperation() override {
    llvm::SmallVector<quant::QuantizeCastOp> quantizes;
    getOperation().walk(
        [&](quant::QuantizeCastOp qcast) { quantizes.push_back(qcast); });
    for (quant::QuantizeCastOp qcast : quantizes)
      rewrite(qcast);
  }

  void rewrite(quant::QuantizeCastOp qcast) {
    auto composite = qcast.getInput().getDefiningOp<qfx::CompositeOp>();
    if (!composite || composite.getInputs().size() != 1 ||
        composite->getNumResults() != 1 || !composite->hasOneUse())
      return;
    auto dcast =
        composite.getInputs()[0].getDefiningOp<quant::DequantizeCastOp>();
    if (!dcast)
      return;
    quant::UniformQuantizedType in =
        getInt8PerTensor(dcast.getInput().getType());
    quant::UniformQuantizedType out = getInt8PerTensor(qcast.getType());
    auto floatType = llvm::cast<RankedTensorType>(composite.getType(0));
    if (!in || !out || floatType.getNumElements() < kMinElements ||
        !isElementwiseBody(composite.getBody().front(), floatType.getShape()))
      return;

    // The 256 int8 values, as a [1, ..., 1, 256] tensor of the input's rank.
    Location loc = qcast.getLoc();
    ImplicitLocOpBuilder b(loc, qcast);
    int64_t rank = floatType.getRank();
    SmallVector<int64_t> levelsShape(rank, 1);
    levelsShape.back() = 256;
    auto i8 = b.getIntegerType(8);
    auto bytesType = RankedTensorType::get(levelsShape, i8);
    SmallVector<int8_t> levels(256);
    std::iota(levels.begin(), levels.end(), int8_t(-128));
    Value table = tosa::ConstOp::create(
        b, loc, bytesType,
        DenseElementsAttr::get(bytesType, ArrayRef<int8_t>(levels)));
    table = quant::StorageCastOp::create(
        b, loc, RankedTensorType::get(levelsShape, in), table);
    table = quant::DequantizeCastOp::create(
        b, loc, RankedTensorType::get(levelsShape, floatType.getElementType()),
        table);
    // The composite on them, its body retyped to their shape: still a
    // composite, so that the pipeline computes it as it would the
    // activation (qfx-lower-gelu, or its body once inlined).
    auto onLevels = [&](Value value) {
      value.setType(RankedTensorType::get(
          levelsShape,
          llvm::cast<RankedTensorType>(value.getType()).getElementType()));
    };
    IRMapping mapping;
    mapping.map(composite.getInputs()[0], table);
    auto copy = llvm::cast<qfx::CompositeOp>(b.clone(*composite, mapping));
    onLevels(copy->getResult(0));
    Block &body = copy.getBody().front();
    onLevels(body.getArgument(0));
    for (Operation &op : body.without_terminator())
      if (!llvm::isa<tosa::ConstOp>(op))
        for (OpResult result : op.getResults())
          onLevels(result);
    table = copy->getResult(0);
    table = quant::QuantizeCastOp::create(
        b, loc, RankedTensorType::get(levelsShape, out), table);
    table = quant::StorageCastOp::create(b, loc, bytesType, table);
    auto flatType = RankedTensorType::get({256}, i8);
    table = tosa::ReshapeOp::create(b, loc, flatType, table,
                                    tosa::getTosaConstShape(b, {256}));
    // The activation looked up in them.
    auto activationBytes = RankedTensorType::get(floatType.getShape(), i8);
    Value bytes =
        quant::StorageCastOp::create(b, loc, activationBytes, dcast.getInput());
    Value looked = tosa::TableOp::create(b, loc, activationBytes, bytes, table);
    qcast.replaceAllUsesWith(
        quant::StorageCastOp::create(b, loc, qcast.getType(), looked)
            .getResult());
    qcast.erase();
    composite.erase();
    if (dcast->use_empty())
      dcast.erase();
  }
};

} // namespace
