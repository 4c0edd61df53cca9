//===- ReferenceToTosa.cpp - Reference patterns to int8 TOSA --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-lower: every `dq -> op -> q` pattern of the reference model that the
// backend supports becomes integer TOSA on the stored integers. All integer
// ops work in the "int8 domain": a u8 value q with zero point z is carried as
// the int8 q - 128 with zero point z - 128, so TOSA's signed int8 ops apply.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "qfx/Conversion/ContractToTosa/ContractToTosa.h"
#include "qfx/Conversion/Passes.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace qfx {
#define GEN_PASS_DEF_QFXREFERENCETOTOSA
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

namespace qfx::lowering {

Lowered<Value> Lowering::lowerDataMovement(OpBuilder &b, PatternBody &body,
                                           const ActQuant &out) {
  if (body.ops.size() != 1)
    return unsupported("a fused data-movement op is not supported");
  Lowered<Act> moved = getAct(body.ops.front()->getResult(0));
  if (!moved)
    return moved.takeError();
  return requantize(b, body.root->getLoc(), *moved, out);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// The single 8-bit per-tensor quantization all users of `value` apply.
Lowered<ActQuant> getOutputQuant(Value value) {
  if (value.use_empty())
    return unsupported("its result is unused");
  std::optional<Type> type;
  for (Operation *user : value.getUsers()) {
    auto qcast = llvm::dyn_cast<quant::QuantizeCastOp>(user);
    if (!qcast)
      return unsupported("its result is used as a float");
    if (type && *type != qcast.getType())
      return unsupported("its result is quantized to different types");
    type = qcast.getType();
  }
  std::optional<ActQuant> quant = getActQuant(*type);
  if (!quant)
    return unsupported("its output is not quantized per tensor to 8 bits");
  return *quant;
}

/// The int8 lowering `op` names itself (QuantizableOpInterface).
std::optional<LoweringKind> getOwnLowering(Operation *op) {
  auto quantizable = llvm::dyn_cast<QuantizableOpInterface>(op);
  return quantizable ? quantizable.getInt8Lowering() : std::nullopt;
}

/// Whether `op` is lowered by `Kind` when no table row says otherwise.
template <LoweringKind Kind> bool namesLowering(Operation *op) {
  return getOwnLowering(op) == Kind;
}

bool isCompositeOf(Operation *op, bool (CompositeOp::*predicate)()) {
  auto composite = llvm::dyn_cast<CompositeOp>(op);
  return composite && (composite.*predicate)();
}

std::optional<Lowering::NamedLowering>
Lowering::getLowering(LoweringKind kind) {
  auto any = [](Operation *) { return true; };
  switch (kind) {
  case LoweringKind::Contraction:
    return NamedLowering{&Lowering::lowerConvOrMatmul,
                         namesLowering<LoweringKind::Contraction>};
  case LoweringKind::Binary:
    return NamedLowering{&Lowering::lowerAddOrMul,
                         namesLowering<LoweringKind::Binary>};
  case LoweringKind::Pool:
    return NamedLowering{&Lowering::lowerPool,
                         namesLowering<LoweringKind::Pool>};
  case LoweringKind::Concat:
    return NamedLowering{&Lowering::lowerConcat,
                         namesLowering<LoweringKind::Concat>};
  case LoweringKind::FloatKernel:
    return NamedLowering{&Lowering::lowerInFloat, any};
  case LoweringKind::CenteredFloat:
    return NamedLowering{&Lowering::lowerCenteredInFloat, any};
  case LoweringKind::Mean:
    return NamedLowering{&Lowering::lowerMean, [](Operation *op) {
                           return isCompositeOf(op, &CompositeOp::isMean);
                         }};
  case LoweringKind::BatchNorm:
    return NamedLowering{&Lowering::lowerBatchNorm, [](Operation *op) {
                           return isCompositeOf(op, &CompositeOp::isBatchNorm);
                         }};
  case LoweringKind::Normalization:
    return NamedLowering{&Lowering::lowerNormalization, [](Operation *op) {
                           return isCompositeOf(op,
                                                &CompositeOp::isNormalization);
                         }};
  case LoweringKind::WeightedBody:
    return NamedLowering{&Lowering::lowerWeightedBody, [](Operation *op) {
                           return llvm::isa<CompositeOp>(op);
                         }};
  // Any elementwise op: lowerTable says which it cannot evaluate.
  case LoweringKind::Table:
    return NamedLowering{&Lowering::lowerTable, any};
  case LoweringKind::DataMovement:
    return NamedLowering{&Lowering::lowerDataMovement, isDataMovement};
  // Lowered on their own (their outputs stay float), never as a pattern.
  case LoweringKind::Embedding:
  case LoweringKind::Recurrent:
    return NamedLowering{nullptr, [](Operation *) { return false; }};
  }
  return std::nullopt;
}

llvm::Error Lowering::lowerPattern(Operation *root,
                                   const BackendPatternConfig *config) {
  if (root->getNumResults() != 1)
    return unsupported("the pattern has more than one result");
  PatternBody body(root);
  if (body.ops.empty())
    return unsupported("the pattern is empty");
  Operation *main = body.ops.front();
  OpBuilder b(root);

  // Dynamic quantization: the input is quantized at run time and the output
  // stays float.
  if (auto dynamicInput =
          body.external(main->getOperand(0)).getDefiningOp<DequantizeOp>()) {
    if (!llvm::isa<tosa::MatMulOp>(main))
      return unsupported("dynamic quantization is lowered for matmul only");
    Lowered<Value> result = lowerDynamicMatmul(b, body, dynamicInput);
    if (!result)
      return result.takeError();
    root->getResult(0).replaceAllUsesWith(*result);
    return llvm::Error::success();
  }

  Lowered<ActQuant> out = getOutputQuant(root->getResult(0));
  if (!out)
    return out.takeError();
  // The lowering the backend table names for the pattern, else the one the
  // main op names (QuantizableOpInterface).
  std::optional<LoweringKind> kind;
  if (config)
    kind = config->getReferenceLowering();
  if (!kind)
    kind = getOwnLowering(main);
  std::optional<NamedLowering> lowering =
      kind ? getLowering(*kind) : std::nullopt;
  if (!lowering)
    return unsupported("'" + describeOp(main) + "' has no int8 lowering");
  if (!lowering->appliesTo(main))
    return unsupported("the int8 lowering '" +
                       stringifyLoweringKind(*kind).str() +
                       "' does not apply to '" + describeOp(main) + "'");
  resultQuant.reset();
  Lowered<Value> result = (this->*lowering->lower)(b, body, *out);
  if (!result)
    return result.takeError();

  // The quantized type of the result: the observer's, or the kernel's own.
  auto qcast =
      llvm::cast<quant::QuantizeCastOp>(*root->getResult(0).getUsers().begin());
  Type quantizedType = qcast.getType();
  ActQuant quant = resultQuant.value_or(*out);
  if (resultQuant && !resultQuant->sameAs(*out)) {
    // Only dequantize casts may see the new type (a function result, say,
    // keeps its declared type).
    for (Operation *user : qcast->getUsers())
      if (!llvm::isa<quant::DequantizeCastOp>(user))
        return unsupported("its output qparams are the kernel's own, and '" +
                           user->getName().getStringRef() +
                           "' uses the quantized result");
    auto observed = llvm::cast<quant::UniformQuantizedType>(
        llvm::cast<RankedTensorType>(quantizedType).getElementType());
    int64_t offset = quant.isUnsigned ? 128 : 0;
    quantizedType = withElement(
        quantizedType,
        quant::UniformQuantizedType::get(
            observed.getFlags(), observed.getStorageType(),
            observed.getExpressedType(), quant.scale, quant.zeroPoint + offset,
            observed.getStorageTypeMin(), observed.getStorageTypeMax()));
  }

  // Replace the quantize casts of the float result with the integers.
  Location loc = root->getLoc();
  markQuantized(*result, quant);
  Value stored = *result;
  if (quant.isUnsigned) {
    Lowered<Value> unsignedValue =
        rescale(b, loc, stored, {1.0}, quant.zeroPoint, quant.zeroPoint + 128,
                b.getIntegerType(8), /*inputUnsigned=*/false,
                /*outputUnsigned=*/true);
    if (!unsignedValue)
      return unsignedValue.takeError();
    stored = *unsignedValue;
  }
  Value quantized = quant::StorageCastOp::create(b, loc, quantizedType, stored);
  acts[quantized] = Act{*result, quant};
  for (Operation *user :
       llvm::make_early_inc_range(root->getResult(0).getUsers())) {
    user->getResult(0).replaceAllUsesWith(quantized);
    user->erase();
  }
  return llvm::Error::success();
}

/// True if `value` is dequantized (statically or at run time), through data
/// movement.
bool isDequantized(Value value) {
  Operation *def = value.getDefiningOp();
  while (def && isDataMovement(def))
    def = def->getOperand(0).getDefiningOp();
  return llvm::isa_and_nonnull<quant::DequantizeCastOp, DequantizeOp>(def);
}

/// True for a weight-only pattern: a conv or matmul whose weight is
/// dequantized and whose input is float, or an embedding. It stays float
/// with its weights stored quantized (packed when narrower than 8 bits;
/// embeddings: lowerWeightOnlyEmbedding).
bool isWeightOnly(Operation *root) {
  if (auto composite = llvm::dyn_cast<CompositeOp>(root))
    return composite.isEmbedding();
  PatternBody body(root);
  if (body.ops.empty() ||
      !llvm::isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp, tosa::MatMulOp>(
          body.ops.front()))
    return false;
  Operation *main = body.ops.front();
  return !isDequantized(body.external(main->getOperand(0))) &&
         isDequantized(body.external(main->getOperand(1)));
}

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
/// unpacked int8 values to a type with the same qparams and range [0, 15];
/// a tosa.cast of a 4-bit constant (a float-qparams weight) casts the
/// unpacked values instead.
void packFourBitWeights(Block &block) {
  SmallVector<Operation *> users;
  for (Operation &op : block)
    if (llvm::isa<quant::StorageCastOp, tosa::CastOp>(op))
      users.push_back(&op);
  for (Operation *op : users) {
    mlir::DenseIntElementsAttr values;
    if (!mlir::matchPattern(op->getOperand(0), mlir::m_Constant(&values)) ||
        values.getElementType().getIntOrFloatBitWidth() != 4)
      continue;
    auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (llvm::isa<tosa::CastOp>(op)) {
      Value unpacked = unpackNibbles(b, loc, values, type.getShape());
      op->getResult(0).replaceAllUsesWith(
          tosa::CastOp::create(b, loc, type, unpacked).getResult());
      continue;
    }
    auto element = llvm::dyn_cast<quant::QuantizedType>(type.getElementType());
    quant::QuantizedType wide =
        element && !element.isSigned() ? widenFourBit(element) : nullptr;
    if (!wide)
      continue;
    Value stored = quant::StorageCastOp::create(
        b, loc, type.clone(wide),
        unpackNibbles(b, loc, values, type.getShape()));
    for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
      if (auto dcast = llvm::dyn_cast<quant::DequantizeCastOp>(user)) {
        OpBuilder after(dcast);
        dcast.getResult().replaceAllUsesWith(quant::DequantizeCastOp::create(
            after, dcast.getLoc(), dcast.getType(), stored));
      }
  }
}

/// Stores float16 weights as float16: tosa.cast f32 -> f16 of a constant
/// becomes an f16 constant (rounded to nearest even, as Tensor.half()).
void foldHalfWeights(Block &block) {
  SmallVector<tosa::CastOp> casts;
  for (Operation &op : block)
    if (auto cast = llvm::dyn_cast<tosa::CastOp>(op))
      casts.push_back(cast);
  for (tosa::CastOp cast : casts) {
    mlir::DenseFPElementsAttr values;
    auto type = llvm::cast<RankedTensorType>(cast.getType());
    if (!type.getElementType().isF16() ||
        !mlir::matchPattern(cast.getInput(), mlir::m_Constant(&values)))
      continue;
    auto half =
        values.mapValues(type.getElementType(), [](const llvm::APFloat &v) {
          llvm::APFloat h = v;
          bool lost = false;
          h.convert(llvm::APFloat::IEEEhalf(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
          return h.bitcastToAPInt();
        });
    OpBuilder b(cast);
    cast.replaceAllUsesWith(
        tosa::ConstOp::create(b, cast.getLoc(), type, half).getResult());
  }
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
/// stays float. Returns false if `composite` is no such embedding.
Lowered<bool> lowerWeightOnlyEmbedding(CompositeOp composite) {
  std::optional<FloatQParamsWeight> weight =
      matchFloatQParamsDequantize(composite.getOperand(1));
  if (!weight)
    return isDequantized(composite.getOperand(1))
               ? Lowered<bool>(unsupported(
                     "an embedding's weight is lowered with float zero "
                     "points only (float_qparams_weight_only_qconfig)"))
               : Lowered<bool>(false);
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
    if (indicesType.getRank() != 2)
      return unsupported("expected [bags, bag size] indices");
  }
  OpBuilder b(composite);
  Location loc = composite.getLoc();
  Type i8 = b.getI8Type(), i32 = b.getI32Type(), f64 = b.getF64Type();

  // The table as int8 [1, rows, dim] (4-bit values widened).
  auto tableType = RankedTensorType::get({1, rows, dim}, i8);
  mlir::DenseElementsAttr table = weight->storage.mapValues(
      i8, [](const llvm::APInt &v) { return v.zextOrTrunc(8); });
  Value tableValue =
      tosa::ConstOp::create(b, loc, tableType, table.reshape(tableType));
  // Each row's scale and bias as the kernel holds them, in double.
  SmallVector<double> scales, biases;
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
  auto rowType = RankedTensorType::get({1, rows, 1}, f64);
  auto rowConstant = [&](ArrayRef<double> values) -> Value {
    return tosa::ConstOp::create(b, loc, rowType,
                                 mlir::DenseElementsAttr::get(rowType, values));
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
  result = tosa::ReshapeOp::create(b, loc, resultType, result,
                                   constShape(b, loc, resultType.getShape()));
  composite.getResult(0).replaceAllUsesWith(result);
  composite.erase();
  return true;
}

/// Erases ops whose results are unused and that have no side effects,
/// latest first.
void eraseDeadOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() &&
        (mlir::isOpTriviallyDead(&op) || llvm::isa<FusedOp>(op)))
      op.erase();
}

namespace {

struct QFXReferenceToTosaPass
    : qfx::impl::QFXReferenceToTosaBase<QFXReferenceToTosaPass> {
  using Base::Base;

  PassConfig config;
  Requantization requantization = Requantization::Integer;

  LogicalResult initialize(MLIRContext *context) override {
    if (failed(config.load(context, backend)))
      return failure();
    std::string mode = requantizationOption;
    if (mode.empty())
      mode = getEngineTraits(config.backend->getName()).requantization;
    if (mode == "onednn")
      requantization = Requantization::OneDnn;
    else if (mode == "qnnpack")
      requantization = Requantization::Qnnpack;
    else if (mode == "integer")
      requantization = Requantization::Integer;
    else
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "qfx-lower: requantization '" << mode
             << "' is none of onednn, qnnpack, integer";
    return success();
  }

  void runOnOperation() override {
    mlir::func::FuncOp func = getOperation();
    // A model prepared for another backend: its observers follow that
    // backend's patterns and constraints, not these.
    if (auto module = func->getParentOfType<mlir::ModuleOp>())
      if (auto prepared = module->getAttrOfType<mlir::StringAttr>(
              QFXDialect::getBackendAttrName());
          prepared && prepared.getValue() != config.backend->getName())
        mlir::emitWarning(func.getLoc())
            << "qfx-lower: the model was prepared for backend '"
            << prepared.getValue() << "', it is lowered with backend '"
            << config.backend->getName() << "'";
    Block &block = func.getBody().front();
    PatternMatches matches = matchBackendPatterns(block, *config.backend);

    // Weight-only embeddings and dynamic recurrent modules stay float
    // outside: no pattern quantizes their outputs.
    Lowering lowering(requantization);
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto composite = llvm::dyn_cast<CompositeOp>(op);
      llvm::Error error = llvm::Error::success();
      if (composite && composite.isEmbedding()) {
        Lowered<bool> lowered = lowerWeightOnlyEmbedding(composite);
        error = lowered ? llvm::Error::success() : lowered.takeError();
      } else if (composite && composite.isRecurrent()) {
        error = lowering.lowerRecurrentBody(composite);
      }
      if (error)
        composite.emitRemark()
            << "runs in float: " << llvm::toString(std::move(error));
    }

    SmallVector<Operation *> roots;
    for (Operation &op : block)
      if (!op.hasTrait<mlir::OpTrait::ConstantLike>() &&
          !llvm::isa<quant::QuantizeCastOp, quant::DequantizeCastOp,
                     quant::StorageCastOp, tosa::ConstShapeOp>(op) &&
          !op.hasTrait<mlir::OpTrait::IsTerminator>())
        roots.push_back(&op);
    for (Operation *root : roots) {
      if (!llvm::any_of(root->getOperands(), isDequantized) ||
          isWeightOnly(root))
        continue;
      // Data movement between a dequantize and a pattern is replayed on the
      // integers when the pattern is lowered.
      if (isDataMovement(root) &&
          !llvm::any_of(root->getUsers(), [](Operation *u) {
            return llvm::isa<quant::QuantizeCastOp>(u);
          }))
        continue;
      const PatternMatchResult *match = matches.lookup(root);
      llvm::Error error =
          !isDataMovement(root) && !match
              ? unsupported("backend '" + backend + "' has no pattern for it")
              : lowering.lowerPattern(root, match ? match->config : nullptr);
      if (error)
        root->emitRemark() << "runs in float: "
                           << llvm::toString(std::move(error));
    }
    packFourBitWeights(block);
    foldHalfWeights(block);
    eraseDeadOps(block);
    if (emitTosa) {
      RewritePatternSet patterns(&getContext());
      populateQFXContractToTosaPatterns(patterns);
      mlir::walkAndApplyPatterns(func, std::move(patterns));
    }
  }
};

} // namespace
} // namespace qfx::lowering
