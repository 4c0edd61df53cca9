//===- Arithmetic.cpp - Add, mul, pools, mean, concat ---------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Binary ops, pooling, means and concatenation on the integers, and the
// ops PyTorch computes in float between int8 values.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

namespace qfx::lowering {

/// An int32 splat of the rank of `like`, to broadcast against it.
Value splatLike(OpBuilder &b, Location loc, Type like, int64_t value) {
  SmallVector<int64_t> ones(llvm::cast<RankedTensorType>(like).getRank(), 1);
  auto type = RankedTensorType::get(ones, b.getIntegerType(32));
  return tosa::ConstOp::create(
      b, loc, type,
      mlir::DenseElementsAttr::get(type, static_cast<int32_t>(value)));
}

Lowered<Value> Lowering::lowerAddOrMul(OpBuilder &b, PatternBody &body,
                                       const ActQuant &out) {
  Operation *main = body.ops.front();
  Location loc = body.root->getLoc();
  if (llvm::Error e = checkChain(body.ops))
    return std::move(e);
  // An activation and a scalar (a Python number, a splat constant).
  for (unsigned i : {0u, 1u})
    if (std::optional<float> scalar =
            getSplat(body.external(main->getOperand(i)))) {
      Lowered<Act> input = getAct(body.external(main->getOperand(1 - i)));
      if (!input)
        return input.takeError();
      return lowerScalarAddOrMul(b, body, *input, *scalar);
    }
  Lowered<Act> lhs = getAct(body.external(main->getOperand(0)));
  if (!lhs)
    return lhs.takeError();
  Lowered<Act> rhs = getAct(body.external(main->getOperand(1)));
  if (!rhs)
    return rhs.takeError();
  Lowered<std::pair<int64_t, int64_t>> range =
      getClampRange(ArrayRef(body.ops).drop_front(), out);
  if (!range)
    return range.takeError();

  Type i8 = b.getIntegerType(8), i32 = b.getIntegerType(32);
  auto resultType = withElement(main->getResult(0).getType(), i32);
  bool isMul = llvm::isa<tosa::MulOp>(main);
  // PyTorch's qnnpack engine adds quint8 tensors of one shape with
  // QNNPACK's kernel; every other add and mul there runs the x86 kernels.
  bool qnnpackAdd =
      requantization == Requantization::Qnnpack && !isMul &&
      lhs->quant.isUnsigned && rhs->quant.isUnsigned && out.isUnsigned &&
      lhs->value.getType() == rhs->value.getType() &&
      llvm::cast<RankedTensorType>(lhs->value.getType()).getShape() ==
          llvm::cast<RankedTensorType>(resultType).getShape();
  if (qnnpackAdd)
    return addAsQnnpack(b, loc, *lhs, *rhs, out, *range);
  if (requantization == Requantization::OneDnn ||
      requantization == Requantization::Qnnpack) {
    // PyTorch's x86 kernels (qadd_kernel, qmul_kernel), in float32: add
    // dequantizes both as its vector code does, adds, and quantizes with
    // 1 / s_out; mul multiplies the centered integers and requantizes with
    // s_a * s_b * (1 / s_out). The zero point is added after rounding.
    auto floatType = withElement(resultType, b.getF32Type());
    auto inverse = 1.0f / static_cast<float>(out.scale);
    Value sum;
    float multiplier = inverse;
    if (isMul) {
      sum =
          tosa::MulOp::create(b, loc, floatType, centeredAsFloat(b, loc, *lhs),
                              centeredAsFloat(b, loc, *rhs), noShift(b, loc));
      multiplier = static_cast<float>(lhs->quant.scale) *
                   static_cast<float>(rhs->quant.scale) * inverse;
    } else {
      // Operands PyTorch holds in different memory formats take
      // TensorIterator's scalar loop, which dequantizes as (q - z) * s.
      auto kernel = main->getAttrOfType<mlir::StringAttr>(
          QFXDialect::getTorchKernelAttrName());
      auto dequantize = kernel && kernel.getValue() == "add_scalar_loop"
                            ? dequantizeAsTensor
                            : dequantizeAsFma;
      sum = tosa::AddOp::create(b, loc, floatType, dequantize(b, loc, *lhs),
                                dequantize(b, loc, *rhs));
    }
    Value scaled =
        tosa::MulOp::create(b, loc, floatType, sum,
                            channelConstant(b, loc, floatType.getRank(),
                                            ArrayRef<float>{multiplier}),
                            noShift(b, loc));
    return roundToInt8(b, loc, scaled, out.zeroPoint, *range);
  }
  // add: both onto twice the larger scale with 20 fractional bits (TFLite's
  // scheme for 8-bit inputs); mul: the zero points removed.
  constexpr double kFraction = 1 << 20;
  double common = 2 * std::max(lhs->quant.scale, rhs->quant.scale);
  auto widen = [&](const Act &a) {
    double scale = isMul ? 1.0 : a.quant.scale / common * kFraction;
    return rescale(b, loc, a.value, {scale}, a.quant.zeroPoint, 0, i32);
  };
  Lowered<Value> l = widen(*lhs);
  if (!l)
    return l.takeError();
  Lowered<Value> r = widen(*rhs);
  if (!r)
    return r.takeError();
  Value combined;
  double scale;
  if (isMul) {
    combined = tosa::MulOp::create(b, loc, resultType, *l, *r, noShift(b, loc));
    scale = lhs->quant.scale * rhs->quant.scale / out.scale;
  } else {
    combined = tosa::AddOp::create(b, loc, resultType, *l, *r);
    scale = common / (kFraction * out.scale);
  }
  Lowered<Value> result =
      rescale(b, loc, combined, {scale}, 0, out.zeroPoint, i8);
  if (!result)
    return result.takeError();
  return clamp(b, loc, *result, *range);
}

/// QNNPACK's q8 add (pytorch_qnnp_compute_add_quantization_params and its
/// scalar kernel): with a_s = s_a / s_out and b_s = s_b / s_out in float32
/// and e the exponent of the larger, the multipliers m = lrint(x_s *
/// 2^(21 - e)) (below 2^22), acc = m_a * (a - z_a) + m_b * (b - z_b) in
/// int32, shifted right by 21 - e rounding half away from zero, plus the
/// output zero point, clamped to `range` (a fused ReLU's).
Lowered<Value> Lowering::addAsQnnpack(OpBuilder &b, Location loc,
                                      const Act &lhs, const Act &rhs,
                                      const ActQuant &out,
                                      std::pair<int64_t, int64_t> range) {
  auto outScale = static_cast<float>(out.scale);
  float aScale = static_cast<float>(lhs.quant.scale) / outScale;
  float bScale = static_cast<float>(rhs.quant.scale) / outScale;
  for (float scale : {aScale, bScale})
    if (!(scale >= 0x1.0p-14f && scale < 0x1.0p+8f))
      return unsupported("qnnpack's add takes input-to-output scale ratios in "
                         "[2^-14, 2^8)");
  int exponent = 0;
  std::frexp(std::max(aScale, bScale), &exponent);
  // frexp's exponent is one more than the IEEE one.
  int64_t shift = 21 - (exponent - 1);
  auto multiplier = [&](float scale) {
    return static_cast<int32_t>(std::lrint(std::ldexp(scale, shift)));
  };
  auto type = llvm::cast<RankedTensorType>(lhs.value.getType())
                  .clone(b.getIntegerType(32));
  auto splat = [&](int64_t v) { return splatLike(b, loc, type, v); };
  auto centered = [&](const Act &act, int32_t m) -> Value {
    Value wide = tosa::SubOp::create(
        b, loc, type, tosa::CastOp::create(b, loc, type, act.value),
        splat(act.quant.zeroPoint));
    return tosa::MulOp::create(b, loc, type, wide, splat(m), noShift(b, loc));
  };
  Value acc =
      tosa::AddOp::create(b, loc, type, centered(lhs, multiplier(aScale)),
                          centered(rhs, multiplier(bScale)));
  auto boolType = type.clone(b.getI1Type());
  int64_t mask = (int64_t{1} << shift) - 1;
  Value floor = tosa::ArithmeticRightShiftOp::create(
      b, loc, type, acc, splat(shift), /*round=*/false);
  Value negative = tosa::CastOp::create(
      b, loc, type, tosa::GreaterOp::create(b, loc, boolType, splat(0), acc));
  Value remainder = tosa::SubOp::create(
      b, loc, type, tosa::BitwiseAndOp::create(b, loc, type, acc, splat(mask)),
      negative);
  Value up = tosa::CastOp::create(
      b, loc, type,
      tosa::GreaterOp::create(b, loc, boolType, remainder, splat(mask >> 1)));
  Value rounded = tosa::AddOp::create(b, loc, type, floor, up);
  Value shifted =
      tosa::AddOp::create(b, loc, type, rounded, splat(out.zeroPoint));
  Value clamped = tosa::MinimumOp::create(
      b, loc, type,
      tosa::MaximumOp::create(b, loc, type, shifted, splat(range.first)),
      splat(range.second));
  return tosa::CastOp::create(b, loc, type.clone(b.getIntegerType(8)), clamped)
      .getResult();
}

/// add / mul of an activation and a scalar c, with a fused ReLU if the
/// pattern has one, as PyTorch's quantized::add.Scalar and mul.Scalar
/// compute them (qadd.cpp, qmul.cpp): the output's qparams are the
/// kernel's own, not the observer's (recorded in resultQuant), and the
/// stored integers mostly stay as they are:
/// - add: c_q = round(c / s); z' = z - c_q when that is a storage value
///   (integers unchanged), else z' = the nearer storage bound, s' scaled to
///   the range and the integers requantized as qadd_scalar_kernel does,
///   z' + rint(float(q - z + c_q) * (float(s) * (1 / float(s'))));
/// - mul: c > 0: s' = c * s; c = 0: every integer 0, s' = 1, z' = 0;
///   c < 0: s' = |c| * s, z' = q_max + q_min - z, q' = q_max + q_min - q;
/// - a fused ReLU: max(q', z').
/// A 256-entry table unless the integers stay as they are. c is the
/// exported float32 value of the Python number (PyTorch's kernel takes it
/// in double): they differ only where c / s is within float rounding of a
/// half.
Lowered<Value> Lowering::lowerScalarAddOrMul(OpBuilder &b, PatternBody &body,
                                             const Act &input, float scalar) {
  Operation *main = body.ops.front();
  ArrayRef<Operation *> tail = ArrayRef(body.ops).drop_front();
  bool relu = tail.size() == 1 && isReLUClamp(tail.front());
  if (!tail.empty() && !relu)
    return unsupported("only a ReLU may follow an add or mul of a scalar");
  // The storage domain of the input (and output): [qMin, qMax].
  int64_t offset = input.quant.isUnsigned ? 128 : 0;
  int64_t qMin = kInt8Min + offset, qMax = kInt8Max + offset;
  int64_t z = input.quant.zeroPoint + offset;
  double s = input.quant.scale, c = scalar;
  double outScale = s;
  int64_t outZp = z;
  // The output's storage value for the input storage value q.
  std::function<int64_t(int64_t)> apply = [](int64_t q) { return q; };
  if (llvm::isa<tosa::AddOp>(main)) {
    double quotient = std::nearbyint(c / s);
    if (!(std::abs(quotient) < 2147483648.0))
      return unsupported("the scalar is too large for the input's scale");
    int64_t cq = static_cast<int64_t>(quotient);
    outZp = z - cq;
    if (outZp < qMin || outZp > qMax) {
      outScale = outZp < qMin ? (double(qMax) - outZp) / (qMax - qMin) * s
                              : (double(outZp) - qMin) / (qMax - qMin) * s;
      outZp = outZp < qMin ? qMin : qMax;
      float multiplier =
          static_cast<float>(s) * (1.0f / static_cast<float>(outScale));
      apply = [=](int64_t q) {
        float x = static_cast<float>(q - z + cq) * multiplier;
        return std::clamp<int64_t>(
            outZp + static_cast<int64_t>(std::nearbyint(double(x))), qMin,
            qMax);
      };
    }
  } else if (c > 0) {
    outScale = c * s;
  } else if (c == 0) {
    outScale = 1.0;
    outZp = 0;
    apply = [](int64_t) { return int64_t{0}; };
  } else {
    outScale = -c * s;
    outZp = qMax - (z - qMin);
    apply = [=](int64_t q) { return qMax + qMin - q; };
  }
  if (relu) {
    auto unclamped = apply;
    apply = [=](int64_t q) { return std::max(unclamped(q), outZp); };
  }
  resultQuant = ActQuant{outScale, outZp - offset, input.quant.isUnsigned};

  SmallVector<int8_t> table;
  bool identity = true;
  for (int64_t q = kInt8Min; q <= kInt8Max; ++q) {
    int64_t entry = apply(q + offset) - offset;
    identity = identity && entry == q;
    table.push_back(static_cast<int8_t>(entry));
  }
  if (identity)
    return input.value;
  Location loc = body.root->getLoc();
  return tosa::TableOp::create(b, loc, input.value.getType(), input.value,
                               constant1D(b, loc, ArrayRef<int8_t>(table)))
      .getResult();
}

Lowered<Value> Lowering::lowerPool(OpBuilder &b, PatternBody &body,
                                   const ActQuant &out) {
  Operation *main = body.ops.front();
  Location loc = body.root->getLoc();
  if (auto composite = llvm::dyn_cast<CompositeOp>(main))
    return composite.isFamily(CompositeFamily::AdaptiveAvgPool2d)
               ? lowerUnevenPool(b, body, out)
               : lowerPool3d(b, body, out);
  if (body.ops.size() != 1)
    return unsupported("a fused pool is not supported");
  Lowered<Act> input = getAct(body.external(main->getOperand(0)));
  if (!input)
    return input.takeError();
  auto type = withElement(main->getResult(0).getType(), b.getIntegerType(8));
  if (auto pool = llvm::dyn_cast<tosa::MaxPool2dOp>(main)) {
    Value pooled =
        tosa::MaxPool2dOp::create(b, loc, type, input->value, pool.getKernel(),
                                  pool.getStride(), pool.getPad());
    return requantize(b, loc, Act{pooled, input->quant}, out);
  }
  return average(b, loc, llvm::cast<tosa::AvgPool2dOp>(main), *input, out);
}

/// The average pool `avg` of `input`'s integers: qnnpack's kernel where the
/// qnnpack engine takes the pool (quint8), else PyTorch's kernel for the
/// operand's layout.
Lowered<Value> Lowering::average(OpBuilder &b, Location loc,
                                 tosa::AvgPool2dOp avg, const Act &input,
                                 const ActQuant &out) {
  auto module = avg->getParentOfType<mlir::ModuleOp>();
  if (avg->hasAttr(QFXDialect::getQnnpackPoolAttrName()) &&
      input.quant.isUnsigned && module &&
      QFXDialect::getEngineName(module) == "qnnpack")
    return averageAsQnnpackKernel(b, loc, avg, input, out);
  if (auto kernel = avg->getAttrOfType<mlir::StringAttr>(
          QFXDialect::getTorchKernelAttrName()))
    return averageAsContiguousKernel(
        b, loc, avg, input,
        kernel.getValue() == "adaptive_avg_pool2d_contiguous", out);
  return averageAsChannelsLastKernel(b, loc, avg, input, out);
}

/// The integers of a pool composite's operand, whose qparams it keeps:
/// `out` must be them.
Lowered<Act> Lowering::getPoolInput(PatternBody &body, CompositeOp pool,
                                    const ActQuant &out) {
  Lowered<Act> input = getAct(body.external(pool.getInputs().front()));
  if (input && !input->quant.sameAs(out))
    return unsupported(pool.getName().str() +
                       " keeps its input's qparams; the output has others");
  return input;
}

/// An adaptive pool of uneven windows (`qfx.composite
/// "torch.nn.AdaptiveAvgPool2d"`): its body on the integers, each window's
/// slice and the concats as they are, each window's tosa.avg_pool2d as
/// PyTorch's kernel averages it (`average`). The output keeps the input's
/// qparams.
Lowered<Value> Lowering::lowerUnevenPool(OpBuilder &b, PatternBody &body,
                                         const ActQuant &out) {
  auto pool = llvm::cast<CompositeOp>(body.ops.front());
  if (body.ops.size() != 1 || pool.getInputs().size() != 1)
    return unsupported("a fused adaptive pool is not supported");
  Lowered<Act> input = getPoolInput(body, pool, out);
  if (!input)
    return input.takeError();
  Block &block = pool.getBody().front();
  mlir::IRMapping integers;
  integers.map(block.getArgument(0), input->value);
  Type i8 = b.getIntegerType(8);
  for (Operation &op : block.without_terminator()) {
    if (auto avg = llvm::dyn_cast<tosa::AvgPool2dOp>(op)) {
      Lowered<Value> averaged =
          average(b, op.getLoc(), avg,
                  Act{integers.lookup(avg.getInput()), input->quant}, out);
      if (!averaged)
        return averaged.takeError();
      integers.map(avg.getResult(), *averaged);
      continue;
    }
    bool constant = op.hasTrait<mlir::OpTrait::ConstantLike>();
    if (!constant && !llvm::isa<tosa::SliceOp, tosa::ConcatOp>(op))
      return unsupported("the body of " + pool.getName().str() +
                         " is not slices, average pools and concats");
    Operation *copy = b.clone(op, integers);
    if (!constant)
      copy->getResult(0).setType(withElement(op.getResult(0).getType(), i8));
  }
  return integers.lookup(
      llvm::cast<YieldOp>(block.getTerminator()).getValues().front());
}

/// A constant to broadcast against a tensor like `like`: a splat (of its
/// rank) where `values` are all equal, else one per position of an NHWC
/// `like` (H * W of them).
template <typename T>
Value perPosition(OpBuilder &b, Location loc, Type like, Type element,
                  ArrayRef<T> values) {
  auto shape = llvm::cast<RankedTensorType>(like).getShape();
  auto type = llvm::all_equal(values)
                  ? RankedTensorType::get(SmallVector<int64_t>(shape.size(), 1),
                                          element)
                  : RankedTensorType::get({1, shape[1], shape[2], 1}, element);
  return tosa::ConstOp::create(
      b, loc, type,
      mlir::DenseElementsAttr::get(type,
                                   values.take_front(type.getNumElements())));
}

/// `sum / count` rounded half to even, as PyTorch's integer averages do,
/// exactly, for int32 sums with sum >= -bound * count (`bound` even, so the
/// offset below keeps the parity). With s = sum + bound * count >= 0,
/// num = 2s + count and q = num / (2 count) is s / count rounded half up; on
/// a tie (q * 2 count == num) an odd q is one too high.
Value roundedQuotient(OpBuilder &b, Location loc, Value sum, int64_t count,
                      int64_t bound) {
  Type type = sum.getType();
  auto splat = [&](int64_t v) { return splatLike(b, loc, type, v); };
  Value twice = tosa::AddOp::create(b, loc, type, sum, sum);
  Value num =
      tosa::AddOp::create(b, loc, type, twice, splat((2 * bound + 1) * count));
  Value divisor = splat(2 * count);
  Value q = tosa::IntDivOp::create(b, loc, type, num, divisor);
  Value back = tosa::MulOp::create(b, loc, type, q, divisor, noShift(b, loc));
  Value tie = tosa::EqualOp::create(b, loc, withElement(type, b.getI1Type()),
                                    back, num);
  Value odd = tosa::BitwiseAndOp::create(b, loc, type, q, splat(1));
  Value down = tosa::SelectOp::create(b, loc, type, tie, odd, splat(0));
  return tosa::SubOp::create(
      b, loc, type, tosa::SubOp::create(b, loc, type, q, down), splat(bound));
}

/// The int32 `sum` in float32 times `multipliers` (one, or one per position
/// of an NHWC `sum`), each product rounded once.
static Value timesFloat32(OpBuilder &b, Location loc, Value sum,
                          ArrayRef<float> multipliers) {
  Type f32 = b.getF32Type();
  auto floatType = llvm::cast<RankedTensorType>(sum.getType()).clone(f32);
  Value multiplier = perPosition(b, loc, floatType, f32, multipliers);
  Value value = tosa::CastOp::create(b, loc, floatType, sum);
  return tosa::MulOp::create(b, loc, floatType, value, multiplier,
                             noShift(b, loc));
}

/// Whether the heights and widths of `avg`'s input and result are static.
static bool hasStaticWindows(tosa::AvgPool2dOp avg) {
  return llvm::all_of(
      ArrayRef<Value>{avg.getInput(), avg.getResult()}, [](Value value) {
        auto type = llvm::cast<RankedTensorType>(value.getType());
        return !type.isDynamicDim(1) && !type.isDynamicDim(2);
      });
}

/// The elements of each window of `avg` inside its input (TOSA's padding is
/// not counted), in output order.
static SmallVector<int64_t> getWindowCounts(tosa::AvgPool2dOp avg) {
  ArrayRef<int64_t> kernel = avg.getKernel(), stride = avg.getStride(),
                    pad = avg.getPad();
  auto input = llvm::cast<RankedTensorType>(avg.getInput().getType());
  auto result = llvm::cast<RankedTensorType>(avg.getType());
  auto inside = [](int64_t start, int64_t size, int64_t extent) {
    return std::min(start + size, extent) - std::max<int64_t>(start, 0);
  };
  SmallVector<int64_t> counts;
  for (int64_t y = 0; y < result.getDimSize(1); ++y)
    for (int64_t x = 0; x < result.getDimSize(2); ++x)
      counts.push_back(
          inside(y * stride[0] - pad[0], kernel[0], input.getDimSize(1)) *
          inside(x * stride[1] - pad[2], kernel[1], input.getDimSize(2)));
  return counts;
}

/// The int32 window sums of `input - zeroPoint` of `avg`'s windows (a
/// depthwise convolution with ones; padding adds nothing), or with
/// `epilogue` what it makes of them.
static Value getWindowSums(OpBuilder &b, Location loc, tosa::AvgPool2dOp avg,
                           Value input, int64_t zeroPoint, Type resultElement,
                           Attribute epilogue = {}) {
  Type i8 = b.getIntegerType(8);
  ArrayRef<int64_t> kernel = avg.getKernel();
  int64_t channels =
      llvm::cast<RankedTensorType>(input.getType()).getShape().back();
  auto onesType =
      RankedTensorType::get({kernel[0], kernel[1], channels, 1}, i8);
  Value ones = tosa::ConstOp::create(
      b, loc, onesType,
      mlir::DenseElementsAttr::get(onesType, b.getIntegerAttr(i8, 1)));
  return ContractOp::create(b, loc, withElement(avg.getType(), resultElement),
                            ContractionKind::DepthwiseConv2d, input, ones,
                            /*bias=*/nullptr, zeroPoint, 0, avg.getPadAttr(),
                            avg.getStrideAttr(), b.getDenseI64ArrayAttr({1, 1}),
                            epilogue);
}

/// The float32 multiplier of PyTorch's channels-last average kernels (2-D
/// and 3-D, adaptive or not) for a window of `count` elements. They hand
/// their quantizer the scale `1 / multiplier` with `multiplier = in_scale /
/// out_scale / count` (equal scales), which multiplies by its inverse: in
/// float32 that is 1 / count again for every count (checked to 100,000).
/// On a tie of the exact average (an even count) the product's rounding
/// decides, so it is not the integer quotient rounded half to even.
static float channelsLastMultiplier(int64_t count) {
  return 1.0f / static_cast<float>(count);
}

/// PyTorch's quantized average pooling of a channels-last operand (its
/// output keeps the input's qparams): per window the int32 sum of `q - zp`
/// over the elements inside the input, times float32
/// `channelsLastMultiplier(count)`, rounded half to even, plus the zero
/// point, clamped. A user's table that observes the output apart gets it
/// requantized, without padding in the division's epilogue.
Lowered<Value> Lowering::averageAsChannelsLastKernel(OpBuilder &b, Location loc,
                                                     tosa::AvgPool2dOp avg,
                                                     const Act &input,
                                                     const ActQuant &out) {
  Type i8 = b.getIntegerType(8), i32 = b.getIntegerType(32);
  if (!hasStaticWindows(avg))
    return unsupported("an average pool needs a static height and width");
  SmallVector<int64_t> counts = getWindowCounts(avg);
  if (input.quant.scale != out.scale && llvm::all_equal(counts)) {
    auto multipliers =
        getMultipliers({input.quant.scale / (counts.front() * out.scale)});
    if (!multipliers)
      return multipliers.takeError();
    MLIRContext *context = b.getContext();
    return getWindowSums(
        b, loc, avg, input.value, input.quant.zeroPoint, i8,
        RescaleAttr::get(
            context, 0, mlir::DenseI32ArrayAttr::get(context, {}),
            mlir::DenseI32ArrayAttr::get(context, multipliers->first),
            mlir::DenseI32ArrayAttr::get(context, multipliers->second),
            out.zeroPoint, kInt8Min, kInt8Max));
  }
  Value sum =
      getWindowSums(b, loc, avg, input.value, input.quant.zeroPoint, i32);
  auto multipliers =
      llvm::to_vector(llvm::map_range(counts, channelsLastMultiplier));
  Value pooled = roundToInt8(b, loc, timesFloat32(b, loc, sum, multipliers),
                             input.quant.zeroPoint, {kInt8Min, kInt8Max});
  return requantize(b, loc, Act{pooled, input.quant}, out);
}

/// PyTorch's quantized average pools of a contiguous (NCHW) operand, whose
/// output keeps the input's qparams. avg_pool2d: per window the int32 sum
/// of `q - zp` over the elements inside the input, times float32
/// `1 / count`, plus the zero point in float32, rounded half to even and
/// clamped. adaptive_avg_pool2d: the sum of the stored integers times its
/// float32 `(1 / kh) / kw`, rounded half to even.
Lowered<Value> Lowering::averageAsContiguousKernel(OpBuilder &b, Location loc,
                                                   tosa::AvgPool2dOp avg,
                                                   const Act &input,
                                                   bool adaptive,
                                                   const ActQuant &out) {
  Type i32 = b.getIntegerType(32), f32 = b.getF32Type();
  auto resultType = llvm::cast<RankedTensorType>(avg.getType());
  if (!hasStaticWindows(avg))
    return unsupported("an average pool needs a static height and width");
  ArrayRef<int64_t> kernel = avg.getKernel();
  // The storage's offset from the int8 domain (quint8 is stored q - 128).
  int64_t offset = input.quant.isUnsigned ? 128 : 0;
  Value sum = getWindowSums(b, loc, avg, input.value,
                            adaptive ? 0 : input.quant.zeroPoint, i32);
  if (adaptive && offset != 0)
    sum = tosa::AddOp::create(
        b, loc, sum.getType(), sum,
        splatLike(b, loc, sum.getType(), offset * kernel[0] * kernel[1]));
  SmallVector<float> multipliers;
  if (adaptive)
    multipliers.push_back(1.0f / static_cast<float>(kernel[0]) /
                          static_cast<float>(kernel[1]));
  else
    for (int64_t count : getWindowCounts(avg))
      multipliers.push_back(static_cast<float>(1.0 / count));
  auto floatType = resultType.clone(f32);
  Value value = timesFloat32(b, loc, sum, multipliers);
  if (!adaptive)
    value = tosa::AddOp::create(
        b, loc, floatType, value,
        channelConstant(b, loc, 4,
                        ArrayRef<float>{static_cast<float>(
                            input.quant.zeroPoint + offset)}));
  Value pooled = roundToInt8(b, loc, value, -offset, {kInt8Min, kInt8Max});
  return requantize(b, loc, Act{pooled, input.quant}, out);
}

/// qnnpack's average pooling (PyTorch's qnnpack engine, quint8), whose
/// output keeps the input's qparams: per window the int32 sum of `q - zp`
/// over the whole window (padding reads the zero point: it adds nothing, and
/// counts), times float32 `scale / (scale * kh * kw)`, rounded half to even
/// (lrintf), plus the zero point, clamped.
Lowered<Value> Lowering::averageAsQnnpackKernel(OpBuilder &b, Location loc,
                                                tosa::AvgPool2dOp avg,
                                                const Act &input,
                                                const ActQuant &out) {
  if (!hasStaticWindows(avg))
    return unsupported("an average pool needs a static height and width");
  ArrayRef<int64_t> kernel = avg.getKernel();
  auto scale = static_cast<float>(input.quant.scale);
  float multiplier =
      scale / (scale * static_cast<float>(kernel[0] * kernel[1]));
  Value sum = getWindowSums(b, loc, avg, input.value, input.quant.zeroPoint,
                            b.getIntegerType(32));
  Value value = timesFloat32(b, loc, sum, {multiplier});
  Value pooled =
      roundToInt8(b, loc, value, input.quant.zeroPoint, {kInt8Min, kInt8Max});
  return requantize(b, loc, Act{pooled, input.quant}, out);
}

/// The operand axes a torch.mean composite averages over: its
/// `composite_attributes` `axes`, distinct axes of its one statically shaped
/// operand, reducing it to as many elements as its result has, few enough
/// for roundedQuotient's int32 arithmetic.
Lowered<SmallVector<int64_t>> getMeanAxes(CompositeOp mean) {
  mlir::DictionaryAttr attributes = mean.getCompositeAttributesAttr();
  auto axes = attributes ? attributes.getAs<mlir::DenseI64ArrayAttr>("axes")
                         : mlir::DenseI64ArrayAttr();
  if (mean.getInputs().size() != 1 || !axes)
    return unsupported("a torch.mean composite has one operand and "
                       "`axes = array<i64: ...>` in its composite_attributes");
  auto operandType =
      llvm::dyn_cast<RankedTensorType>(mean.getInputs().front().getType());
  auto resultType =
      llvm::dyn_cast<RankedTensorType>(mean.getResult(0).getType());
  if (!operandType || !operandType.hasStaticShape() || !resultType ||
      !resultType.hasStaticShape())
    return unsupported("torch.mean's operand and result need static shapes");
  SmallVector<int64_t> result(axes.asArrayRef());
  llvm::sort(result);
  int64_t count = 1;
  for (size_t i = 0; i < result.size(); ++i) {
    if (result[i] < 0 || result[i] >= operandType.getRank() ||
        (i > 0 && result[i] == result[i - 1]))
      return unsupported("torch.mean's axes must be distinct axes of its "
                         "operand");
    count *= operandType.getDimSize(result[i]);
  }
  if (count == 0 ||
      operandType.getNumElements() != count * resultType.getNumElements())
    return unsupported("torch.mean's result does not have the elements its "
                       "axes leave");
  if (count > (int64_t{1} << 31) / 257)
    return unsupported("torch.mean over more than 2^31 / 257 elements");
  return result;
}

/// Whether PyTorch's qnnpack engine averages `mean` over its operand's
/// `axes` with qnnpack's global average pooling (qnnpack_mean): the module's
/// engine is qnnpack and the axes are H and W (PyTorch's dimensions 2 and
/// 3, `torch_dims`) of a 4-D tensor. (Its input must also be quint8.)
static bool averagesAsQnnpack(CompositeOp mean, ArrayRef<int64_t> axes) {
  auto module = mean->getParentOfType<mlir::ModuleOp>();
  mlir::DictionaryAttr attributes = mean.getCompositeAttributesAttr();
  auto torchDims = attributes
                       ? attributes.getAs<mlir::DenseI64ArrayAttr>("torch_dims")
                       : mlir::DenseI64ArrayAttr();
  if (!module || QFXDialect::getEngineName(module) != "qnnpack" || !torchDims ||
      torchDims.size() != 4 || axes.size() != 2)
    return false;
  SmallVector<int64_t> reduced{torchDims[axes[0]], torchDims[axes[1]]};
  llvm::sort(reduced);
  return reduced == SmallVector<int64_t>{2, 3};
}

/// qnnpack's global average pooling (PyTorch's qnnpack engine, quint8), as
/// its average pooling: the int32 sum of `q - zp` over H and W times float32
/// `scale / (scale * count)`, rounded half to even, plus the zero point,
/// clamped; the output keeps the input's qparams.
Lowered<Value> Lowering::averageAsQnnpackMean(OpBuilder &b, CompositeOp mean,
                                              ArrayRef<int64_t> axes,
                                              PatternBody &body,
                                              const ActQuant &out) {
  Lowered<Act> input = getAct(body.external(mean.getInputs().front()));
  if (!input)
    return input.takeError();
  if (!input->quant.isUnsigned)
    return unsupported("qnnpack averages quint8 tensors only");
  Location loc = body.root->getLoc();
  Type i32 = b.getIntegerType(32);
  auto shape = llvm::to_vector(
      llvm::cast<RankedTensorType>(input->value.getType()).getShape());
  Value sum = tosa::SubOp::create(
      b, loc, RankedTensorType::get(shape, i32),
      tosa::CastOp::create(b, loc, RankedTensorType::get(shape, i32),
                           input->value),
      splatLike(b, loc, RankedTensorType::get(shape, i32),
                input->quant.zeroPoint));
  int64_t count = 1;
  for (int64_t axis : axes) {
    count *= shape[axis];
    shape[axis] = 1;
    sum = tosa::ReduceSumOp::create(b, loc, RankedTensorType::get(shape, i32),
                                    sum, b.getI32IntegerAttr(axis));
  }
  auto scale = static_cast<float>(input->quant.scale);
  float multiplier = scale / (scale * static_cast<float>(count));
  Value pooled = roundToInt8(b, loc, timesFloat32(b, loc, sum, {multiplier}),
                             input->quant.zeroPoint, {kInt8Min, kInt8Max});
  auto resultType =
      withElement(mean.getResult(0).getType(), b.getIntegerType(8));
  if (resultType.getShape() != ArrayRef<int64_t>(shape))
    pooled = tosa::ReshapeOp::create(b, loc, resultType, pooled,
                                     constShape(b, loc, resultType.getShape()));
  return requantize(b, loc, Act{pooled, input->quant}, out);
}

Lowered<Value> Lowering::lowerMean(OpBuilder &b, PatternBody &body,
                                   const ActQuant &out) {
  if (body.ops.size() != 1)
    return unsupported("a fused mean is not supported");
  auto mean = llvm::cast<CompositeOp>(body.ops.front());
  Location loc = body.root->getLoc();
  Lowered<SmallVector<int64_t>> axes = getMeanAxes(mean);
  if (!axes)
    return axes.takeError();
  if (averagesAsQnnpack(mean, *axes))
    return averageAsQnnpackMean(b, mean, *axes, body, out);
  // `averages_integers = false`: PyTorch dequantizes, averages in float and
  // quantizes to the input's qparams (its mean of a channels-last tensor, or
  // over other than the innermost dimensions).
  if (auto attributes = mean.getCompositeAttributesAttr())
    if (auto integers = attributes.getAs<mlir::BoolAttr>("averages_integers");
        integers && !integers.getValue())
      return lowerInFloat(b, body, out);
  Lowered<Act> input = getAct(body.external(mean.getInputs().front()));
  if (!input)
    return input.takeError();
  // PyTorch's quantized mean averages the stored integers (zero point
  // included) and rounds half to even; the output keeps the input's scale
  // and zero point. In the int8 domain (quint8 stored as x + 128, an even
  // offset) that is the average of x rounded half to even.
  Type i32 = b.getIntegerType(32);
  auto shape = llvm::to_vector(
      llvm::cast<RankedTensorType>(input->value.getType()).getShape());
  Value sum = tosa::CastOp::create(b, loc, RankedTensorType::get(shape, i32),
                                   input->value);
  int64_t count = 1;
  for (int64_t axis : *axes) {
    count *= shape[axis];
    shape[axis] = 1;
    sum = tosa::ReduceSumOp::create(b, loc, RankedTensorType::get(shape, i32),
                                    sum, b.getI32IntegerAttr(axis));
  }
  Value average = roundedQuotient(b, loc, sum, count, /*bound=*/128);
  auto resultType = withElement(mean.getResult(0).getType(), i32);
  if (resultType.getShape() != ArrayRef<int64_t>(shape))
    average = tosa::ReshapeOp::create(
        b, loc, resultType, average, constShape(b, loc, resultType.getShape()));
  Lowered<Value> narrowed =
      rescale(b, loc, average, {1.0}, 0, 0, b.getIntegerType(8));
  if (!narrowed)
    return narrowed.takeError();
  return requantize(b, loc, Act{*narrowed, input->quant}, out);
}

/// The 3-D average pooling composites ("torch.nn.AvgPool3d",
/// "torch.nn.AdaptiveAvgPool3d": whole, non-overlapping windows of their
/// `kernel`): the window sums in int32 (per spatial axis a reshape splitting
/// it and a tosa.reduce_sum), averaged as PyTorch's quantized kernels do:
/// avg_pool3d and the adaptive pool of a channels-last operand
/// (`channels_last = true`) as the 2-D channels-last kernel (sums of q - zp
/// times `channelsLastMultiplier`), the adaptive pool of a contiguous one the
/// sums of the stored integers times float32 `((1 / kd) / kh) / kw`, rounded
/// half to even. The output keeps the input's qparams.
Lowered<Value> Lowering::lowerPool3d(OpBuilder &b, PatternBody &body,
                                     const ActQuant &out) {
  if (body.ops.size() != 1)
    return unsupported("a fused 3-D pool is not supported");
  auto pool = llvm::cast<CompositeOp>(body.ops.front());
  Location loc = body.root->getLoc();
  mlir::DictionaryAttr attributes = pool.getCompositeAttributesAttr();
  auto kernel = attributes ? attributes.getAs<mlir::DenseI64ArrayAttr>("kernel")
                           : mlir::DenseI64ArrayAttr();
  auto type =
      llvm::dyn_cast<RankedTensorType>(pool.getInputs().front().getType());
  if (pool.getInputs().size() != 1 || !kernel || kernel.size() != 3 || !type ||
      !type.hasStaticShape() || type.getRank() != 5)
    return unsupported(pool.getName().str() +
                       " takes one static NDHWC operand and `kernel = "
                       "array<i64: kd, kh, kw>` in its composite_attributes");
  SmallVector<int64_t> shape(type.getShape());
  int64_t count = 1;
  for (auto [axis, k] : llvm::enumerate(kernel.asArrayRef())) {
    if (k <= 0 || shape[axis + 1] % k)
      return unsupported(pool.getName().str() +
                         "'s kernel does not divide its spatial sizes");
    count *= k;
  }
  Lowered<Act> input = getPoolInput(body, pool, out);
  if (!input)
    return input.takeError();
  Type i32 = b.getIntegerType(32);
  Value sum = tosa::CastOp::create(b, loc, RankedTensorType::get(shape, i32),
                                   input->value);
  for (auto [axis, k] : llvm::enumerate(kernel.asArrayRef())) {
    SmallVector<int64_t> split(shape);
    split[axis + 1] /= k;
    split.insert(split.begin() + axis + 2, k);
    Value parts =
        tosa::ReshapeOp::create(b, loc, RankedTensorType::get(split, i32), sum,
                                constShape(b, loc, split));
    split[axis + 2] = 1;
    Value summed =
        tosa::ReduceSumOp::create(b, loc, RankedTensorType::get(split, i32),
                                  parts, b.getI32IntegerAttr(axis + 2));
    shape[axis + 1] /= k;
    sum = tosa::ReshapeOp::create(b, loc, RankedTensorType::get(shape, i32),
                                  summed, constShape(b, loc, shape));
  }
  auto sumType = llvm::cast<RankedTensorType>(sum.getType());
  int64_t zp = input->quant.zeroPoint;
  auto channelsLast = attributes.getAs<mlir::BoolAttr>("channels_last");
  if (pool.isFamily(CompositeFamily::AvgPool3d) ||
      (channelsLast && channelsLast.getValue())) {
    Value centered = tosa::SubOp::create(
        b, loc, sumType, sum, splatLike(b, loc, sumType, count * zp));
    return roundToInt8(
        b, loc, timesFloat32(b, loc, centered, {channelsLastMultiplier(count)}),
        zp, {kInt8Min, kInt8Max});
  }
  // The stored integers: quint8 is held as q - 128.
  int64_t offset = input->quant.isUnsigned ? 128 : 0;
  ArrayRef<int64_t> k = kernel.asArrayRef();
  auto multiplier = static_cast<float>(1.0 / static_cast<double>(k[0]));
  multiplier = multiplier / static_cast<float>(k[1]) / static_cast<float>(k[2]);
  if (offset != 0)
    sum = tosa::AddOp::create(b, loc, sumType, sum,
                              splatLike(b, loc, sumType, offset * count));
  return roundToInt8(b, loc, timesFloat32(b, loc, sum, {multiplier}), -offset,
                     {kInt8Min, kInt8Max});
}

Lowered<Value> Lowering::lowerConcat(OpBuilder &b, PatternBody &body,
                                     const ActQuant &out) {
  auto concat = llvm::cast<tosa::ConcatOp>(body.ops.front());
  if (body.ops.size() != 1)
    return unsupported("a fused concat is not supported");
  Location loc = body.root->getLoc();
  SmallVector<Value> inputs;
  for (Value operand : concat.getInput1()) {
    Value external = body.external(operand);
    // Float zeros (an average pool's padding that PyTorch counts) are the
    // output's zero point.
    if (getSplat(external) == 0.0f) {
      RankedTensorType type = withElement(external.getType(), b.getI8Type());
      inputs.push_back(
          tosa::ConstOp::create(b, loc, type,
                                mlir::DenseElementsAttr::get(
                                    type, static_cast<int8_t>(out.zeroPoint))));
      continue;
    }
    Lowered<Act> input = getAct(external);
    if (!input)
      return input.takeError();
    // PyTorch's quantized cat dequantizes an input of other qparams and
    // quantizes it again.
    Lowered<Value> value = requantizeAsTorch(b, loc, *input, out);
    if (!value)
      return value.takeError();
    inputs.push_back(*value);
  }
  return tosa::ConcatOp::create(
      b, loc, withElement(concat.getType(), b.getIntegerType(8)), inputs,
      concat.getAxisAttr());
}

/// PyTorch's quantized kernels that compute in float32 (quantized::matmul,
/// softmax, layer_norm, group_norm, instance_norm, and mean over other than
/// H and W): each int8 input dequantized as their Tensor.dequantize() does,
/// the pattern's float ops as the reference model has them, the result
/// quantized as quantize_per_tensor (x * (1 / s) rounded half to even, plus
/// the zero point, saturated). The float ops are not PyTorch's own kernels
/// (another summation order, another exp), so an output can differ from
/// PyTorch's by one step where its exact value lies at a rounding boundary.
Lowered<Value> Lowering::lowerInFloat(OpBuilder &b, PatternBody &body,
                                      const ActQuant &out) {
  Location loc = body.root->getLoc();
  Lowered<Value> result = cloneInFloat(
      b, body, [&](const Act &act) { return dequantizeAsTensor(b, loc, act); });
  if (!result)
    return result.takeError();
  return quantizeAsTensor(b, loc, *result, out);
}

/// PyTorch's upsampling kernels, which keep the input's qparams: the
/// pattern's float ops on q - zp (exact in float32), rounded half to even,
/// plus zp. Rounding q - zp, not the dequantized value, is what makes ties
/// come out as PyTorch's.
Lowered<Value> Lowering::lowerCenteredInFloat(OpBuilder &b, PatternBody &body,
                                              const ActQuant &out) {
  Location loc = body.root->getLoc();
  Lowered<Value> result = cloneInFloat(
      b, body, [&](const Act &act) { return centeredAsFloat(b, loc, act); },
      [&](const Act &act) -> llvm::Error {
        if (act.quant.sameAs(out))
          return llvm::Error::success();
        return unsupported("the lowering 'centered_float' needs inputs with "
                           "the output's qparams");
      });
  if (!result)
    return result.takeError();
  return roundToInt8(b, loc, *result, out.zeroPoint, {kInt8Min, kInt8Max});
}

/// True for a constant, or a constant stored quantized and dequantized (a
/// weight as the reference model holds it).
static bool isConstantWeight(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto dcast = llvm::dyn_cast_or_null<quant::DequantizeCastOp>(def)) {
    def = dcast.getInput().getDefiningOp();
    while (auto scast = llvm::dyn_cast_or_null<quant::StorageCastOp>(def))
      def = scast.getInput().getDefiningOp();
  }
  return def && def->hasTrait<mlir::OpTrait::ConstantLike>();
}

/// The pattern's float ops cloned onto `toFloat` of each int8 input (the
/// constants of a fused body cloned with them; its weights used as the
/// reference model has them, dequantized); the float result. `check` may
/// refuse an input before anything is built.
Lowered<Value>
Lowering::cloneInFloat(OpBuilder &b, PatternBody &body,
                       const std::function<Value(const Act &)> &toFloat,
                       const std::function<llvm::Error(const Act &)> &check) {
  llvm::SmallPtrSet<Operation *, 4> inPattern(body.ops.begin(), body.ops.end());
  llvm::SmallVector<std::pair<Value, Act>> inputs;
  llvm::SmallVector<Operation *> constants;
  mlir::IRMapping weights;
  for (Operation *op : body.ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inPattern.contains(def))
        continue;
      if (def && def->hasTrait<mlir::OpTrait::ConstantLike>()) {
        // A constant of a fused body is cloned with the ops that use it.
        if (def->getParentOp() == body.root &&
            !llvm::is_contained(constants, def))
          constants.push_back(def);
        continue;
      }
      if (llvm::any_of(inputs,
                       [&](auto &input) { return input.first == operand; }))
        continue;
      if (isConstantWeight(body.external(operand))) {
        weights.map(operand, body.external(operand));
        continue;
      }
      Lowered<Act> input = getAct(body.external(operand));
      if (!input)
        return input.takeError();
      if (check)
        if (llvm::Error e = check(*input))
          return std::move(e);
      inputs.push_back({operand, *input});
    }
  mlir::IRMapping floats = weights;
  for (Operation *constant : constants)
    floats.map(constant->getResult(0), b.clone(*constant)->getResult(0));
  for (auto &[operand, act] : inputs)
    floats.map(operand, toFloat(act));
  for (Operation *op : body.ops)
    b.clone(*op, floats);
  return floats.lookup(body.ops.back()->getResult(0));
}

} // namespace qfx::lowering
