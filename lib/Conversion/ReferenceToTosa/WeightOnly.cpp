//===- WeightOnly.cpp - Weights stored quantized, computed in float -------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The patterns whose weights are stored quantized while they compute in
// float: weight-only embeddings (PyTorch's embedding_byte / embedding_4bit
// kernels), and the storage of weights left float as narrow as their type
// (4-bit two per byte, float16 as float16).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace qfx::lowering {

namespace arith = mlir::arith;
namespace scf = mlir::scf;
namespace tensor = mlir::tensor;

/// The 4-bit unsigned `values` of a tensor of `shape` stored two per byte
/// (the even element in the low nibble) as a constant, and TOSA bit
/// operations that unpack them into int8 values in [0, 15].
Value unpackNibbles(OpBuilder &b, Location loc,
                    mlir::DenseIntElementsAttr values,
                    ArrayRef<int64_t> shape) {
  Type i8 = b.getIntegerType(8);
  int64_t size = values.getNumElements(), half = (size + 1) / 2;
  SmallVector<int8_t> packed(half, 0);
  int64_t n = 0;
  for (const llvm::APInt &v : values.getValues<llvm::APInt>()) {
    uint8_t nibble = static_cast<uint8_t>(v.getZExtValue() & 0xF);
    packed[n / 2] |= static_cast<int8_t>(n % 2 ? nibble << 4 : nibble);
    ++n;
  }
  auto packedType = RankedTensorType::get({half, 1}, i8);
  Value bytes = tosa::ConstOp::create(
      b, loc, packedType,
      mlir::DenseElementsAttr::get(packedType, ArrayRef<int8_t>(packed)));
  auto splat = [&](int8_t v) -> Value {
    auto t = RankedTensorType::get({1, 1}, i8);
    return tosa::ConstOp::create(b, loc, t, mlir::DenseElementsAttr::get(t, v));
  };
  Value low = tosa::BitwiseAndOp::create(b, loc, packedType, bytes, splat(15));
  Value high = tosa::BitwiseAndOp::create(
      b, loc, packedType,
      tosa::LogicalRightShiftOp::create(b, loc, packedType, bytes, splat(4)),
      splat(15));
  Value pairs = tosa::ConcatOp::create(
      b, loc, RankedTensorType::get({half, 2}, i8), mlir::ValueRange{low, high},
      b.getI32IntegerAttr(1));
  Value flat =
      tosa::ReshapeOp::create(b, loc, RankedTensorType::get({2 * half}, i8),
                              pairs, constShape(b, loc, {2 * half}));
  if (2 * half != size)
    flat = tosa::SliceOp::create(b, loc, RankedTensorType::get({size}, i8),
                                 flat, constShape(b, loc, {0}),
                                 constShape(b, loc, {size}));
  return tosa::ReshapeOp::create(b, loc, RankedTensorType::get(shape, i8), flat,
                                 constShape(b, loc, shape));
}

/// The same quantization with int8 storage restricted to [0, 15].
quant::QuantizedType widenFourBit(quant::QuantizedType element) {
  Type i8 = mlir::IntegerType::get(element.getContext(), 8);
  if (auto uniform = llvm::dyn_cast<quant::UniformQuantizedType>(element))
    return quant::UniformQuantizedType::get(0, i8, uniform.getExpressedType(),
                                            uniform.getScale(),
                                            uniform.getZeroPoint(), 0, 15);
  if (auto perAxis =
          llvm::dyn_cast<quant::UniformQuantizedPerAxisType>(element))
    return quant::UniformQuantizedPerAxisType::get(
        0, i8, perAxis.getExpressedType(), perAxis.getScales(),
        perAxis.getZeroPoints(), perAxis.getQuantizedDimension(), 0, 15);
  return nullptr;
}

/// Stores 4-bit weights two per byte (unpacked at run time by unpackNibbles):
/// a quant.scast of a constant with 4-bit unsigned storage becomes one of the
/// unpacked int8 values to a type with the same qparams and range [0, 15]
/// (for its dequantize casts); a tosa.cast of a 4-bit constant (a
/// float-qparams weight) casts the unpacked values instead.
template <typename CastOp>
struct PackFourBitWeights : mlir::OpRewritePattern<CastOp> {
  using mlir::OpRewritePattern<CastOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    mlir::DenseIntElementsAttr values;
    if (!mlir::matchPattern(op->getOperand(0), mlir::m_Constant(&values)) ||
        values.getElementType().getIntOrFloatBitWidth() != 4)
      return failure();
    auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    Location loc = op->getLoc();
    if constexpr (std::is_same_v<CastOp, tosa::CastOp>) {
      Value unpacked = unpackNibbles(rewriter, loc, values, type.getShape());
      rewriter.replaceOpWithNewOp<tosa::CastOp>(op, type, unpacked);
      return success();
    }
    auto element = llvm::dyn_cast<quant::QuantizedType>(type.getElementType());
    quant::QuantizedType wide =
        element && !element.isSigned() ? widenFourBit(element) : nullptr;
    SmallVector<quant::DequantizeCastOp> dcasts;
    for (Operation *user : op->getUsers())
      if (auto dcast = llvm::dyn_cast<quant::DequantizeCastOp>(user))
        dcasts.push_back(dcast);
    if (!wide || dcasts.empty())
      return failure();
    Value stored = quant::StorageCastOp::create(
        rewriter, loc, type.clone(wide),
        unpackNibbles(rewriter, loc, values, type.getShape()));
    // The dequantize casts after the visited op are replaced, not erased
    // (a walk may visit them next).
    for (quant::DequantizeCastOp dcast : dcasts) {
      rewriter.setInsertionPoint(dcast);
      rewriter.replaceAllUsesWith(
          dcast.getResult(),
          quant::DequantizeCastOp::create(rewriter, dcast.getLoc(),
                                          dcast.getType(), stored));
    }
    return success();
  }
};

/// Stores float16 weights as float16: tosa.cast f32 -> f16 of a constant
/// becomes an f16 constant (rounded to nearest even, as Tensor.half()).
struct FoldHalfWeights : mlir::OpRewritePattern<tosa::CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tosa::CastOp cast,
                                PatternRewriter &rewriter) const override {
    mlir::DenseFPElementsAttr values;
    auto type = llvm::cast<RankedTensorType>(cast.getType());
    if (!type.getElementType().isF16() ||
        !mlir::matchPattern(cast.getInput(), mlir::m_Constant(&values)))
      return failure();
    auto half =
        values.mapValues(type.getElementType(), [](const llvm::APFloat &v) {
          llvm::APFloat h = v;
          bool lost = false;
          h.convert(llvm::APFloat::IEEEhalf(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
          return h.bitcastToAPInt();
        });
    rewriter.replaceOpWithNewOp<tosa::ConstOp>(cast, type, half);
    return success();
  }
};

/// An EmbeddingBag of 1-D indices with `offsets` (operand 2: where each bag
/// starts; the last bag ends at the indices' end, or with
/// `include_last_offset` the last offset is that end) and, optionally,
/// `per_sample_weights` (operand 3), as PyTorch's
/// embedding_bag_byte/4bit_rowwise_offsets: each bag in order from +0, per
/// index of the bag acc = fma(scale, q, acc + bias), scale and bias the
/// row's times the sample's weight (float products). The kernel's `fma` of
/// a float, an integer and a float is the double one, rounded to float: so
/// is this. Mode "mean" multiplies each bag by float(1 / its size). Where a
/// bag starts is known only when the model runs: loops over the bags, their
/// indices and the row (scf.for). Offsets are clamped into [0, indices] and
/// to non-decreasing, indices into the table: nothing is read outside them.
Lowered<Value> lowerEmbeddingBagWithOffsets(OpBuilder &b, CompositeOp composite,
                                            const FloatQParamsWeight &weight,
                                            ArrayRef<float> scales,
                                            ArrayRef<float> biases,
                                            StringRef mode) {
  Location loc = composite.getLoc();
  mlir::DictionaryAttr attributes = composite.getCompositeAttributesAttr();
  auto includeLast =
      attributes ? attributes.getAs<mlir::BoolAttr>("include_last_offset")
                 : mlir::BoolAttr();
  Value indices = composite.getOperand(0), offsets = composite.getOperand(2);
  Value sampleWeights =
      composite.getNumOperands() > 3 ? composite.getOperand(3) : Value();
  auto indicesType = llvm::cast<RankedTensorType>(indices.getType());
  auto offsetsType = llvm::dyn_cast<RankedTensorType>(offsets.getType());
  auto resultType =
      llvm::cast<RankedTensorType>(composite.getResult(0).getType());
  int64_t rows = weight.storage.getType().getDimSize(0);
  int64_t dim = weight.storage.getType().getDimSize(1);
  int64_t count = indicesType.getNumElements();
  int64_t offsetCount = offsetsType && offsetsType.hasStaticShape()
                            ? offsetsType.getNumElements()
                            : -1;
  int64_t bags =
      includeLast && includeLast.getValue() ? offsetCount - 1 : offsetCount;
  auto sampleType =
      sampleWeights ? llvm::dyn_cast<RankedTensorType>(sampleWeights.getType())
                    : RankedTensorType();
  if (indicesType.getRank() != 1 || !offsetsType ||
      offsetsType.getRank() != 1 ||
      !llvm::isa<mlir::IntegerType>(offsetsType.getElementType()) || bags < 0 ||
      resultType.getShape() != ArrayRef<int64_t>{bags, dim} ||
      composite.getNumOperands() > 4 ||
      (sampleWeights &&
       (!sampleType || sampleType.getShape() != ArrayRef<int64_t>{count} ||
        !sampleType.getElementType().isF32())))
    return unsupported("an EmbeddingBag with offsets takes 1-D indices, 1-D "
                       "integer offsets, optionally float per_sample_weights "
                       "of the indices' shape, and gives [bags, dim]");
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), i32 = b.getI32Type();
  Type index = b.getIndexType();

  auto table = RankedTensorType::get({rows, dim}, b.getI8Type());
  Value tableValue = arith::ConstantOp::create(
      b, loc,
      weight.storage
          .mapValues(b.getI8Type(),
                     [](const llvm::APInt &v) { return v.zextOrTrunc(8); })
          .reshape(table));
  auto perRow = [&](ArrayRef<float> values) -> Value {
    auto type = RankedTensorType::get({rows}, f32);
    return arith::ConstantOp::create(
        b, loc, mlir::DenseElementsAttr::get(type, values));
  };
  Value scaleTable = perRow(scales), biasTable = perRow(biases);
  Value init = arith::ConstantOp::create(
      b, loc, mlir::DenseElementsAttr::get(resultType, 0.0f));

  auto constant = [&](OpBuilder &nb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, v);
  };
  // The integer element `at` of `t` as an index clamped into [low, high].
  auto clampedIndex = [&](OpBuilder &nb, Value t, Value at, Value low,
                          Value high) -> Value {
    Value element = tensor::ExtractOp::create(nb, loc, t, at);
    Value i = arith::IndexCastOp::create(nb, loc, index, element);
    i = arith::MaxSIOp::create(nb, loc, i, low);
    return arith::MinSIOp::create(nb, loc, i, high);
  };
  auto loop = [&](OpBuilder &nb, Value from, Value to, Value carried,
                  llvm::function_ref<Value(OpBuilder &, Value, Value)> body) {
    return scf::ForOp::create(
               nb, loc, from, to, constant(nb, 1), mlir::ValueRange{carried},
               [&](OpBuilder &inner, Location, Value iv,
                   mlir::ValueRange args) {
                 scf::YieldOp::create(inner, loc, body(inner, iv, args[0]));
               })
        .getResult(0);
  };

  Value zero = constant(b, 0);
  Value result = loop(
      b, zero, constant(b, bags), init,
      [&](OpBuilder &nb, Value bag, Value out) {
        Value end = constant(nb, count);
        Value start = clampedIndex(nb, offsets, bag, constant(nb, 0), end);
        Value next = arith::AddIOp::create(nb, loc, bag, constant(nb, 1));
        Value last = constant(nb, offsetCount - 1);
        Value nextOffset = clampedIndex(
            nb, offsets, arith::MinSIOp::create(nb, loc, next, last), start,
            end);
        Value stop = arith::SelectOp::create(
            nb, loc,
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::slt, next,
                                  constant(nb, offsetCount)),
            nextOffset, end);
        out =
            loop(nb, start, stop, out, [&](OpBuilder &ib, Value i, Value acc) {
              Value id = clampedIndex(ib, indices, i, constant(ib, 0),
                                      constant(ib, rows - 1));
              Value scale = tensor::ExtractOp::create(ib, loc, scaleTable, id);
              Value bias = tensor::ExtractOp::create(ib, loc, biasTable, id);
              if (sampleWeights) {
                Value w = tensor::ExtractOp::create(ib, loc, sampleWeights, i);
                scale = arith::MulFOp::create(ib, loc, w, scale);
                bias = arith::MulFOp::create(ib, loc, w, bias);
              }
              Value wideScale = arith::ExtFOp::create(ib, loc, f64, scale);
              return loop(
                  ib, constant(ib, 0), constant(ib, dim), acc,
                  [&](OpBuilder &db, Value d, Value row) -> Value {
                    Value q = tensor::ExtractOp::create(
                        db, loc, tableValue, mlir::ValueRange{id, d});
                    q = arith::UIToFPOp::create(
                        db, loc, f64, arith::ExtUIOp::create(db, loc, i32, q));
                    Value a = tensor::ExtractOp::create(
                        db, loc, row, mlir::ValueRange{bag, d});
                    Value sum = arith::AddFOp::create(db, loc, a, bias);
                    Value partial = arith::ExtFOp::create(db, loc, f64, sum);
                    Value r = arith::TruncFOp::create(
                        db, loc, f32,
                        arith::AddFOp::create(
                            db, loc,
                            arith::MulFOp::create(db, loc, q, wideScale),
                            partial));
                    return tensor::InsertOp::create(db, loc, r, row,
                                                    mlir::ValueRange{bag, d});
                  });
            });
        if (mode != "mean")
          return out;
        // times float(1 / size); an empty bag stays 0.
        Value size = arith::MaxSIOp::create(
            nb, loc, arith::SubIOp::create(nb, loc, stop, start),
            constant(nb, 1));
        Value factor = arith::DivFOp::create(
            nb, loc,
            arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(1.0f)),
            arith::SIToFPOp::create(
                nb, loc, f32,
                arith::IndexCastOp::create(nb, loc, b.getI64Type(), size)));
        return loop(nb, constant(nb, 0), constant(nb, dim), out,
                    [&](OpBuilder &db, Value d, Value row) -> Value {
                      Value a = tensor::ExtractOp::create(
                          db, loc, row, mlir::ValueRange{bag, d});
                      return tensor::InsertOp::create(
                          db, loc, arith::MulFOp::create(db, loc, a, factor),
                          row, mlir::ValueRange{bag, d});
                    });
      });
  return result;
}

/// A weight-only embedding: a torch.nn.Embedding composite whose weight
/// has float zero points (qfx-convert's buildFloatQParamsDequantize).
/// PyTorch's quantized embedding kernels (embedding_byte, embedding_4bit)
/// read each gathered row's integers q and compute fma(q, scale, bias) with
/// bias = -(zero_point * scale) in float; the 4-bit kernel stores scale and
/// bias as float16. The lowering gathers the integer rows and each row's
/// scale and bias, and computes q * scale + bias in double, rounded once to
/// float: the product is exact, so this is the fma unless the double sum
/// itself rounds (8 bits only, and only when |bias| and the scale differ by
/// more than 2^21), where it can differ by one float ulp. The table stays
/// integer (4-bit values one per byte); only the gathered rows are
/// dequantized. An EmbeddingBag ([bags, size] indices) accumulates as the
/// kernels do, acc = fma(q, scale, acc + bias) over the bag in order (the
/// same double form), times float(1 / size) for mode "mean"; mode "max"
/// stays float.
Lowered<Value> lowerWeightOnlyEmbedding(OpBuilder &b, CompositeOp composite) {
  std::optional<FloatQParamsWeight> weight =
      matchFloatQParamsDequantize(composite.getOperand(1));
  if (!weight)
    return unsupported("an embedding's weight is lowered with float zero "
                       "points only (float_qparams_weight_only_qconfig)");
  auto indicesType =
      llvm::cast<RankedTensorType>(composite.getOperand(0).getType());
  auto resultType =
      llvm::cast<RankedTensorType>(composite.getResult(0).getType());
  ArrayRef<int64_t> tableShape = weight->storage.getType().getShape();
  if (tableShape.size() != 2 || weight->axis != 0 ||
      !indicesType.hasStaticShape() || !resultType.hasStaticShape())
    return unsupported("expected a [rows, dim] table quantized per row and "
                       "static shapes");
  int64_t rows = tableShape[0], dim = tableShape[1];
  int64_t count = indicesType.getNumElements();
  StringRef mode;
  if (composite.isEmbeddingBag()) {
    mlir::DictionaryAttr attributes = composite.getCompositeAttributesAttr();
    auto modeAttr =
        attributes ? attributes.getAs<mlir::StringAttr>("mode") : nullptr;
    mode = modeAttr ? modeAttr.getValue() : StringRef();
    if (mode != "sum" && mode != "mean")
      return unsupported("an EmbeddingBag is lowered for modes sum and mean");
    if (composite.getNumOperands() == 2 && indicesType.getRank() != 2)
      return unsupported("expected [bags, bag size] indices, or offsets");
  }
  Location loc = composite.getLoc();
  Type i8 = b.getI8Type(), i32 = b.getI32Type(), f64 = b.getF64Type();

  // The table as int8 [1, rows, dim] (4-bit values widened).
  auto tableType = RankedTensorType::get({1, rows, dim}, i8);
  mlir::DenseElementsAttr table = weight->storage.mapValues(
      i8, [](const llvm::APInt &v) { return v.zextOrTrunc(8); });
  Value tableValue =
      tosa::ConstOp::create(b, loc, tableType, table.reshape(tableType));
  // Each row's scale and bias as the kernel holds them.
  SmallVector<float> scales, biases;
  for (auto [scale, zeroPoint] :
       llvm::zip_equal(weight->scales, weight->zeroPoints)) {
    float bias = -(zeroPoint * scale);
    if (weight->width == 4) {
      scale = static_cast<float>(static_cast<_Float16>(scale));
      bias = static_cast<float>(static_cast<_Float16>(bias));
    }
    scales.push_back(scale);
    biases.push_back(bias);
  }
  if (composite.isEmbeddingBag() && composite.getNumOperands() > 2)
    return lowerEmbeddingBagWithOffsets(b, composite, *weight, scales, biases,
                                        mode);
  auto rowType = RankedTensorType::get({1, rows, 1}, f64);
  auto rowConstant = [&](ArrayRef<float> values) -> Value {
    SmallVector<double> wide(values.begin(), values.end());
    return tosa::ConstOp::create(
        b, loc, rowType, mlir::DenseElementsAttr::get(rowType, ArrayRef(wide)));
  };

  // Indices [1, count], clamped into the table as the float body does.
  auto indexElement = indicesType.getElementType();
  auto flatType = RankedTensorType::get({1, count}, indexElement);
  Value indices =
      tosa::ReshapeOp::create(b, loc, flatType, composite.getOperand(0),
                              constShape(b, loc, {1, count}));
  unsigned indexWidth = indexElement.getIntOrFloatBitWidth();
  indices = tosa::ClampOp::create(
      b, loc, flatType, indices, b.getIntegerAttr(indexElement, 0),
      b.getIntegerAttr(indexElement,
                       llvm::APInt(indexWidth, rows - 1, /*isSigned=*/true)),
      tosa::NanPropagationModeAttr::get(b.getContext(),
                                        tosa::NanPropagationMode::PROPAGATE));
  auto gathered = [&](Value values, Type element, int64_t width) -> Value {
    return tosa::GatherOp::create(
        b, loc, RankedTensorType::get({1, count, width}, element), values,
        indices);
  };
  auto valuesType = RankedTensorType::get({1, count, dim}, i32);
  Value ints =
      tosa::CastOp::create(b, loc, valuesType, gathered(tableValue, i8, dim));
  auto maskType = RankedTensorType::get({1, 1, 1}, i32);
  ints = tosa::BitwiseAndOp::create(
      b, loc, valuesType, ints,
      tosa::ConstOp::create(
          b, loc, maskType,
          mlir::DenseElementsAttr::get(
              maskType, b.getI32IntegerAttr((1 << weight->width) - 1))));
  auto wideType = valuesType.clone(f64);
  Value wide = tosa::CastOp::create(b, loc, wideType, ints);
  auto shiftType = RankedTensorType::get({1}, i8);
  Value shift = tosa::ConstOp::create(
      b, loc, shiftType,
      mlir::DenseElementsAttr::get(shiftType, b.getI8IntegerAttr(0)));
  Value rowScales = gathered(rowConstant(scales), f64, 1);
  Value rowBiases = gathered(rowConstant(biases), f64, 1);
  Type f32 = b.getF32Type();
  Value result;
  if (!composite.isEmbeddingBag()) {
    Value scaled =
        tosa::MulOp::create(b, loc, wideType, wide, rowScales, shift);
    Value sum = tosa::AddOp::create(b, loc, wideType, scaled, rowBiases);
    result = tosa::CastOp::create(b, loc, valuesType.clone(f32), sum);
  } else {
    // [1, bags * size, ...] as [bags, size, ...]; one bag position at a
    // time into acc [bags, 1, dim].
    int64_t bags = indicesType.getDimSize(0), size = indicesType.getDimSize(1);
    auto split = [&](Value v, int64_t width) -> Value {
      return tosa::ReshapeOp::create(
          b, loc, RankedTensorType::get({bags, size, width}, f64), v,
          constShape(b, loc, {bags, size, width}));
    };
    auto at = [&](Value v, int64_t position, int64_t width) -> Value {
      return tosa::SliceOp::create(b, loc,
                                   RankedTensorType::get({bags, 1, width}, f64),
                                   v, constShape(b, loc, {0, position, 0}),
                                   constShape(b, loc, {bags, 1, width}));
    };
    Value q = split(wide, dim), s = split(rowScales, 1),
          bias = split(rowBiases, 1);
    auto accType = RankedTensorType::get({bags, 1, dim}, f32);
    Value acc = tosa::ConstOp::create(
        b, loc, accType, mlir::DenseElementsAttr::get(accType, 0.0f));
    auto wideAccType = accType.clone(f64);
    for (int64_t position = 0; position < size; ++position) {
      Value partial = tosa::AddOp::create(
          b, loc, accType, acc,
          tosa::CastOp::create(b, loc, RankedTensorType::get({bags, 1, 1}, f32),
                               at(bias, position, 1)));
      Value product = tosa::MulOp::create(
          b, loc, wideAccType, at(q, position, dim), at(s, position, 1), shift);
      acc = tosa::CastOp::create(
          b, loc, accType,
          tosa::AddOp::create(
              b, loc, wideAccType, product,
              tosa::CastOp::create(b, loc, wideAccType, partial)));
    }
    if (mode == "mean") {
      auto scalarType = RankedTensorType::get({1, 1, 1}, f32);
      acc = tosa::MulOp::create(
          b, loc, accType, acc,
          tosa::ConstOp::create(
              b, loc, scalarType,
              mlir::DenseElementsAttr::get(scalarType,
                                           1.0f / static_cast<float>(size))),
          shift);
    }
    result = acc;
  }
  return tosa::ReshapeOp::create(b, loc, resultType, result,
                                 constShape(b, loc, resultType.getShape()))
      .getResult();
}

} // namespace qfx::lowering

void qfx::populateQFXWeightStoragePatterns(RewritePatternSet &patterns) {
  using namespace qfx::lowering;
  patterns.add<PackFourBitWeights<quant::StorageCastOp>,
               PackFourBitWeights<tosa::CastOp>, FoldHalfWeights>(
      patterns.getContext());
}
