//===- Normalization.cpp - Batch norm and normalizations ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Batch norms on the integers and the normalizations (LayerNorm, GroupNorm,
// InstanceNorm) as PyTorch's quantized kernels compute them.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

namespace qfx::lowering {

/// A batch norm composite's parameters (its attributes), each per channel.
struct BatchNormParams {
  int64_t axis;
  float eps;
  std::vector<float> mean, var, weight, bias;
};

Lowered<BatchNormParams> getBatchNormParams(CompositeOp batchNorm) {
  std::string name = batchNorm.getName().str();
  auto type =
      llvm::dyn_cast<RankedTensorType>(batchNorm.getInputs()[0].getType());
  if (!type || !type.hasStaticShape())
    return unsupported(name + "'s operand needs a static shape");
  mlir::DictionaryAttr attrs = batchNorm.getCompositeAttributesAttr();
  auto axis = attrs ? attrs.getAs<mlir::IntegerAttr>("axis") : nullptr;
  auto eps = attrs ? attrs.getAs<mlir::FloatAttr>("eps") : nullptr;
  if (!axis || axis.getInt() < 0 || axis.getInt() >= type.getRank() || !eps)
    return unsupported(name + " needs composite_attributes 'axis' (an axis "
                              "of its operand) and 'eps' (a float)");
  BatchNormParams params{axis.getInt(),
                         static_cast<float>(eps.getValueAsDouble()),
                         {},
                         {},
                         {},
                         {}};
  int64_t channels = type.getDimSize(params.axis);
  for (auto [key, values, fill] :
       {std::tuple{"running_mean", &params.mean, std::optional<float>()},
        std::tuple{"running_var", &params.var, std::optional<float>()},
        std::tuple{"weight", &params.weight, std::optional<float>(1.0f)},
        std::tuple{"bias", &params.bias, std::optional<float>(0.0f)}}) {
    auto dense = attrs.getAs<mlir::DenseFPElementsAttr>(key);
    if (!dense && fill) {
      values->assign(channels, *fill);
      continue;
    }
    if (!dense || !dense.getElementType().isF32() ||
        dense.getNumElements() != channels)
      return unsupported(name + "'s '" + key + "' must hold " +
                         llvm::Twine(channels) + " float32 values");
    values->assign(dense.getValues<float>().begin(),
                   dense.getValues<float>().end());
  }
  return params;
}

/// Batch norm on its own (qfx-fuse folds it after a conv), with a fused ReLU
/// if the pattern has one. PyTorch's quantized::batch_norm computes, per
/// element of channel c, rint(fma(alpha_c, q - zp_in, beta_c)) + zp_out
/// with alpha_c and beta_c from its compute_fused_params. Each channel's 256
/// outputs are computed here and looked up (lookUpPerChannel: integer
/// arithmetic when every channel's table is a line, as a batch norm's
/// usually are, else tosa.gather), which is exact by construction.
/// PyTorch's quantized layer, instance and group norm as its CPU build
/// computes them (quantized_normalize_kernel; measured bit for bit on 5.4 M
/// layer norm outputs), on the stored integers q of each group of N
/// elements (a layer norm's normalized axes; a group of channels at every
/// position; PyTorch's FX leaves F.group_norm float, so the built-in
/// tables name `float_kernel` for it):
///   m = float(sum q) / N, m2 = float(sum q^2) / N (int32 sums, exact),
///   var = max(fma(-m, m, m2), 0),
///   s = float(x_scale / sqrt(double(var * x_scale * x_scale) + eps)),
///   layer norm: y = fma(((q - zp) - (m - zp)) * s, gamma, beta),
///   group norm: y = fma((q - zp) - (m - zp), s * gamma_c, beta_c),
/// quantized as rint(y * (1 / y_scale)) + y_zp. TOSA has no fma, float
/// division or square root: a quotient is the product with 1/N in double,
/// rounded to float (exact: for N < 2^16 an integer's quotient is never
/// within the double product's error of a float rounding boundary); an fma
/// is computed in double and rounded to float, and s as x_scale * rsqrt in
/// double: each can differ from PyTorch by double rounding, about once in
/// 2^29 values.
Lowered<Value> Lowering::lowerNormalization(OpBuilder &b, PatternBody &body,
                                            const ActQuant &out) {
  auto composite = llvm::cast<CompositeOp>(body.root);
  Location loc = composite.getLoc();
  mlir::DictionaryAttr attrs = composite.getCompositeAttributesAttr();
  auto eps = attrs ? attrs.getAs<mlir::FloatAttr>("eps") : nullptr;
  if (!eps)
    return unsupported("the normalization has no `eps` attribute");
  Lowered<Act> input = getAct(composite.getInputs()[0]);
  if (!input)
    return input.takeError();
  auto inputType = llvm::cast<RankedTensorType>(input->value.getType());
  SmallVector<int64_t> shape(inputType.getShape()), axes;
  // Group and instance norm: the channel axis split into [groups, channels
  // per group]; a group is everything but the batch (axis 0) and the group.
  bool perChannel = !composite.isLayerNorm();
  int64_t channelAxis = 0, groups = 1;
  if (perChannel) {
    // PyTorch runs a channels-last 4-D input (a quantized conv's output,
    // held NHWC here) through another kernel (quantized_groupnorm_nhwc),
    // which is not reproduced: the float body, as the group norm's.
    auto axis = attrs ? attrs.getAs<mlir::IntegerAttr>("axis") : nullptr;
    if (axis && shape.size() == 4 && axis.getInt() == 3)
      return lowerInFloat(b, body, out);
    auto groupsAttr =
        attrs ? attrs.getAs<mlir::IntegerAttr>("groups") : nullptr;
    if (!axis || !groupsAttr)
      return unsupported("the normalization has no `axis` or `groups`");
    channelAxis = axis.getInt(), groups = groupsAttr.getInt();
    if (channelAxis <= 0 || channelAxis >= static_cast<int64_t>(shape.size()) ||
        groups <= 0 || shape[channelAxis] % groups)
      return unsupported("the normalization's `axis` or `groups` does not "
                         "fit its operand");
    shape[channelAxis] /= groups;
    shape.insert(shape.begin() + channelAxis, groups);
    for (int64_t d = 1, e = shape.size(); d < e; ++d)
      if (d != channelAxis)
        axes.push_back(d);
  } else {
    auto axesAttr =
        attrs ? attrs.getAs<mlir::DenseI64ArrayAttr>("axes") : nullptr;
    if (!axesAttr)
      return unsupported("the layer norm has no `axes` attribute");
    axes.assign(axesAttr.asArrayRef().begin(), axesAttr.asArrayRef().end());
  }
  int64_t rank = shape.size(), count = 1;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return unsupported("a layer norm axis is out of range");
    count *= shape[axis];
  }
  // 255^2 * N must fit int32 (and N < 2^16, for the quotients).
  if (count > 33025)
    return unsupported("the normalization's groups have more than 33025 "
                       "elements (their sums of squares overflow int32)");
  // weight and bias: f32, a layer norm's the operand's shape with 1 off the
  // axes, a group norm's one per channel.
  SmallVector<int64_t> affineShape(rank, 1);
  if (perChannel) {
    affineShape[channelAxis] = groups;
    affineShape[channelAxis + 1] = shape[channelAxis + 1];
  } else {
    for (int64_t axis : axes)
      affineShape[axis] = shape[axis];
  }
  SmallVector<mlir::DenseFPElementsAttr, 2> affine;
  for (llvm::StringRef name : {"weight", "bias"}) {
    mlir::Attribute attr = attrs.get(name);
    auto values = llvm::dyn_cast_or_null<mlir::DenseFPElementsAttr>(attr);
    int64_t expected = perChannel
                           ? groups * shape[channelAxis + 1]
                           : mlir::ShapedType::getNumElements(affineShape);
    if (attr && (!values || !values.getElementType().isF32() ||
                 values.getNumElements() != expected ||
                 (!perChannel && values.getType().getShape() !=
                                     ArrayRef<int64_t>(affineShape))))
      return unsupported("the normalization's `" + name +
                         "` is not f32 of one value per normalized element "
                         "(layer norm, shaped as the operand with 1 off the "
                         "axes) or per channel");
    affine.push_back(
        values ? llvm::cast<mlir::DenseFPElementsAttr>(values.reshape(
                     RankedTensorType::get(affineShape, b.getF32Type())))
               : nullptr);
  }

  Type i32 = b.getIntegerType(32), f32 = b.getF32Type(), f64 = b.getF64Type();
  auto splat = [&](Type element, double value) -> Value {
    auto splatType =
        RankedTensorType::get(SmallVector<int64_t>(rank, 1), element);
    mlir::DenseElementsAttr attr =
        element == i32 ? mlir::DenseElementsAttr::get(
                             splatType, static_cast<int32_t>(value))
        : element == f32
            ? mlir::DenseElementsAttr::get(splatType, static_cast<float>(value))
            : mlir::DenseElementsAttr::get(splatType, value);
    return tosa::ConstOp::create(b, loc, splatType, attr);
  };
  auto castTo = [&](Value v, Type element) -> Value {
    return tosa::CastOp::create(b, loc, withElement(v.getType(), element), v);
  };
  // Elementwise ops broadcast their operands (of one rank).
  auto broadcast = [](Value x, Value y) {
    auto xType = llvm::cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> to(xType.getShape());
    for (auto [d, size] :
         llvm::enumerate(llvm::cast<RankedTensorType>(y.getType()).getShape()))
      to[d] = std::max(to[d], size);
    return RankedTensorType::get(to, xType.getElementType());
  };
  auto add = [&](Value x, Value y) -> Value {
    return tosa::AddOp::create(b, loc, broadcast(x, y), x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return tosa::SubOp::create(b, loc, broadcast(x, y), x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return tosa::MulOp::create(b, loc, broadcast(x, y), x, y, noShift(b, loc));
  };
  auto reshape = [&](Value v, ArrayRef<int64_t> to) {
    return reshapeTo(b, loc, v, to);
  };
  // A float32 quotient by N: in double by 1/N, rounded.
  auto average = [&](Value sum) {
    return castTo(mul(castTo(castTo(sum, f32), f64), splat(f64, 1.0 / count)),
                  f32);
  };

  // The stored integers (u8 storage is the int8 domain plus 128), summed.
  Value int8 = reshape(input->value, shape);
  Value q = castTo(int8, i32);
  int64_t offset = input->quant.isUnsigned ? 128 : 0;
  if (offset)
    q = add(q, splat(i32, offset));
  Value sum = q, squares = mul(q, q);
  SmallVector<int64_t> groupShape(shape);
  for (int64_t axis : axes) {
    groupShape[axis] = 1;
    auto groupType = RankedTensorType::get(groupShape, i32);
    sum = tosa::ReduceSumOp::create(b, loc, groupType, sum,
                                    b.getI32IntegerAttr(axis));
    squares = tosa::ReduceSumOp::create(b, loc, groupType, squares,
                                        b.getI32IntegerAttr(axis));
  }
  Value mean = average(sum), meanOfSquares = average(squares);
  Value meanDouble = castTo(mean, f64);
  Value var =
      castTo(sub(castTo(meanOfSquares, f64), mul(meanDouble, meanDouble)), f32);
  var = tosa::MaximumOp::create(b, loc, var.getType(), var, splat(f32, 0.0));
  auto scale = static_cast<float>(input->quant.scale);
  Value scaled = mul(mul(var, splat(f32, scale)), splat(f32, scale));
  Value root = tosa::RsqrtOp::create(
      b, loc, withElement(scaled.getType(), f64),
      add(castTo(scaled, f64), splat(f64, eps.getValueAsDouble())));
  Value factor = castTo(mul(root, splat(f64, scale)), f32);

  // Per element: (q - zp) - (m - zp), then s and the affine fma.
  Value centered = sub(centeredAsFloat(b, loc, Act{int8, input->quant}),
                       sub(mean, splat(f32, input->quant.zeroPoint + offset)));
  auto constant = [&](mlir::DenseFPElementsAttr values) -> Value {
    return tosa::ConstOp::create(b, loc, values.getType(), values);
  };
  auto [gamma, beta] = std::pair{affine[0], affine[1]};
  // Layer norm: (u * s) * gamma + beta; group norm: u * (s * gamma_c) +
  // beta_c; each a float fma.
  Value y = centered, factors = factor;
  if (!perChannel)
    y = mul(y, factor);
  if (gamma)
    factors = perChannel ? mul(factor, constant(gamma)) : constant(gamma);
  if (perChannel || gamma) {
    Value product = mul(castTo(y, f64), castTo(factors, f64));
    y = castTo(beta ? add(product, castTo(constant(beta), f64)) : product, f32);
  } else if (beta) {
    y = add(y, constant(beta));
  }
  Value result = mul(y, splat(f32, 1.0f / static_cast<float>(out.scale)));
  return reshape(
      roundToInt8(b, loc, result, out.zeroPoint, {kInt8Min, kInt8Max}),
      inputType.getShape());
}

Lowered<Value> Lowering::lowerBatchNorm(OpBuilder &b, PatternBody &body,
                                        const ActQuant &out) {
  if (llvm::Error e = checkChain(body.ops))
    return std::move(e);
  auto batchNorm = llvm::cast<CompositeOp>(body.ops.front());
  Location loc = body.root->getLoc();
  Lowered<BatchNormParams> params = getBatchNormParams(batchNorm);
  if (!params)
    return params.takeError();
  Lowered<Act> input = getAct(body.external(batchNorm.getInputs().front()));
  if (!input)
    return input.takeError();
  Lowered<std::pair<int64_t, int64_t>> range =
      getClampRange(ArrayRef(body.ops).drop_front(), out);
  if (!range)
    return range.takeError();

  int64_t channels = params->mean.size();
  double ratio = input->quant.scale / out.scale;
  int64_t outShift = out.isUnsigned ? 128 : 0;
  QuantRange storage{kInt8Min + outShift, kInt8Max + outShift};
  SmallVector<int8_t> table;
  table.reserve(channels * 256);
  for (int64_t c = 0; c < channels; ++c) {
    // compute_fused_params: float arithmetic, the scales in double.
    float invSigma =
        static_cast<float>(1.0 / std::sqrt(params->var[c] + params->eps));
    float weight = params->weight[c];
    float alpha = static_cast<float>(double(invSigma * weight) * ratio);
    float beta = static_cast<float>(
        double(params->bias[c] - params->mean[c] * invSigma * weight) /
        out.scale);
    for (int64_t q = kInt8Min; q <= kInt8Max; ++q) {
      float y = std::fma(alpha, float(q - input->quant.zeroPoint), beta);
      int64_t level =
          quantizeValue(y, 1.0, out.zeroPoint + outShift, storage) - outShift;
      table.push_back(
          static_cast<int8_t>(std::clamp(level, range->first, range->second)));
    }
  }

  return lookUpPerChannel(b, loc, input->value, params->axis, table);
}

} // namespace qfx::lowering
