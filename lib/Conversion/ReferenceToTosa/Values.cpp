//===- Values.cpp - Int8 values and building blocks -----------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The int8-domain values of quantized activations and constants, and the
// requantizations, clamps and constants the lowerings build from them.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

namespace qfx::lowering {

std::optional<ActQuant> getActQuant(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  auto uniform =
      llvm::dyn_cast<quant::UniformQuantizedType>(tensor.getElementType());
  if (!uniform || uniform.getStorageTypeIntegralWidth() != 8)
    return std::nullopt;
  bool isSigned = uniform.isSigned();
  int64_t fullMin = isSigned ? kInt8Min : 0,
          fullMax = isSigned ? kInt8Max : 255;
  if (uniform.getStorageTypeMin() != fullMin ||
      uniform.getStorageTypeMax() != fullMax)
    return std::nullopt;
  int64_t shift = isSigned ? 0 : 128;
  return ActQuant{uniform.getScale(), uniform.getZeroPoint() - shift,
                  !isSigned};
}

void markQuantized(Value value, const ActQuant &quant) {
  // A value a pattern passes on unchanged (add of a scalar: the zero point
  // moves, the integers do not) keeps the mark of the op computing it.
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumResults() != 1 ||
      def->hasAttr(QFXDialect::getQuantizedAttrName()))
    return;
  mlir::MLIRContext *context = def->getContext();
  auto type = quant::UniformQuantizedType::get(
      quant::QuantizationFlags::Signed, mlir::IntegerType::get(context, 8),
      mlir::Float32Type::get(context), quant.scale, quant.zeroPoint, -128, 127);
  def->setAttr(QFXDialect::getQuantizedAttrName(), mlir::TypeAttr::get(type));
}

std::optional<std::vector<double>> getFloatConstant(Value value) {
  while (auto reshape = value.getDefiningOp<tosa::ReshapeOp>())
    value = reshape.getInput1();
  mlir::DenseFPElementsAttr elements;
  if (!mlir::matchPattern(value, mlir::m_Constant(&elements)))
    return std::nullopt;
  std::vector<double> values;
  for (const llvm::APFloat &v : elements.getValues<llvm::APFloat>())
    values.push_back(v.convertToDouble());
  return values;
}

std::optional<float> getSplat(Value value) {
  mlir::SplatElementsAttr splat;
  if (!mlir::matchPattern(value, mlir::m_Constant(&splat)) ||
      !llvm::isa<mlir::FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<mlir::APFloat>().convertToFloat();
}

/// The operand index of the one operand of an origin-less concat that is
/// not a constant zero (an exporter's zero padding: tosa.pad of a 4-D tensor
/// fails MLIR 22's validation), or none.
static std::optional<unsigned> getPaddedOperandIndex(Operation *op) {
  if (!llvm::isa<tosa::ConcatOp>(op) ||
      op->hasAttr(QFXDialect::getOriginAttrName()))
    return std::nullopt;
  std::optional<unsigned> padded;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    if (getSplat(operand) == 0.0f)
      continue;
    if (padded)
      return std::nullopt;
    padded = index;
  }
  return padded;
}

bool isDataMovement(Operation *op) {
  if (auto pad = llvm::dyn_cast<tosa::PadOp>(op))
    return getSplat(pad.getPadConst()) == 0.0f;
  return llvm::isa<tosa::ReshapeOp, tosa::TransposeOp, tosa::SliceOp,
                   tosa::TileOp, tosa::ReverseOp, tosa::IdentityOp>(op) ||
         getPaddedOperandIndex(op);
}

Value getMovedOperand(Operation *op) {
  return op->getOperand(getPaddedOperandIndex(op).value_or(0));
}

/// True if a replay of the data-movement op `def` on the integers replaces
/// its operand `index` (a padding's zeros by the zero point).
static bool isReplacedOperand(Operation *def, unsigned index) {
  if (auto pad = llvm::dyn_cast<tosa::PadOp>(def))
    return index == pad.getPadConstMutable().getOperandNumber();
  std::optional<unsigned> padded = getPaddedOperandIndex(def);
  return padded && index != *padded;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// The int8-domain value a lowering already made of `quantized`: the input
/// of a pattern's output cast `quant.scast` (through the rescale to u8 of an
/// unsigned type), or the storage cast (and rescale from u8) made of it for
/// an earlier use in `block` before `before`. Null if there is none.
static Value findInt8(Value quantized, const ActQuant &quant, Block *block,
                      Operation *before) {
  auto fromUnsigned = [](Value value) -> Value {
    auto rescale = value.getDefiningOp<tosa::RescaleOp>();
    return rescale && rescale.getOutputUnsigned() && !rescale.getInputUnsigned()
               ? rescale.getInput()
               : Value();
  };
  if (auto stored = quantized.getDefiningOp<quant::StorageCastOp>();
      stored && !llvm::isa<quant::QuantizedType>(
                    getElementTypeOrSelf(stored.getInput().getType()))) {
    if (!quant.isUnsigned)
      return stored.getInput();
    if (Value value = fromUnsigned(stored.getInput()))
      return value;
  }
  for (Operation *user : quantized.getUsers()) {
    auto stored = llvm::dyn_cast<quant::StorageCastOp>(user);
    if (!stored || stored->getBlock() != block ||
        !stored->isBeforeInBlock(before))
      continue;
    if (!quant.isUnsigned)
      return stored.getResult();
    for (Operation *rescale : stored->getUsers())
      if (auto op = llvm::dyn_cast<tosa::RescaleOp>(rescale);
          op && op.getInputUnsigned() && !op.getOutputUnsigned() &&
          op->getBlock() == block && op->isBeforeInBlock(before))
        return op.getOutput();
  }
  return nullptr;
}

/// The replay of the data movement `def` on `input` a lowering already made
/// for an earlier use in def's block: a copy of `def` before it whose
/// moved operand is `input` and whose other operands are def's (a padding's
/// zero-point constants aside). Null if there is none.
static Operation *findReplay(Operation *def, Value input, Type type) {
  unsigned moved = getPaddedOperandIndex(def).value_or(0);
  for (Operation *user : input.getUsers()) {
    if (user->getName() != def->getName() ||
        user->getBlock() != def->getBlock() || !user->isBeforeInBlock(def) ||
        user->getResultTypes() != mlir::TypeRange(type) ||
        user->getNumOperands() != def->getNumOperands() ||
        user->getOperand(moved) != input)
      continue;
    bool same = true;
    for (unsigned i = 0; same && i < def->getNumOperands(); ++i)
      same = i == moved || user->getOperand(i) == def->getOperand(i) ||
             isReplacedOperand(def, i);
    if (same &&
        user->getPropertiesAsAttribute() == def->getPropertiesAsAttribute())
      return user;
  }
  return nullptr;
}

Lowered<Act> Lowering::getAct(Value floatValue) {
  Operation *def = floatValue.getDefiningOp();
  if (auto dcast = llvm::dyn_cast_or_null<quant::DequantizeCastOp>(def)) {
    Value quantized = dcast.getInput();
    std::optional<ActQuant> quant = getActQuant(quantized.getType());
    if (!quant)
      return unsupported("an input is not quantized per tensor to 8 bits");
    if (Value value = findInt8(quantized, *quant, def->getBlock(), def))
      return Act{value, *quant};
    OpBuilder b(def, listener);
    Location loc = def->getLoc();
    auto storageType = withElement(quantized.getType(), b.getIntegerType(8));
    Value value = quant::StorageCastOp::create(b, loc, storageType, quantized);
    if (quant->isUnsigned) {
      Lowered<Value> shifted =
          rescale(b, loc, value, {1.0}, quant->zeroPoint + 128,
                  quant->zeroPoint, b.getIntegerType(8),
                  /*inputUnsigned=*/true);
      if (!shifted)
        return shifted.takeError();
      value = *shifted;
      markQuantized(value, *quant);
    }
    return Act{value, *quant};
  }
  if (def && isDataMovement(def)) {
    Value moved = getMovedOperand(def);
    Lowered<Act> input = getAct(moved);
    if (!input)
      return input.takeError();
    OpBuilder b(def, listener);
    Type i8 = b.getIntegerType(8);
    auto int8Type = withElement(floatValue.getType(), i8);
    if (Operation *replay = findReplay(def, input->value, int8Type))
      return Act{replay->getResult(0), input->quant};
    mlir::IRMapping mapping;
    mapping.map(moved, input->value);
    if (auto pad = llvm::dyn_cast<tosa::PadOp>(def))
      mapping.map(pad.getPadConst(),
                  zeroPoint(b, def->getLoc(), i8, input->quant.zeroPoint));
    // A padding concat's zeros (often one constant on both sides).
    for (auto [index, operand] : llvm::enumerate(def->getOperands())) {
      if (!llvm::isa<tosa::ConcatOp>(def) || !isReplacedOperand(def, index) ||
          mapping.contains(operand))
        continue;
      auto type =
          withElement(llvm::cast<RankedTensorType>(operand.getType()), i8);
      mapping.map(operand,
                  tosa::ConstOp::create(
                      b, def->getLoc(), type,
                      mlir::DenseElementsAttr::get(
                          type, static_cast<int8_t>(input->quant.zeroPoint))));
    }
    Operation *replay = b.clone(*def, mapping);
    replay->getResult(0).setType(int8Type);
    return Act{replay->getResult(0), input->quant};
  }
  return unsupported("an input is not a dequantized value");
}

Lowered<QConst> Lowering::getQConst(Value floatValue) {
  Operation *def = floatValue.getDefiningOp();
  if (auto reshape = llvm::dyn_cast_or_null<tosa::ReshapeOp>(def)) {
    Lowered<QConst> input = getQConst(reshape.getInput1());
    if (input)
      input->shape = llvm::to_vector(reshape.getType().getShape());
    return input;
  }
  if (auto transpose = llvm::dyn_cast_or_null<tosa::TransposeOp>(def)) {
    Lowered<QConst> input = getQConst(transpose.getInput1());
    if (!input)
      return input;
    ArrayRef<int32_t> perms = transpose.getPerms();
    SmallVector<int64_t> inShape = input->shape, outShape;
    for (int32_t p : perms)
      outShape.push_back(inShape[p]);
    SmallVector<int64_t> inStrides(inShape.size(), 1);
    for (int64_t d = static_cast<int64_t>(inShape.size()) - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * inShape[d + 1];
    QConst out{outShape, {}, {}, input->params};
    out.values.reserve(input->values.size());
    SmallVector<int64_t> index(outShape.size(), 0);
    for (size_t n = 0; n < input->values.size(); ++n) {
      int64_t source = 0;
      for (size_t d = 0; d < perms.size(); ++d)
        source += index[d] * inStrides[perms[d]];
      out.values.push_back(input->values[source]);
      out.group.push_back(input->group[source]);
      for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
        if (++index[d] < outShape[d])
          break;
        index[d] = 0;
      }
    }
    return out;
  }
  if (auto reverse = llvm::dyn_cast_or_null<tosa::ReverseOp>(def)) {
    Lowered<QConst> input = getQConst(reverse.getInput1());
    if (!input)
      return input;
    int64_t axis = reverse.getAxis(), inner = 1;
    for (size_t d = axis + 1; d < input->shape.size(); ++d)
      inner *= input->shape[d];
    int64_t size = input->shape[axis], block = size * inner;
    QConst out = *input;
    for (int64_t n = 0, e = out.values.size(); n < e; ++n) {
      // Index i along the axis reads index size - 1 - i.
      int64_t i = n % block / inner;
      int64_t source = n + (size - 1 - 2 * i) * inner;
      out.values[n] = input->values[source];
      out.group[n] = input->group[source];
    }
    return out;
  }
  auto dcast = llvm::dyn_cast_or_null<quant::DequantizeCastOp>(def);
  if (!dcast)
    return unsupported("the weight is not a quantized constant");
  auto type = llvm::cast<RankedTensorType>(dcast.getInput().getType());
  auto element = llvm::cast<quant::QuantizedType>(type.getElementType());
  unsigned width = element.getStorageTypeIntegralWidth();
  if (width > 8)
    return unsupported("the weight is quantized to more than 8 bits");
  // Only u8 needs the shift into int8; narrower unsigned values fit as they
  // are.
  int64_t shift = element.isSigned() || width < 8 ? 0 : 128;
  QConst weight;
  weight.shape = llvm::to_vector(type.getShape());
  int64_t size = type.getNumElements();

  // Per element: which parameters.
  weight.group.assign(size, 0);
  if (auto uniform = llvm::dyn_cast<quant::UniformQuantizedType>(element)) {
    weight.params.push_back(
        {uniform.getScale(), uniform.getZeroPoint() - shift});
  } else if (auto perAxis =
                 llvm::dyn_cast<quant::UniformQuantizedPerAxisType>(element)) {
    int64_t axis = perAxis.getQuantizedDimension();
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
    int64_t channels = type.getDimSize(axis);
    for (auto [s, z] : llvm::zip(perAxis.getScales(), perAxis.getZeroPoints()))
      weight.params.push_back({s, z - shift});
    for (int64_t n = 0; n < size; ++n)
      weight.group[n] = (n / inner) % channels;
  } else {
    return unsupported("the weight's quantized type is not uniform");
  }

  // The stored integers: an integer constant cast to the quantized type, or a
  // float constant quantized now.
  weight.values.reserve(size);
  Value stored = dcast.getInput();
  mlir::DenseElementsAttr elements;
  if (auto scast = stored.getDefiningOp<quant::StorageCastOp>();
      scast &&
      mlir::matchPattern(scast.getInput(), mlir::m_Constant(&elements)) &&
      llvm::isa<mlir::IntegerType>(elements.getElementType())) {
    for (int64_t v : getIntValues(elements, element.isSigned()))
      weight.values.push_back(static_cast<int32_t>(v - shift));
    return weight;
  }
  auto qcast = stored.getDefiningOp<quant::QuantizeCastOp>();
  std::optional<std::vector<double>> floats;
  if (qcast)
    floats = getFloatConstant(qcast.getInput());
  if (!floats)
    return unsupported("the weight is not a quantized constant");
  QuantRange range{element.getStorageTypeMin(), element.getStorageTypeMax()};
  for (int64_t n = 0; n < size; ++n) {
    auto [scale, zp] = weight.params[weight.group[n]];
    weight.values.push_back(
        static_cast<int32_t>(quantizeValue(static_cast<float>((*floats)[n]),
                                           scale, zp + shift, range) -
                             shift));
  }
  return weight;
}

Lowered<ChannelQuant>
Lowering::getChannelQuant(const QConst &weight, int64_t channels,
                          const std::function<int64_t(int64_t)> &channelOf) {
  SmallVector<std::optional<size_t>> groupOf(channels);
  for (size_t n = 0; n < weight.values.size(); ++n) {
    std::optional<size_t> &g = groupOf[channelOf(n)];
    if (!g)
      g = weight.group[n];
    else if (weight.params[*g] != weight.params[weight.group[n]])
      return unsupported("the weight is quantized along an axis other than "
                         "its output channels");
  }
  ChannelQuant result;
  result.zeroPoint = weight.params[groupOf[0].value_or(0)].second;
  for (const std::optional<size_t> &g : groupOf) {
    auto [scale, zp] = weight.params[g.value_or(0)];
    if (zp != result.zeroPoint)
      return unsupported("the weight's zero points differ between channels; "
                         "TOSA takes one weight zero point");
    result.scales.push_back(scale);
  }
  if (llvm::all_equal(result.scales))
    result.scales.resize(1);
  return result;
}

Value Lowering::int8Constant(OpBuilder &b, Location loc, const QConst &weight,
                             ArrayRef<int64_t> shape) {
  SmallVector<int8_t> values(weight.values.begin(), weight.values.end());
  auto type = RankedTensorType::get(shape, b.getIntegerType(8));
  auto attr = mlir::DenseElementsAttr::get(type, ArrayRef<int8_t>(values));
  return tosa::ConstOp::create(b, loc, type, attr);
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// tosa.rescale's 32-bit multipliers and shifts of `scales`.
Lowered<std::pair<SmallVector<int32_t>, SmallVector<int32_t>>>
getMultipliers(ArrayRef<double> scales) {
  std::pair<SmallVector<int32_t>, SmallVector<int32_t>> result;
  for (double scale : scales) {
    int32_t multiplier = 0, shift = 0;
    if (!(scale > 0) ||
        !tosa::computeMultiplierAndShift(scale, multiplier, shift, 32) ||
        shift < 2 || shift > 62)
      return unsupported("the requantization scale " +
                         llvm::formatv("{0:e}", scale).str() +
                         " is outside tosa.rescale's range");
    result.first.push_back(multiplier);
    result.second.push_back(shift);
  }
  return result;
}

/// `values` as a float32 array attribute, one value if all are equal.
mlir::DenseF32ArrayAttr perChannelAttr(MLIRContext *context,
                                       SmallVector<float> values) {
  if (!values.empty() && llvm::all_equal(values))
    values.resize(1);
  return mlir::DenseF32ArrayAttr::get(context, values);
}

mlir::DenseI32ArrayAttr perChannelAttr(MLIRContext *context,
                                       SmallVector<int32_t> values) {
  if (!values.empty() && llvm::all_equal(values))
    values.resize(1);
  return mlir::DenseI32ArrayAttr::get(context, values);
}

Lowered<Value> Lowering::rescale(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<double> scales, int64_t inputZp,
                                 int64_t outputZp, Type outputElement,
                                 bool inputUnsigned, bool outputUnsigned) {
  auto multipliers = getMultipliers(scales);
  if (!multipliers)
    return multipliers.takeError();
  return tosa_builders::rescale(b, loc, input, multipliers->first,
                                multipliers->second, inputZp, outputZp,
                                outputElement, inputUnsigned, outputUnsigned);
}

Lowered<Value> Lowering::requantize(OpBuilder &b, Location loc, Act act,
                                    const ActQuant &out) {
  if (act.quant.sameAs(out))
    return act.value;
  return rescale(b, loc, act.value, {act.quant.scale / out.scale},
                 act.quant.zeroPoint, out.zeroPoint, b.getIntegerType(8));
}

/// `act` in `out`'s qparams as PyTorch requantizes a tensor it computes on
/// in float (a quantized cat's other inputs, a view PyTorch's tables do not
/// quantize): dequantized as Tensor.dequantize(), then quantize_per_tensor,
/// ties to even (tosa.rescale rounds them up). With requantization=integer,
/// `requantize`.
Lowered<Value> Lowering::requantizeAsTorch(OpBuilder &b, Location loc, Act act,
                                           const ActQuant &out) {
  if (act.quant.sameAs(out) || requantization == Requantization::Integer)
    return requantize(b, loc, act, out);
  return quantizeAsTensor(b, loc, dequantizeAsTensor(b, loc, act), out);
}

/// Quantizes a float bound to the int8 domain, saturating.
int64_t quantizeBound(double value, const ActQuant &out) {
  double q = std::nearbyint(value / out.scale) + out.zeroPoint;
  return static_cast<int64_t>(std::clamp(q, static_cast<double>(kInt8Min),
                                         static_cast<double>(kInt8Max)));
}

Lowered<std::pair<int64_t, int64_t>>
Lowering::getClampRange(ArrayRef<Operation *> ops, const ActQuant &out) {
  std::pair<int64_t, int64_t> range{kInt8Min, kInt8Max};
  for (Operation *op : ops) {
    auto clampOp = llvm::dyn_cast<tosa::ClampOp>(op);
    if (!clampOp)
      return unsupported("'" + op->getName().getStringRef() +
                         "' after the pattern's main op is not supported");
    auto lo = llvm::dyn_cast<mlir::FloatAttr>(clampOp.getMinValAttr());
    auto hi = llvm::dyn_cast<mlir::FloatAttr>(clampOp.getMaxValAttr());
    if (!lo || !hi)
      return unsupported("a clamp without float bounds");
    range.first =
        std::max(range.first, quantizeBound(lo.getValueAsDouble(), out));
    range.second =
        std::min(range.second, quantizeBound(hi.getValueAsDouble(), out));
  }
  return range;
}

Value Lowering::clamp(OpBuilder &b, Location loc, Value value,
                      std::pair<int64_t, int64_t> range) {
  if (range.first == kInt8Min && range.second == kInt8Max)
    return value;
  return tosa::ClampOp::create(
      b, loc, value.getType(), value,
      b.getIntegerAttr(b.getIntegerType(8), range.first),
      b.getIntegerAttr(b.getIntegerType(8), range.second));
}

/// Checks that each op of `ops` consumes the result of the previous one.
llvm::Error checkChain(ArrayRef<Operation *> ops) {
  for (size_t i = 1; i < ops.size(); ++i)
    if (!llvm::is_contained(ops[i]->getOperands(), ops[i - 1]->getResult(0)))
      return unsupported("the pattern's ops are not a chain");
  return llvm::Error::success();
}

/// `q - zp` of an int8-domain value, as float32 (exact).
Value centeredAsFloat(OpBuilder &b, Location loc, const Act &act) {
  auto type = withElement(act.value.getType(), b.getF32Type());
  Value value = tosa::CastOp::create(b, loc, type, act.value);
  return tosa::SubOp::create(b, loc, type, value,
                             channelConstant(b, loc, type.getRank(),
                                             ArrayRef<float>{static_cast<float>(
                                                 act.quant.zeroPoint)}));
}

/// PyTorch 1.13's Tensor.dequantize() on CPU (dequantize_val, element by
/// element): (float(q) - z) times the double scale, rounded to float32.
/// With a float32 scale (an observer's) the product is exact in double, so
/// one float32 multiply of the exact q - z by s rounds the same. Not the
/// fused multiply-add of the vector code below, which rounds otherwise.
Value dequantizeAsTensor(OpBuilder &b, Location loc, const Act &act) {
  Value k = centeredAsFloat(b, loc, act);
  auto type = llvm::cast<RankedTensorType>(k.getType());
  return tosa::MulOp::create(
      b, loc, type, k,
      channelConstant(b, loc, type.getRank(),
                      ArrayRef<float>{static_cast<float>(act.quant.scale)}),
      noShift(b, loc));
}

Value quantizeAsTensor(OpBuilder &b, Location loc, Value value,
                       const ActQuant &out) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  Value scaled = tosa::MulOp::create(
      b, loc, type, value,
      channelConstant(b, loc, type.getRank(),
                      ArrayRef<float>{1.0f / static_cast<float>(out.scale)}),
      noShift(b, loc));
  return roundToInt8(b, loc, scaled, out.zeroPoint, {kInt8Min, kInt8Max});
}

/// PyTorch's vectorized dequantization (its AVX2 / AVX-512 kernels):
/// fma(s, q, s * -z) in float32, q and z the stored type's. Computed
/// exactly with single-rounding float32 ops, no fused multiply-add: with
/// k = q - z (exact), x = s * k rounded and its error
/// err = (s_hi * k - x) + s_lo * k, where s_hi keeps s's top 12 significand
/// bits (s_hi * k and s_lo * k are exact, the subtraction exact by
/// Sterbenz's lemma), and e = s * -z rounded, plus s * z (exact, a
/// constant): s * q + s * -z rounded = x + (err + e) rounded, where
/// err + e is exact.
Value dequantizeAsFma(OpBuilder &b, Location loc, const Act &act) {
  auto s = static_cast<float>(act.quant.scale);
  int64_t storedZp = act.quant.zeroPoint + (act.quant.isUnsigned ? 128 : 0);
  float premul = s * static_cast<float>(-storedZp);
  auto e = static_cast<float>(static_cast<double>(premul) +
                              static_cast<double>(s) * storedZp);
  uint32_t bits;
  std::memcpy(&bits, &s, sizeof(bits));
  bits &= ~uint32_t{0xfff};
  float sHi;
  std::memcpy(&sHi, &bits, sizeof(sHi));
  float sLo = s - sHi;
  Value k = centeredAsFloat(b, loc, act);
  auto type = llvm::cast<RankedTensorType>(k.getType());
  auto scalar = [&](float v) {
    return channelConstant(b, loc, type.getRank(), ArrayRef<float>{v});
  };
  auto mul = [&](Value v, float c) -> Value {
    return tosa::MulOp::create(b, loc, type, v, scalar(c), noShift(b, loc));
  };
  Value x = mul(k, s);
  // A scale of 12 significand bits or fewer: s * k is exact (err = 0).
  if (sLo == 0)
    return e == 0 ? x : tosa::AddOp::create(b, loc, type, x, scalar(e));
  Value err = tosa::AddOp::create(
      b, loc, type, tosa::SubOp::create(b, loc, type, mul(k, sHi), x),
      mul(k, sLo));
  Value u = tosa::AddOp::create(b, loc, type, err, scalar(e));
  return tosa::AddOp::create(b, loc, type, x, u);
}

} // namespace qfx::lowering
