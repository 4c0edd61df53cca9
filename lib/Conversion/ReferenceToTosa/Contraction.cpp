//===- Contraction.cpp - Contractions to qfx.contract ---------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Convolutions and matmuls (static, weighted bodies, dynamic, inside
// recurrent modules) as qfx.contract with their requantization.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace qfx::lowering {

/// A 3-D convolution's int8 input [N, D, H, W, C] as the input of a 2-D one,
/// [N * OD, H, W, KD * C]: for output depth od, the KD depths its window
/// reads (od * stride + kd * dilation of the input padded along D with the
/// zero point), side by side along the channels. A conv2d of it with the
/// weight [O, KD, KH, KW, C] as [O, KH, KW, KD * C] (the H and W padding,
/// strides and dilations) sums what the conv3d sums, so the conv3d runs on
/// the conv2d kernels.
Value stackDepthTaps(OpBuilder &b, Location loc, Value input, int64_t zp,
                     int64_t taps, int64_t outDepth, ArrayRef<int64_t> depthPad,
                     int64_t stride, int64_t dilation) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  Type i8 = type.getElementType();
  SmallVector<int64_t> shape(type.getShape()); // N, D, H, W, C
  auto shapeOf = [](Value v) {
    return llvm::cast<RankedTensorType>(v.getType()).getShape();
  };
  auto reshape = [&](Value v, ArrayRef<int64_t> to) {
    return reshapeTo(b, loc, v, to);
  };
  auto slice = [&](Value v, ArrayRef<int64_t> start,
                   ArrayRef<int64_t> size) -> Value {
    if (shapeOf(v) == size)
      return v;
    return tosa::SliceOp::create(b, loc, RankedTensorType::get(size, i8), v,
                                 constShape(b, loc, start),
                                 constShape(b, loc, size));
  };
  auto zeros = [&](int64_t depth) -> Value {
    SmallVector<int64_t> slab(shape);
    slab[1] = depth;
    auto slabType = RankedTensorType::get(slab, i8);
    return tosa::ConstOp::create(
        b, loc, slabType,
        mlir::DenseElementsAttr::get(slabType, static_cast<int8_t>(zp)));
  };
  // Padded so that every tap's slice of outDepth * stride depths fits (the
  // depths past the conv's own padding are never read).
  int64_t before = depthPad[0];
  int64_t after =
      std::max(depthPad[1],
               (taps - 1) * dilation + outDepth * stride - before - shape[1]);
  SmallVector<Value> padded;
  if (before > 0)
    padded.push_back(zeros(before));
  padded.push_back(input);
  if (after > 0)
    padded.push_back(zeros(after));
  shape[1] += before + after;
  Value all = padded.size() == 1
                  ? input
                  : tosa::ConcatOp::create(
                        b, loc, RankedTensorType::get(shape, i8), padded, 1)
                        .getResult();
  int64_t n = shape[0], plane = shape[2] * shape[3] * shape[4];
  SmallVector<Value> pieces;
  for (int64_t tap = 0; tap < taps; ++tap) {
    Value piece = slice(all, {0, tap * dilation, 0, 0, 0},
                        {n, outDepth * stride, shape[2], shape[3], shape[4]});
    if (stride > 1) // every stride-th depth
      piece = slice(reshape(piece, {n * outDepth, stride, plane}), {0, 0, 0},
                    {n * outDepth, 1, plane});
    pieces.push_back(
        reshape(piece, {n, outDepth, shape[2], shape[3], shape[4]}));
  }
  Value stacked =
      taps == 1
          ? pieces[0]
          : tosa::ConcatOp::create(
                b, loc,
                RankedTensorType::get(
                    {n, outDepth, shape[2], shape[3], taps * shape[4]}, i8),
                pieces, 4)
                .getResult();
  return reshape(stacked, {n * outDepth, shape[2], shape[3], taps * shape[4]});
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

Lowered<Value> Lowering::lowerConvOrMatmul(OpBuilder &b, PatternBody &body,
                                           const ActQuant &out) {
  Operation *main = body.ops.front();
  Location loc = body.root->getLoc();
  ArrayRef<Operation *> tail = ArrayRef(body.ops).drop_front();
  if (llvm::Error e = checkChain(body.ops))
    return std::move(e);

  Lowered<Act> input = getAct(body.external(main->getOperand(0)));
  if (!input)
    return input.takeError();
  auto resultType = llvm::cast<RankedTensorType>(main->getResult(0).getType());
  int64_t channels = resultType.getShape().back();

  // The weight, and which output channel each of its elements feeds
  // (QuantizableOpInterface).
  auto quantizable = llvm::dyn_cast<QuantizableOpInterface>(main);
  std::optional<std::function<int64_t(int64_t)>> channelOf;
  if (quantizable)
    channelOf = getWeightChannelOf(quantizable);
  if (!channelOf)
    return unsupported("'" + describeOp(main) +
                       "' has no weight with known output channels");
  Value weightValue =
      body.external(main->getOperand(*quantizable.getWeightOperandIndex()));
  ArrayRef<int64_t> ws =
      llvm::cast<RankedTensorType>(weightValue.getType()).getShape();

  Value rhs;
  ChannelQuant weightQuant;
  Lowered<QConst> weight = getQConst(weightValue);
  if (weight) {
    Lowered<ChannelQuant> cq = getChannelQuant(*weight, channels, *channelOf);
    if (!cq)
      return cq.takeError();
    weightQuant = *cq;
    rhs = int8Constant(b, loc, *weight, ws);
  } else if (llvm::isa<tosa::MatMulOp>(main)) {
    llvm::consumeError(weight.takeError());
    Lowered<Act> other = getAct(weightValue); // activation x activation
    if (!other)
      return other.takeError();
    rhs = other->value;
    weightQuant = {{other->quant.scale}, other->quant.zeroPoint};
  } else {
    return weight.takeError();
  }

  // The bias: the op's bias operand, or the constant a Linear adds.
  std::optional<std::vector<double>> bias;
  if (std::optional<unsigned> biasIndex = quantizable.getBiasOperandIndex()) {
    bias = getFloatConstant(body.external(main->getOperand(*biasIndex)));
    if (!bias)
      return unsupported("the bias is not a float constant");
  } else if (!tail.empty() && llvm::isa<tosa::AddOp>(tail.front())) {
    Operation *add = tail.front();
    Value other = add->getOperand(0) == main->getResult(0) ? add->getOperand(1)
                                                           : add->getOperand(0);
    bias = getFloatConstant(body.external(other));
    if (!bias)
      return unsupported("the matmul's addend is not a float constant");
    tail = tail.drop_front();
  }
  if (bias && bias->size() != 1 &&
      bias->size() != static_cast<size_t>(channels))
    return unsupported("the bias has neither 1 nor one value per channel");
  if (bias && llvm::all_of(*bias, [](double v) { return v == 0; }))
    bias.reset();
  auto scaleOf = [&](int64_t c) {
    return weightQuant.scales[weightQuant.scales.size() == 1 ? 0 : c];
  };
  auto biasOf = [&](int64_t c) { return (*bias)[bias->size() == 1 ? 0 : c]; };

  Lowered<std::pair<int64_t, int64_t>> range = getClampRange(tail, out);
  if (!range)
    return range.takeError();

  // A matmul of two activations (PyTorch dequantizes them, multiplies in
  // float and quantizes) takes tosa.rescale's integer requantization.
  Requantization mode = weight ? requantization : Requantization::Integer;
  // The integer part of the bias, in the accumulator's units with
  // `fractionBits` fractional bits (onednn adds the whole bias in float).
  SmallVector<int32_t> biasInt(channels, 0);
  int fractionBits = 0;
  if (bias && mode == Requantization::Integer && weight) {
    // As many of up to 8 fractional bits as the accumulator's bound leaves
    // room for in int32 (PyTorch adds the bias in float).
    SmallVector<double> absSum(channels, 0);
    for (size_t n = 0; n < weight->values.size(); ++n)
      absSum[(*channelOf)(n)] +=
          std::abs(weight->values[n] - weightQuant.zeroPoint);
    double bound = 0;
    for (int64_t c = 0; c < channels; ++c)
      bound = std::max(
          bound, 255 * absSum[c] +
                     std::abs(biasOf(c) / (input->quant.scale * scaleOf(c))) +
                     1);
    while (fractionBits < 8 && bound * (1 << (fractionBits + 1)) < 0x7fffffff)
      ++fractionBits;
  }
  for (int64_t c = 0; bias && mode != Requantization::OneDnn && c < channels;
       ++c) {
    // qnnpack quantizes the bias as quantize_per_tensor to qint32 does:
    // times the float32 reciprocal of the float32 scale s_in * s_w.
    double q =
        mode == Requantization::Qnnpack
            ? std::nearbyint(
                  static_cast<float>(biasOf(c)) *
                  (1.0f / static_cast<float>(input->quant.scale * scaleOf(c))))
            : std::nearbyint(biasOf(c) / (input->quant.scale * scaleOf(c)) *
                             (1 << fractionBits));
    if (!(std::abs(q) <= std::numeric_limits<int32_t>::max()))
      return unsupported("the quantized bias does not fit in int32");
    biasInt[c] = static_cast<int32_t>(q);
  }

  MLIRContext *context = b.getContext();
  Type i8 = b.getIntegerType(8), i32 = b.getIntegerType(32);
  // The epilogue: PyTorch's float requantization, or tosa.rescale's with the
  // bias added after the fraction bits.
  Attribute epilogue;
  if (mode != Requantization::Integer) {
    std::optional<std::vector<double>> floatBias;
    if (mode == Requantization::OneDnn)
      floatBias = bias;
    epilogue =
        getFloatRequantization(context, mode, channels, input->quant.scale,
                               weightQuant.scales, floatBias, out, *range);
  } else {
    SmallVector<double> scales;
    for (size_t c = 0; c < weightQuant.scales.size(); ++c)
      scales.push_back(input->quant.scale * weightQuant.scales[c] /
                       (out.scale * (1 << fractionBits)));
    auto multipliers = getMultipliers(scales);
    if (!multipliers)
      return multipliers.takeError();
    epilogue = RescaleAttr::get(
        context, fractionBits,
        perChannelAttr(context, bias && fractionBits > 0
                                    ? biasInt
                                    : SmallVector<int32_t>()),
        mlir::DenseI32ArrayAttr::get(context, multipliers->first),
        mlir::DenseI32ArrayAttr::get(context, multipliers->second),
        out.zeroPoint, range->first, range->second);
  }
  // The integer bias goes into the accumulator unless fraction bits come
  // first (onednn adds the whole bias in float).
  Value accBias;
  if (bias && mode != Requantization::OneDnn && fractionBits == 0)
    accBias = constant1D(b, loc, biasInt, 32);

  auto contract = [&](ContractionKind kind, Value in, Value weightOperand,
                      RankedTensorType type, DenseI64ArrayAttr pad,
                      DenseI64ArrayAttr stride, DenseI64ArrayAttr dilation) {
    return ContractOp::create(b, loc, type.clone(i8), kind, in, weightOperand,
                              accBias, input->quant.zeroPoint,
                              weightQuant.zeroPoint, pad, stride, dilation,
                              epilogue);
  };
  if (auto conv = llvm::dyn_cast<tosa::Conv2DOp>(main))
    return contract(ContractionKind::Conv2d, input->value, rhs, resultType,
                    conv.getPadAttr(), conv.getStrideAttr(),
                    conv.getDilationAttr())
        .getResult();
  if (auto conv = llvm::dyn_cast<tosa::DepthwiseConv2DOp>(main))
    return contract(ContractionKind::DepthwiseConv2d, input->value, rhs,
                    resultType, conv.getPadAttr(), conv.getStrideAttr(),
                    conv.getDilationAttr())
        .getResult();
  if (auto conv = llvm::dyn_cast<tosa::TransposeConv2DOp>(main))
    return contract(ContractionKind::TransposeConv2d, input->value, rhs,
                    resultType, conv.getOutPadAttr(), conv.getStrideAttr(),
                    nullptr)
        .getResult();
  if (auto conv = llvm::dyn_cast<tosa::Conv3DOp>(main)) {
    // As a conv2d over the depth taps side by side (stackDepthTaps): the
    // contraction is [N * OD, OH, OW, O], reshaped at the end.
    ArrayRef<int64_t> out = resultType.getShape(), pad = conv.getPad(),
                      stride = conv.getStride(), dilation = conv.getDilation();
    int64_t taps = ws[1], c = ws[4], plane = ws[2] * ws[3];
    Value stacked =
        stackDepthTaps(b, loc, input->value, input->quant.zeroPoint, taps,
                       out[1], pad.take_front(2), stride[0], dilation[0]);
    // [O, KD, KH * KW, C] -> [O, KH * KW, KD, C].
    SmallVector<int8_t> values(weight->values.size());
    for (int64_t n = 0, e = values.size(); n < e; ++n) {
      int64_t o = n / (taps * plane * c), d = n / (plane * c) % taps,
              p = n / c % plane;
      values[((o * plane + p) * taps + d) * c + n % c] =
          static_cast<int8_t>(weight->values[n]);
    }
    auto weightType =
        RankedTensorType::get({ws[0], ws[2], ws[3], taps * c}, i8);
    Value stackedWeight = tosa::ConstOp::create(
        b, loc, weightType,
        mlir::DenseElementsAttr::get(weightType, ArrayRef<int8_t>(values)));
    auto type =
        RankedTensorType::get({out[0] * out[1], out[2], out[3], out[4]}, i32);
    Value result = contract(ContractionKind::Conv2d, stacked, stackedWeight,
                            type, b.getDenseI64ArrayAttr(pad.drop_front(2)),
                            b.getDenseI64ArrayAttr(stride.drop_front()),
                            b.getDenseI64ArrayAttr(dilation.drop_front()));
    return reshapeTo(b, loc, result, resultType.getShape());
  }
  return contract(ContractionKind::Matmul, input->value, rhs, resultType,
                  nullptr, nullptr, nullptr)
      .getResult();
}

/// A composite whose body is data movement around one weighted op (a 3-D
/// transposed conv: a conv3d over the zero-spread input, its kernel
/// reversed): the body is inlined before the composite in float and its
/// weighted op lowered as that op, with the composite's output quantization;
/// getAct and getQConst replay the data movement on the integers. The float
/// copies are left for eraseDeadOps.
Lowered<Value> Lowering::lowerWeightedBody(OpBuilder &b, PatternBody &body,
                                           const ActQuant &out) {
  auto composite = llvm::cast<CompositeOp>(body.root);
  Block &block = composite.getBody().front();
  Operation *weighted = nullptr;
  for (Operation &op : block.without_terminator()) {
    if (op.hasTrait<mlir::OpTrait::ConstantLike>() || isDataMovement(&op))
      continue;
    auto quantizable = llvm::dyn_cast<QuantizableOpInterface>(op);
    if (weighted || !quantizable || !quantizable.getWeightOperandIndex())
      return unsupported("the body of '" + describeOp(composite) +
                         "' is not data movement around one weighted op");
    weighted = &op;
  }
  auto yield = llvm::cast<YieldOp>(block.getTerminator());
  if (!weighted || yield.getValues().size() != 1 ||
      yield.getValues()[0] != weighted->getResult(0))
    return unsupported("the body of '" + describeOp(composite) +
                       "' does not end in its weighted op");
  mlir::IRMapping inlined;
  inlined.map(block.getArguments(), composite.getInputs());
  for (Operation &op : block.without_terminator())
    b.clone(op, inlined);
  PatternBody inner(inlined.lookup(weighted));
  return lowerConvOrMatmul(b, inner, out);
}

RequantizeAttr Lowering::getFloatRequantization(
    MLIRContext *context, Requantization mode, int64_t channels,
    double inputScale, ArrayRef<double> weightScales,
    const std::optional<std::vector<double>> &bias, const ActQuant &out,
    std::pair<int64_t, int64_t> range) {
  auto scaleOf = [&](int64_t c) {
    return weightScales[weightScales.size() == 1 ? 0 : c];
  };
  // onednn (ideep) takes reciprocal float scales, each computed in double
  // and rounded: si = 1/s_in, sw = 1/s_w, so = 1/s_out. Its bias is
  // sb = bias * (si * sw) in the accumulator's units and its multiplier
  // so / (si * sw). qnnpack's multiplier is (s_w * s_in) * (1 / s_out) in
  // float32.
  auto si = static_cast<float>(1.0 / inputScale);
  auto so = static_cast<float>(1.0 / out.scale);
  SmallVector<float> accBias, multipliers;
  for (int64_t c = 0; c < channels; ++c) {
    if (mode == Requantization::Qnnpack) {
      // generate_requantization_scales: (w * in) * (1 / out) in float32.
      float inverse = 1.0f / static_cast<float>(out.scale);
      multipliers.push_back(static_cast<float>(scaleOf(c)) *
                            static_cast<float>(inputScale) * inverse);
      continue;
    }
    float siw = si * static_cast<float>(1.0 / scaleOf(c));
    multipliers.push_back(so / siw);
    if (bias)
      accBias.push_back(static_cast<float>((*bias)[bias->size() == 1 ? 0 : c]) *
                        siw);
  }
  // onednn adds the stored type's zero point (u8 or s8) before rounding,
  // qnnpack after: then it is the int8 domain's, as an integer.
  int64_t intZp = out.zeroPoint, storedZp = 0;
  if (mode == Requantization::OneDnn) {
    storedZp = out.zeroPoint + (out.isUnsigned ? 128 : 0);
    intZp = out.zeroPoint - storedZp;
  }
  auto bound = [](int64_t v) { return llvm::APFloat(static_cast<float>(v)); };
  return RequantizeAttr::get(context, perChannelAttr(context, accBias),
                             perChannelAttr(context, multipliers),
                             bound(storedZp), bound(range.first - intZp),
                             bound(range.second - intZp), intZp);
}

Lowered<Value> Lowering::lowerDynamicMatmul(OpBuilder &b, PatternBody &body,
                                            DequantizeOp input) {
  // PyTorch's dynamic Linear: float(sum_k (q - z) (w - wz)) * (s * ws) + bias
  // with q, s, z from the run-time quantization of the activation.
  Operation *main = body.ops.front();
  Location loc = body.root->getLoc();
  if (llvm::Error e = checkChain(body.ops))
    return std::move(e);
  auto quantize = input.getInput().getDefiningOp<QuantizeOp>();
  if (!quantize || quantize.getScale() != input.getScale() ||
      quantize.getZeroPoint() != input.getZeroPoint())
    return unsupported("the dynamically quantized input is not a "
                       "qfx.quantize with the same scale and zero point");
  Type i8 = b.getIntegerType(8), i32 = b.getIntegerType(32);
  auto qType = llvm::cast<RankedTensorType>(quantize.getType());
  auto storage = llvm::cast<mlir::IntegerType>(qType.getElementType());
  if (storage.getWidth() != 8)
    return unsupported("the dynamically quantized input is not 8-bit");

  Value weightValue = body.external(main->getOperand(1));
  auto weightType = llvm::cast<RankedTensorType>(weightValue.getType());
  if (weightType.getDimSize(0) != 1)
    return unsupported("a batched weight is not supported");
  int64_t channels = weightType.getShape().back();
  auto channelOf = [channels](int64_t n) { return n % channels; };
  Lowered<QConst> weight = getQConst(weightValue);
  if (!weight)
    return weight.takeError();
  Lowered<ChannelQuant> cq = getChannelQuant(*weight, channels, channelOf);
  if (!cq)
    return cq.takeError();

  ArrayRef<Operation *> tail = ArrayRef(body.ops).drop_front();
  std::optional<std::vector<double>> bias;
  if (!tail.empty() && llvm::isa<tosa::AddOp>(tail.front())) {
    Operation *add = tail.front();
    Value other = add->getOperand(0) == main->getResult(0) ? add->getOperand(1)
                                                           : add->getOperand(0);
    bias = getFloatConstant(body.external(other));
    if (!bias ||
        (bias->size() != 1 && bias->size() != static_cast<size_t>(channels)))
      return unsupported("the matmul's addend is not a constant bias");
    tail = tail.drop_front();
  }
  for (Operation *op : tail)
    if (!llvm::isa<tosa::ClampOp>(op))
      return unsupported("'" + op->getName().getStringRef() +
                         "' after the pattern's main op is not supported");

  // The activation in the int8 domain: a u8 quantization is repeated into i8
  // with the zero point - 128 (the same values shifted, as the clamp to
  // [-128, 127] is the clamp to [0, 255] shifted).
  auto scalarI32 = RankedTensorType::get({}, i32);
  auto splat = [&](RankedTensorType type, Attribute value) -> Value {
    return tosa::ConstOp::create(b, loc, type,
                                 mlir::DenseElementsAttr::get(type, value));
  };
  Value q = quantize.getOutput(), zp = quantize.getZeroPoint();
  if (storage.isUnsigned()) {
    // The u8 values as PyTorch computes them (oneDNN adds the u8 zero point
    // before rounding: with the int8 domain's the sum rounds otherwise,
    // difffuzz 153837), moved into the int8 domain exactly: v - 128 is v
    // with its top bit flipped.
    zp = tosa::SubOp::create(b, loc, scalarI32, zp,
                             splat(scalarI32, b.getI32IntegerAttr(128)));
    auto i8Type = qType.clone(i8);
    Value bits = mlir::tensor::BitcastOp::create(b, loc, i8Type, q);
    auto signType =
        RankedTensorType::get(SmallVector<int64_t>(i8Type.getRank(), 1), i8);
    q = tosa::BitwiseXorOp::create(b, loc, i8Type, bits,
                                   splat(signType, b.getIntegerAttr(i8, -128)));
  } else if (!storage.isSignless() && !storage.isSigned()) {
    return unsupported("unexpected dynamically quantized element type");
  }
  auto resultType = llvm::cast<RankedTensorType>(main->getResult(0).getType());
  auto accType = resultType.clone(i32);
  Value acc = ContractOp::create(
      b, loc, accType, ContractionKind::Matmul, q,
      int8Constant(b, loc, *weight, weightType.getShape()), /*bias=*/nullptr,
      /*input_zp=*/0, cq->zeroPoint, nullptr, nullptr, nullptr,
      /*epilogue=*/nullptr);

  // Subtract z * sum_k (w - wz), the zero-point term, per output channel.
  SmallVector<int32_t> columnSums(channels, 0);
  for (size_t n = 0; n < weight->values.size(); ++n)
    columnSums[channelOf(n)] += weight->values[n] - cq->zeroPoint;
  auto rowType = RankedTensorType::get({1, 1, channels}, i32);
  Value sums = tosa::ConstOp::create(
      b, loc, rowType,
      mlir::DenseElementsAttr::get(rowType, ArrayRef<int32_t>(columnSums)));
  auto shape3 = constShape(b, loc, {1, 1, 1});
  auto scalar3 = RankedTensorType::get({1, 1, 1}, i32);
  Value zp3 = tosa::ReshapeOp::create(b, loc, scalar3, zp, shape3);
  Value correction =
      tosa::MulOp::create(b, loc, rowType, zp3, sums, noShift(b, loc));
  acc = tosa::SubOp::create(b, loc, accType, acc, correction);

  // The float epilogue, in the engine's order.
  Type f32 = resultType.getElementType();
  Value accFloat = tosa::CastOp::create(b, loc, resultType, acc);
  auto scalesType = RankedTensorType::get(
      {1, 1, static_cast<int64_t>(cq->scales.size())}, f32);
  auto channelValues = [&](ArrayRef<float> values) -> Value {
    auto type =
        RankedTensorType::get({1, 1, static_cast<int64_t>(values.size())}, f32);
    return tosa::ConstOp::create(b, loc, type,
                                 mlir::DenseElementsAttr::get(type, values));
  };
  // The run-time scale (an f64 one is PyTorch's double, an f32 one that
  // double rounded) as [1, 1, 1] f32: the scale, or (oneDNN) the reciprocal
  // of its double rounded to float. Scalar arith on the extracted value, as
  // TOSA has no f64.
  auto scalarF32 = RankedTensorType::get({1, 1, 1}, f32);
  auto asTensor = [&](Value scalar) -> Value {
    return mlir::tensor::FromElementsOp::create(b, loc, scalarF32, scalar);
  };
  Value scale = mlir::tensor::ExtractOp::create(b, loc, input.getScale());
  SmallVector<float> biasValues;
  if (bias)
    biasValues.assign(bias->begin(), bias->end());
  Value result;
  if (requantization == Requantization::OneDnn) {
    // oneDNN (ideep's dynamic matmul) holds reciprocal scales, each computed
    // in double from PyTorch's scale and rounded to float: p = (1 / s) *
    // (1 / ws); the bias enters the accumulator's domain: (float(acc) +
    // bias * p) * (1 / p).
    Type f64 = b.getF64Type();
    Value wide =
        scale.getType().isF64()
            ? scale
            : mlir::arith::ExtFOp::create(b, loc, f64, scale).getResult();
    Value inverseScale = asTensor(mlir::arith::TruncFOp::create(
        b, loc, f32,
        mlir::arith::DivFOp::create(
            b, loc,
            mlir::arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0)),
            wide)));
    SmallVector<float> inverseWeightScales;
    for (double weightScale : cq->scales)
      inverseWeightScales.push_back(static_cast<float>(1.0 / weightScale));
    Value p = tosa::MulOp::create(b, loc, scalesType, inverseScale,
                                  channelValues(inverseWeightScales),
                                  noShift(b, loc));
    Value sum = accFloat;
    if (bias) {
      auto biasType = RankedTensorType::get(
          {1, 1,
           std::max<int64_t>(biasValues.size(), scalesType.getDimSize(2))},
          f32);
      Value scaledBias = tosa::MulOp::create(
          b, loc, biasType, channelValues(biasValues), p, noShift(b, loc));
      sum = tosa::AddOp::create(b, loc, resultType, accFloat, scaledBias);
    }
    result = tosa::MulOp::create(
        b, loc, resultType, sum,
        tosa::ReciprocalOp::create(b, loc, scalesType, p), noShift(b, loc));
  } else {
    // qnnpack: float(acc) * (float(s) * ws) + bias.
    if (!scale.getType().isF32())
      scale = mlir::arith::TruncFOp::create(b, loc, f32, scale);
    SmallVector<float> weightScales(cq->scales.begin(), cq->scales.end());
    Value scales =
        tosa::MulOp::create(b, loc, scalesType, asTensor(scale),
                            channelValues(weightScales), noShift(b, loc));
    result = tosa::MulOp::create(b, loc, resultType, accFloat, scales,
                                 noShift(b, loc));
    if (bias)
      result = tosa::AddOp::create(b, loc, resultType, result,
                                   channelValues(biasValues));
  }
  for (Operation *op : tail) {
    auto clampOp = llvm::cast<tosa::ClampOp>(op);
    result =
        tosa::ClampOp::create(b, loc, resultType, result,
                              clampOp.getMinValAttr(), clampOp.getMaxValAttr());
  }
  return result;
}

Lowered<SmallVector<std::pair<Value, Value>>>
Lowering::lowerRecurrentBody(CompositeOp composite) {
  SmallVector<tosa::MatMulOp> matmuls;
  composite.getBody().walk(
      [&](tosa::MatMulOp matmul) { matmuls.push_back(matmul); });
  SmallVector<std::pair<Value, Value>> replacements;
  for (tosa::MatMulOp matmul : matmuls) {
    auto input = matmul.getA().getDefiningOp<DequantizeOp>();
    if (!input)
      continue;
    PatternBody body(matmul);
    Operation *last = matmul;
    if (matmul->hasOneUse() && llvm::isa<tosa::AddOp>(*matmul->user_begin())) {
      last = *matmul->user_begin();
      body.ops.push_back(last);
    }
    OpBuilder b(last, listener);
    Lowered<Value> result = lowerDynamicMatmul(b, body, input);
    if (!result)
      return result.takeError();
    replacements.emplace_back(last->getResult(0), *result);
  }
  return replacements;
}

} // namespace qfx::lowering
