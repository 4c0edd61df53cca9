//===- Tables.cpp - Elementwise ops as tables -----------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Unary elementwise ops (activations, composites with elementwise bodies)
// as lookup tables over the 256 int8 values, one per channel where the
// body has per-channel constants, or as fitted lines.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

namespace qfx::lowering {

/// One elementwise float op on scalars, as the float model computes it in
/// float32, or nullopt for an op it does not know. `x` holds the values of
/// the op's float operands (tosa.mul's shift and tosa.negate's zero points,
/// which are not float, are left out).
std::optional<float> evaluateScalar(Operation *op, ArrayRef<float> x) {
  using F = float (*)(float);
  auto unary = [&](F f) -> std::optional<float> { return f(x[0]); };
  return llvm::TypeSwitch<Operation *, std::optional<float>>(op)
      .Case([&](tosa::SigmoidOp) { return 1.0f / (1.0f + std::exp(-x[0])); })
      .Case([&](tosa::TanhOp) { return unary(std::tanh); })
      .Case([&](tosa::ExpOp) { return unary(std::exp); })
      .Case([&](tosa::LogOp) { return unary(std::log); })
      .Case([&](tosa::ErfOp) { return unary(std::erf); })
      .Case([&](tosa::AbsOp) { return unary(std::fabs); })
      .Case([&](tosa::FloorOp) { return unary(std::floor); })
      .Case([&](tosa::CeilOp) { return unary(std::ceil); })
      .Case([&](tosa::NegateOp) { return -x[0]; })
      .Case([&](tosa::ReciprocalOp) { return 1.0f / x[0]; })
      .Case([&](tosa::RsqrtOp) { return 1.0f / std::sqrt(x[0]); })
      .Case([&](tosa::IdentityOp) { return x[0]; })
      .Case([&](tosa::AddOp) { return x[0] + x[1]; })
      .Case([&](tosa::SubOp) { return x[0] - x[1]; })
      .Case([&](tosa::MulOp) { return x[0] * x[1]; })
      .Case([&](tosa::PowOp) { return std::pow(x[0], x[1]); })
      .Case([&](tosa::MaximumOp) { return std::max(x[0], x[1]); })
      .Case([&](tosa::MinimumOp) { return std::min(x[0], x[1]); })
      // Booleans are carried as 0 and 1.
      .Case([&](tosa::GreaterOp) { return x[0] > x[1] ? 1.0f : 0.0f; })
      .Case([&](tosa::GreaterEqualOp) { return x[0] >= x[1] ? 1.0f : 0.0f; })
      .Case([&](tosa::SelectOp) { return x[0] != 0.0f ? x[1] : x[2]; })
      .Case([&](tosa::ClampOp clampOp) -> std::optional<float> {
        auto lo = llvm::dyn_cast<mlir::FloatAttr>(clampOp.getMinValAttr());
        auto hi = llvm::dyn_cast<mlir::FloatAttr>(clampOp.getMaxValAttr());
        if (!lo || !hi)
          return std::nullopt;
        return std::min(std::max(x[0], float(lo.getValueAsDouble())),
                        float(hi.getValueAsDouble()));
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The float operands evaluateScalar takes.
mlir::ValueRange getScalarOperands(Operation *op) {
  if (llvm::isa<tosa::MulOp>(op))
    return op->getOperands().take_front(2);
  if (llvm::isa<tosa::NegateOp>(op))
    return op->getOperands().take_front(1);
  return op->getOperands();
}

/// The float function of one elementwise op or composite, evaluated per
/// channel where its constants have one value per channel along `axis` (a
/// PReLU's slopes).
struct ElementwiseFunction {
  std::function<float(float, int64_t)> apply; // (x, channel)
  std::optional<int64_t> axis;
  int64_t channels = 1;
};

/// The values of a float constant that is a splat, or that has one value per
/// channel of `shape` along a single axis (all other dimensions 1). Sets
/// `axis` and `channels` for the latter, failing if they disagree with
/// earlier constants.
std::optional<std::vector<float>>
getElementwiseConstant(Value value, ArrayRef<int64_t> shape,
                       ElementwiseFunction &function) {
  mlir::DenseFPElementsAttr elements;
  if (!mlir::matchPattern(value, mlir::m_Constant(&elements)) ||
      !elements.getElementType().isF32())
    return std::nullopt;
  std::vector<float> values(elements.getValues<float>().begin(),
                            elements.getValues<float>().end());
  if (elements.isSplat())
    return std::vector<float>{values.front()};
  ArrayRef<int64_t> constShape = elements.getType().getShape();
  if (constShape.size() != shape.size())
    return std::nullopt;
  std::optional<int64_t> axis;
  for (auto [d, size] : llvm::enumerate(constShape)) {
    if (size == 1)
      continue;
    if (axis || size != shape[d] || mlir::ShapedType::isDynamic(size))
      return std::nullopt;
    axis = d;
  }
  if (!axis || (function.axis && *function.axis != *axis))
    return std::nullopt;
  function.axis = axis;
  function.channels = constShape[*axis];
  return values;
}

/// The float function an elementwise region computes from its one input: a
/// qfx.composite body of ops evaluateScalar knows, splat constants and
/// constants with one value per channel along one axis.
std::optional<ElementwiseFunction> getBodyFunction(Block &body) {
  if (body.getNumArguments() != 1)
    return std::nullopt;
  auto argType =
      llvm::dyn_cast<RankedTensorType>(body.getArgument(0).getType());
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  if (!argType || yield.getValues().size() != 1)
    return std::nullopt;
  Value output = yield.getValues()[0];
  ElementwiseFunction function;
  llvm::DenseMap<Value, std::vector<float>> constants;
  for (Operation &op : body.without_terminator())
    if (op.hasTrait<mlir::OpTrait::ConstantLike>())
      if (std::optional<std::vector<float>> values = getElementwiseConstant(
              op.getResult(0), argType.getShape(), function))
        constants[op.getResult(0)] = std::move(*values);
  // Checks every op once, on a sample value; the function evaluates the
  // whole body for each input.
  auto evaluate = [&body, output, constants](
                      float input, int64_t channel) -> std::optional<float> {
    llvm::DenseMap<Value, float> values;
    values[body.getArgument(0)] = input;
    for (Operation &op : body.without_terminator()) {
      // Other constants (tosa.mul's shift, a tensor of another shape) get
      // no value: an op that reads one as a scalar operand is not evaluated.
      if (op.hasTrait<mlir::OpTrait::ConstantLike>()) {
        auto it = constants.find(op.getResult(0));
        if (it != constants.end())
          values[op.getResult(0)] =
              it->second.size() == 1 ? it->second.front() : it->second[channel];
        continue;
      }
      if (op.getNumResults() != 1)
        return std::nullopt;
      SmallVector<float, 2> operands;
      for (Value operand : getScalarOperands(&op)) {
        auto it = values.find(operand);
        if (it == values.end())
          return std::nullopt;
        operands.push_back(it->second);
      }
      std::optional<float> result = evaluateScalar(&op, operands);
      if (!result)
        return std::nullopt;
      values[op.getResult(0)] = *result;
    }
    auto it = values.find(output);
    return it == values.end() ? std::nullopt : std::optional(it->second);
  };
  if (!evaluate(0.0f, 0))
    return std::nullopt;
  function.apply = [evaluate](float x, int64_t channel) {
    return *evaluate(x, channel);
  };
  return function;
}

/// The float function a table-lowered op computes, if it is one: a unary
/// elementwise TOSA op, or a qfx.composite with an elementwise body whose
/// result has its input's type.
std::optional<ElementwiseFunction> getUnaryFunction(Operation *op) {
  if (auto composite = llvm::dyn_cast<CompositeOp>(op)) {
    if (composite.getInputs().size() != 1 || op->getNumResults() != 1 ||
        composite.getInputs()[0].getType() != op->getResult(0).getType())
      return std::nullopt;
    // PyTorch's float kernel where it rounds otherwise than the body (GELU:
    // as qfx-lower-gelu computes it in native code).
    if (const CompositeInfo *info = composite.getInfo();
        info && info->floatKernel)
      return ElementwiseFunction{
          [kernel = info->floatKernel](float x, int64_t) { return kernel(x); },
          std::nullopt};
    return getBodyFunction(composite.getBody().front());
  }
  if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
      !evaluateScalar(op, {0.0f}))
    return std::nullopt;
  return ElementwiseFunction{
      [op](float x, int64_t) { return *evaluateScalar(op, {x}); },
      std::nullopt};
}

/// A 256-entry table t (entry q + 128 for q) as integer arithmetic:
/// t[q] = clamp((q * multiplier + bias) >> shift, lo, hi), the shift
/// rounding down; |q * multiplier| <= 2^30 and |bias| <= 2^29, so no int32
/// step overflows.
struct TableLine {
  int64_t multiplier = 0, bias = 0, lo = 0, hi = 0;
};

/// The shifts lookUpAsLines tries, finest first: a multiplier of at most
/// 2^23 allows slopes up to 2^(23 - shift) output steps an input step (8 at
/// 20: a batch norm's channels nearly always; 2048 at 12).
constexpr int64_t kLineShifts[] = {20, 16, 12};

/// The line that gives every entry of `table` with `shift`, if one does: the
/// table of an affine function rounded and clamped (a batch norm's channel)
/// is one, unless a rounding tie or float rounding broke the steps'
/// regularity; a PReLU's is not. Each entry bounds q * M + B (the clamp's
/// ends only from one side, within 2^30); the widest violation over the
/// entries is convex in M, so a ternary search over |M| <= 2^23 finds a
/// feasible M if there is one. Checked entry by entry.
std::optional<TableLine> fitLine(ArrayRef<int8_t> table, int64_t shift) {
  TableLine line;
  line.lo = *llvm::min_element(table);
  line.hi = *llvm::max_element(table);
  const int64_t step = int64_t{1} << shift;
  constexpr int64_t kLimit = int64_t{1} << 30,
                    kMaxMultiplier = int64_t{1} << 23;
  auto bounds = [&](int64_t i) -> std::pair<int64_t, int64_t> {
    int64_t t = table[i];
    int64_t lower = t == line.lo ? -kLimit : t * step;
    int64_t upper = t == line.hi ? kLimit : t * step + step - 1;
    return {lower, upper};
  };
  // max over q of (lower - q M) and min of (upper - q M): B's interval.
  auto interval = [&](int64_t m) -> std::pair<int64_t, int64_t> {
    int64_t from = std::numeric_limits<int64_t>::min(),
            to = std::numeric_limits<int64_t>::max();
    for (int64_t i = 0; i < 256; ++i) {
      auto [lower, upper] = bounds(i);
      int64_t q = i - 128;
      from = std::max(from, lower - q * m);
      to = std::min(to, upper - q * m);
    }
    return {from, to};
  };
  auto violation = [&](int64_t m) {
    auto [from, to] = interval(m);
    return from - to;
  };
  int64_t low = -kMaxMultiplier, high = kMaxMultiplier;
  while (high - low > 2) {
    int64_t m1 = low + (high - low) / 3, m2 = high - (high - low) / 3;
    int64_t v1 = violation(m1), v2 = violation(m2);
    if (v1 < v2)
      high = m2;
    else if (v1 > v2)
      low = m1;
    else {
      low = m1;
      high = m2;
    }
  }
  for (int64_t m = low; m <= high; ++m) {
    auto [from, to] = interval(m);
    if (from > to || std::abs(from) > kLimit / 2)
      continue;
    line.multiplier = m;
    line.bias = from;
    for (int64_t i = 0; i < 256; ++i) {
      int64_t v = (i - 128) * m + from;
      if (v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max() ||
          std::clamp(v >> shift, line.lo, line.hi) != table[i])
        return std::nullopt;
    }
    return line;
  }
  return std::nullopt;
}

/// The lines of the 256-entry `tables` and their common shift: the first of
/// kLineShifts that every table fits.
std::optional<std::pair<SmallVector<TableLine>, int64_t>>
fitLines(ArrayRef<int8_t> tables) {
  for (int64_t shift : kLineShifts) {
    SmallVector<TableLine> lines;
    for (size_t at = 0; at < tables.size(); at += 256) {
      std::optional<TableLine> line = fitLine(tables.slice(at, 256), shift);
      if (!line)
        break;
      lines.push_back(*line);
    }
    if (lines.size() * 256 == tables.size())
      return std::make_pair(std::move(lines), shift);
  }
  return std::nullopt;
}

/// The int8 `input`'s elements looked up in 256-entry tables (entry q + 128
/// for q; one table, or channel c's along `axis`) as integer arithmetic,
/// when every table is a line (fitLines): clamp((q * M_c + B_c) >> shift,
/// lo_c, hi_c), with per-channel constants (or scalars), a loop LLVM
/// vectorizes.
std::optional<Value> lookUpAsLines(OpBuilder &b, Location loc, Value input,
                                   std::optional<int64_t> axis,
                                   ArrayRef<int8_t> tables) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  Type i32 = b.getIntegerType(32);
  auto fitted = fitLines(tables);
  if (!fitted)
    return std::nullopt;
  const SmallVector<TableLine> &lines = fitted->first;
  int64_t lineShift = fitted->second;
  SmallVector<int64_t> shape(inputType.getRank(), 1);
  if (axis)
    shape[*axis] = static_cast<int64_t>(lines.size());
  auto constType = RankedTensorType::get(shape, i32);
  auto column = [&](int64_t TableLine::*field) -> Value {
    SmallVector<int32_t> values;
    for (const TableLine &line : lines)
      values.push_back(static_cast<int32_t>(line.*field));
    return tosa::ConstOp::create(
        b, loc, constType,
        mlir::DenseElementsAttr::get(constType, ArrayRef<int32_t>(values)));
  };
  auto i32Type = withElement(inputType, i32);
  Value x = tosa::CastOp::create(b, loc, i32Type, input);
  x = tosa::MulOp::create(b, loc, i32Type, x, column(&TableLine::multiplier),
                          noShift(b, loc));
  x = tosa::AddOp::create(b, loc, i32Type, x, column(&TableLine::bias));
  auto shiftType =
      RankedTensorType::get(SmallVector<int64_t>(shape.size(), 1), i32);
  Value shift = tosa::ConstOp::create(
      b, loc, shiftType,
      mlir::DenseElementsAttr::get(shiftType, static_cast<int32_t>(lineShift)));
  x = tosa::ArithmeticRightShiftOp::create(b, loc, i32Type, x, shift,
                                           /*round=*/false);
  x = tosa::MaximumOp::create(b, loc, i32Type, x, column(&TableLine::lo));
  x = tosa::MinimumOp::create(b, loc, i32Type, x, column(&TableLine::hi));
  return tosa::CastOp::create(b, loc, inputType, x).getResult();
}

/// Looks up each element of the int8 `input` of channel c (along `axis`) in
/// the c-th 256-entry table of `tables` (entry q + 128 for q): as integer
/// arithmetic when every table is a line (lookUpAsLines; a batch norm's
/// channels usually are), else a tosa.gather from the concatenated tables
/// at index q + 128 + 256 * c. Both are the tables, entry for entry.
Value lookUpPerChannel(OpBuilder &b, Location loc, Value input, int64_t axis,
                       ArrayRef<int8_t> tables) {
  if (std::optional<Value> lines = lookUpAsLines(b, loc, input, axis, tables))
    return *lines;
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  Type i32 = b.getIntegerType(32);
  int64_t channels = tables.size() / 256;
  SmallVector<int64_t> offsetShape(inputType.getRank(), 1);
  offsetShape[axis] = channels;
  auto offsetType = RankedTensorType::get(offsetShape, i32);
  auto i32Type = withElement(inputType, i32);
  SmallVector<int32_t> offsets;
  for (int64_t c = 0; c < channels; ++c)
    offsets.push_back(static_cast<int32_t>(128 + 256 * c));
  Value offsetConst = tosa::ConstOp::create(
      b, loc, offsetType,
      mlir::DenseElementsAttr::get(offsetType, ArrayRef<int32_t>(offsets)));
  Value index = tosa::CastOp::create(b, loc, i32Type, input);
  index = tosa::AddOp::create(b, loc, index.getType(), index, offsetConst);
  int64_t count = inputType.getNumElements();
  index =
      tosa::ReshapeOp::create(b, loc, RankedTensorType::get({1, count}, i32),
                              index, constShape(b, loc, {1, count}));
  auto tableType =
      RankedTensorType::get({1, channels * 256, 1}, b.getIntegerType(8));
  Value tableConst = tosa::ConstOp::create(
      b, loc, tableType, mlir::DenseElementsAttr::get(tableType, tables));
  Value gathered = tosa::GatherOp::create(
      b, loc, RankedTensorType::get({1, count, 1}, b.getIntegerType(8)),
      tableConst, index);
  return tosa::ReshapeOp::create(b, loc, inputType, gathered,
                                 constShape(b, loc, inputType.getShape()));
}

/// PyTorch's qnnpack engine runs a quint8 sigmoid, tanh, hardsigmoid and
/// hardswish as QNNPACK's operators (pytorch_qnnp_create_*_nc_q8), whose
/// own tables compute in float32 from x = s * (i - z): the value of `op`
/// they clamp and round half to even (lrintf) for an output `out`. None
/// for other ops.
static std::optional<std::function<float(float)>>
getQnnpackTable(Operation *op, const ActQuant &out) {
  auto inverse = 1.0f / static_cast<float>(out.scale);
  auto zeroPoint = static_cast<float>(out.zeroPoint + 128);
  // Each product and sum its own statement: no fused multiply-add.
  auto scale = [=](float y) {
    float scaled = inverse * y;
    return scaled + zeroPoint;
  };
  // Sigmoid's and tanh's assume their fixed output qparams (1 / 256 and 0,
  // 2 / 256 and 128); tanh is computed in double, as their C source calls
  // it.
  if (llvm::isa<tosa::SigmoidOp>(op) && out.scale == 1.0 / 256 &&
      zeroPoint == 0.0f)
    return [](float x) { return 256.0f / (1.0f + std::exp(-x)); };
  if (llvm::isa<tosa::TanhOp>(op) && out.scale == 2.0 / 256 &&
      zeroPoint == 128.0f)
    return [](float x) {
      double scaled = 128.0 * std::tanh(static_cast<double>(x));
      return static_cast<float>(scaled + 128.0);
    };
  auto composite = llvm::dyn_cast<CompositeOp>(op);
  if (const CompositeInfo *info = composite ? composite.getInfo() : nullptr;
      info && info->qnnpackKernel)
    return
        [=, kernel = info->qnnpackKernel](float x) { return scale(kernel(x)); };
  return std::nullopt;
}

Lowered<Value> Lowering::lowerTable(OpBuilder &b, PatternBody &body,
                                    const ActQuant &out) {
  if (llvm::Error e = checkChain(body.ops))
    return std::move(e);
  Location loc = body.root->getLoc();
  Lowered<Act> input = getAct(body.external(body.ops.front()->getOperand(0)));
  if (!input)
    return input.takeError();
  auto inputType = llvm::cast<RankedTensorType>(input->value.getType());
  SmallVector<ElementwiseFunction> functions;
  std::optional<int64_t> axis;
  int64_t channels = 1;
  for (Operation *op : body.ops) {
    std::optional<ElementwiseFunction> f = getUnaryFunction(op);
    if (!f)
      return unsupported("'" + describeOp(op) +
                         "' is not elementwise: it has no table lowering");
    if (f->axis) {
      if (axis && *axis != *f->axis)
        return unsupported("the pattern's ops vary along different axes");
      axis = f->axis;
      channels = f->channels;
    }
    functions.push_back(std::move(*f));
  }
  if (axis && !inputType.hasStaticShape())
    return unsupported("a per-channel table needs a static shape");
  // Entry i of channel c's table is the output for the int8-domain input
  // i - 128: dequantize as PyTorch does, apply the float ops, quantize to
  // the output. PyTorch's CPU kernels for these ops (qrelu.cpp's
  // leaky_qrelu, hardswish, elu, sigmoid, ...; aten's on the qnnpack engine
  // too, but for QNNPACK's own operators, getQnnpackTable) dequantize in
  // their vector code with a fused multiply-add; its
  // reference model, and TOSA's integer requantization, as
  // Tensor.dequantize does.
  int64_t inShift = input->quant.isUnsigned ? 128 : 0;
  int64_t outShift = out.isUnsigned ? 128 : 0;
  QuantRange storage{kInt8Min + outShift, kInt8Max + outShift};
  auto dequantize = [&](int64_t q) {
    if (requantization != Requantization::Integer)
      return dequantizeValueFma(q + inShift,
                                static_cast<float>(input->quant.scale),
                                input->quant.zeroPoint + inShift);
    return dequantizeValue(q, input->quant.scale, input->quant.zeroPoint);
  };
  std::optional<std::function<float(float)>> qnnpackTable;
  if (requantization == Requantization::Qnnpack && body.ops.size() == 1 &&
      input->quant.isUnsigned && out.isUnsigned)
    qnnpackTable = getQnnpackTable(body.ops.front(), out);
  auto qnnpackEntry = [&](int64_t q) {
    float x = static_cast<float>(input->quant.scale) *
              static_cast<float>(q - input->quant.zeroPoint);
    float scaled = (*qnnpackTable)(x);
    return static_cast<int8_t>(
        std::lrint(std::min(std::max(scaled, 0.0f), 255.0f)) - 128);
  };
  SmallVector<int8_t> tables;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t q = kInt8Min; q <= kInt8Max; ++q) {
      if (qnnpackTable) {
        tables.push_back(qnnpackEntry(q));
        continue;
      }
      float x = dequantize(q);
      for (const ElementwiseFunction &f : functions)
        x = f.apply(x, c);
      tables.push_back(static_cast<int8_t>(
          quantizeValue(x, out.scale, out.zeroPoint + outShift, storage) -
          outShift));
    }
  if (axis)
    return lookUpPerChannel(b, loc, input->value, *axis, tables);
  // A table that is a line (a ReLU6 or clamp with its own qparams) is
  // integer arithmetic, which vectorizes; others a tosa.table.
  if (std::optional<Value> line =
          lookUpAsLines(b, loc, input->value, std::nullopt, tables))
    return *line;
  Value tableConst = constant1D(b, loc, tables);
  return tosa::TableOp::create(b, loc, inputType, input->value, tableConst);
}

} // namespace qfx::lowering
