//===- LowerReference.cpp - Reference quantized patterns to int8 TOSA -----===//
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

#include "qfx/Conversion/ContractToTosa/ContractToTosa.h"
#include "qfx/Conversion/FloatQParams.h"
#include "qfx/Conversion/Passes.h"
#include "qfx/Conversion/Utils/TosaBuilders.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Numerics/Quantize.h"
#include "qfx/Support/DenseValues.h"
#include "qfx/Transforms/ConfigResolution.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/QuantUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

namespace qfx {
#define GEN_PASS_DEF_QFXLOWERREFERENCE
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

using mlir::DenseI64ArrayAttr;
using mlir::RankedTensorType;
namespace quant = mlir::quant;
namespace tosa = mlir::tosa;
using namespace qfx;
using namespace qfx::tosa_builders;

namespace {

constexpr int64_t kInt8Min = -128;
constexpr int64_t kInt8Max = 127;

/// A lowered value, or why the pattern cannot be lowered (the reason goes
/// into the "runs in float" remark).
template <typename T> using Lowered = llvm::Expected<T>;

llvm::Error unsupported(const llvm::Twine &reason) {
  return llvm::createStringError(reason.str());
}

/// Per-tensor 8-bit quantization in the int8 domain.
struct ActQuant {
  double scale;
  int64_t zeroPoint; // int8 domain
  bool isUnsigned;   // the quantized type's storage is u8

  bool sameAs(const ActQuant &other) const {
    return scale == other.scale && zeroPoint == other.zeroPoint;
  }
};

/// The per-tensor 8-bit full-range quantization of a tensor type, if it is
/// one.
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

/// Records on the op defining `value` (an int8-domain tensor) the quantized
/// type it stands for, for `quant-run --compare`.
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

/// A quantized activation: an int8-domain tensor and its qparams.
struct Act {
  Value value;
  ActQuant quant;
};

/// A quantized constant (a weight) in the int8 domain: its values and, per
/// element, the index of its (scale, zero point).
struct QConst {
  SmallVector<int64_t> shape;
  std::vector<int32_t> values;
  std::vector<uint32_t> group;
  SmallVector<std::pair<double, int64_t>> params;
};

/// A weight's per-output-channel scales and its one zero point.
struct ChannelQuant {
  SmallVector<double> scales;
  int64_t zeroPoint;
};

RankedTensorType withElement(Type type, Type element) {
  return llvm::cast<RankedTensorType>(type).clone(element);
}

/// The float values of a constant (through reshapes), if `value` is one.
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

/// The float value of a splat float constant.
std::optional<float> getSplat(Value value) {
  mlir::SplatElementsAttr splat;
  if (!mlir::matchPattern(value, mlir::m_Constant(&splat)) ||
      !llvm::isa<mlir::FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<mlir::APFloat>().convertToFloat();
}

/// True for ops that move elements without changing them: they run on the
/// integers as they are (a padding with float zeros pads with the zero
/// point, which stands for 0.0 exactly).
bool isDataMovement(Operation *op) {
  if (auto pad = llvm::dyn_cast<tosa::PadOp>(op))
    return getSplat(pad.getPadConst()) == 0.0f;
  return llvm::isa<tosa::ReshapeOp, tosa::TransposeOp, tosa::SliceOp,
                   tosa::TileOp, tosa::ReverseOp, tosa::IdentityOp>(op);
}

/// The ops of a pattern: the op itself, or a qfx.fused op's body (constants
/// left out), with the body's block arguments standing for the fused
/// operands.
struct PatternBody {
  Operation *root;
  SmallVector<Operation *, 4> ops;
  mlir::IRMapping outside;

  explicit PatternBody(Operation *root) : root(root) {
    auto fused = llvm::dyn_cast<FusedOp>(root);
    if (!fused) {
      ops.push_back(root);
      return;
    }
    Block &body = fused.getBody().front();
    for (auto [arg, input] : llvm::zip(body.getArguments(), fused.getInputs()))
      outside.map(arg, input);
    for (Operation &op : body.without_terminator())
      if (!op.hasTrait<mlir::OpTrait::ConstantLike>())
        ops.push_back(&op);
  }

  /// `value` as seen outside the pattern.
  Value external(Value value) const { return outside.lookupOrDefault(value); }
};

/// How a convolution's or a Linear's int32 accumulator becomes int8.
enum class Requantization {
  /// PyTorch's onednn engine (x86, fbgemm and onednn tables), in float32:
  /// round_half_even((float(acc) + bias * si * sw) * so / (si * sw) + zp)
  /// with ideep's reciprocal scales.
  OneDnn,
  /// PyTorch's qnnpack engine, in float32: round_half_even(float(acc +
  /// round(bias / (s_in * s_w))) * ((s_w * s_in) * (1 / s_out))) + zp.
  Qnnpack,
  /// TOSA's integer profile: tosa.rescale (32-bit multipliers, rounding
  /// half away from zero), the bias with up to 8 fractional bits.
  Integer,
};

void eraseDeadOps(Block &block);

class Lowering {
public:
  explicit Lowering(Requantization requantization)
      : requantization(requantization) {}

  /// A recurrent composite's dynamically quantized body (qfx-prepare's
  /// observeRecurrentBody): each matmul (and the bias add after it) whose
  /// input is quantized at run time becomes a dynamic matmul, as PyTorch's
  /// quantized LSTM computes each projection; the cell stays float.
  llvm::Error lowerRecurrentBody(CompositeOp composite);

  /// Lowers the pattern rooted at `root` (one op or a qfx.fused op) that
  /// `config` of the backend table matched (none for data movement).
  llvm::Error lowerPattern(Operation *root, const BackendPatternConfig *config);

private:
  // Values.
  Lowered<Act> getAct(Value floatValue);
  Lowered<QConst> getQConst(Value floatValue);
  Lowered<ChannelQuant>
  getChannelQuant(const QConst &weight, int64_t channels,
                  const std::function<int64_t(int64_t)> &channelOf);
  Value int8Constant(OpBuilder &b, Location loc, const QConst &weight,
                     ArrayRef<int64_t> shape);

  // Building blocks.
  Lowered<Value> rescale(OpBuilder &b, Location loc, Value input,
                         ArrayRef<double> scales, int64_t inputZp,
                         int64_t outputZp, Type outputElement,
                         bool inputUnsigned = false,
                         bool outputUnsigned = false);
  Lowered<Value> requantize(OpBuilder &b, Location loc, Act act,
                            const ActQuant &out);
  /// The epilogue that requantizes a weighted op's int32 accumulator of
  /// `channels` in float32 as PyTorch's onednn or qnnpack engine does (with
  /// onednn, `bias` is added in float), clamped to the int8-domain `range`.
  RequantizeAttr getFloatRequantization(
      MLIRContext *context, Requantization mode, int64_t channels,
      double inputScale, ArrayRef<double> weightScales,
      const std::optional<std::vector<double>> &bias, const ActQuant &out,
      std::pair<int64_t, int64_t> range);
  Lowered<std::pair<int64_t, int64_t>> getClampRange(ArrayRef<Operation *> ops,
                                                     const ActQuant &out);
  Value clamp(OpBuilder &b, Location loc, Value value,
              std::pair<int64_t, int64_t> range);

  // Patterns; each returns the int8-domain output.
  Lowered<Value> lowerConvOrMatmul(OpBuilder &b, PatternBody &body,
                                   const ActQuant &out);
  Lowered<Value> lowerDynamicMatmul(OpBuilder &b, PatternBody &body,
                                    DequantizeOp input);
  Lowered<Value> lowerWeightedBody(OpBuilder &b, PatternBody &body,
                                   const ActQuant &out);

  Lowered<Value> lowerAddOrMul(OpBuilder &b, PatternBody &body,
                               const ActQuant &out);
  Lowered<Value> lowerScalarAddOrMul(OpBuilder &b, PatternBody &body,
                                     const Act &input, float scalar);
  Lowered<Value> lowerPool(OpBuilder &b, PatternBody &body,
                           const ActQuant &out);
  Lowered<Value> averageWithoutPadding(OpBuilder &b, Location loc,
                                       tosa::AvgPool2dOp avg, const Act &input,
                                       const ActQuant &out);
  Lowered<Value> lowerMean(OpBuilder &b, PatternBody &body,
                           const ActQuant &out);
  Lowered<Value> lowerConcat(OpBuilder &b, PatternBody &body,
                             const ActQuant &out);
  Lowered<Value> lowerPool3d(OpBuilder &b, PatternBody &body,
                             const ActQuant &out);
  Lowered<Value> lowerInFloat(OpBuilder &b, PatternBody &body,
                              const ActQuant &out);
  Lowered<Value> lowerCenteredInFloat(OpBuilder &b, PatternBody &body,
                                      const ActQuant &out);
  Lowered<Value>
  cloneInFloat(OpBuilder &b, PatternBody &body,
               const std::function<Value(const Act &)> &toFloat,
               const std::function<llvm::Error(const Act &)> &check = {});
  Lowered<Value> lowerTable(OpBuilder &b, PatternBody &body,
                            const ActQuant &out);
  Lowered<Value> lowerBatchNorm(OpBuilder &b, PatternBody &body,
                                const ActQuant &out);
  Lowered<Value> lowerNormalization(OpBuilder &b, PatternBody &body,
                                    const ActQuant &out);
  Lowered<Value> lowerDataMovement(OpBuilder &b, PatternBody &body,
                                   const ActQuant &out);
  Lowered<Value> lowerStatic(OpBuilder &b, PatternBody &body,
                             const ActQuant &out);

  /// A pattern's lowering (its int8-domain output), and the main ops it
  /// applies to.
  struct NamedLowering {
    Lowered<Value> (Lowering::*lower)(OpBuilder &, PatternBody &,
                                      const ActQuant &);
    bool (*appliesTo)(Operation *main);
  };
  /// The lowering of `kind` (a backend table row's `reference_lowering` or
  /// the main op's QuantizableOpInterface::getInt8Lowering).
  static std::optional<NamedLowering> getLowering(LoweringKind kind);

  Requantization requantization;

  /// Set by a lowering whose output qparams are its own (PyTorch's add and
  /// mul with a scalar), not the observer's.
  std::optional<ActQuant> resultQuant;

  /// Int8-domain values of quantized values (a quant.qcast's replacement or
  /// a quantized value already converted) and of float values replayed on
  /// integers (data movement after a dequantize).
  llvm::DenseMap<Value, Act> acts;
};

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Lowered<Act> Lowering::getAct(Value floatValue) {
  if (auto it = acts.find(floatValue); it != acts.end())
    return it->second;
  Operation *def = floatValue.getDefiningOp();
  if (auto dcast = llvm::dyn_cast_or_null<quant::DequantizeCastOp>(def)) {
    Value quantized = dcast.getInput();
    if (auto it = acts.find(quantized); it != acts.end())
      return it->second;
    std::optional<ActQuant> quant = getActQuant(quantized.getType());
    if (!quant)
      return unsupported("an input is not quantized per tensor to 8 bits");
    OpBuilder b(def);
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
    Act act{value, *quant};
    acts[quantized] = act;
    return act;
  }
  if (def && isDataMovement(def)) {
    Lowered<Act> input = getAct(def->getOperand(0));
    if (!input)
      return input.takeError();
    OpBuilder b(def);
    mlir::IRMapping mapping;
    mapping.map(def->getOperand(0), input->value);
    if (auto pad = llvm::dyn_cast<tosa::PadOp>(def))
      mapping.map(pad.getPadConst(),
                  zeroPoint(b, def->getLoc(), b.getIntegerType(8),
                            input->quant.zeroPoint));
    Operation *replay = b.clone(*def, mapping);
    replay->getResult(0).setType(
        withElement(floatValue.getType(), b.getIntegerType(8)));
    Act act{replay->getResult(0), input->quant};
    acts[floatValue] = act;
    return act;
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

/// Checks that each op of `ops` consumes the result of the previous one.
llvm::Error checkChain(ArrayRef<Operation *> ops) {
  for (size_t i = 1; i < ops.size(); ++i)
    if (!llvm::is_contained(ops[i]->getOperands(), ops[i - 1]->getResult(0)))
      return unsupported("the pattern's ops are not a chain");
  return llvm::Error::success();
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
    // qnnpack quantizes the bias with the float32 scale s_in * s_w.
    double q =
        mode == Requantization::Qnnpack
            ? std::nearbyint(
                  static_cast<float>(biasOf(c)) /
                  static_cast<float>(input->quant.scale * scaleOf(c)))
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

/// `q - zp` of an int8-domain value, as float32 (exact).
Value centeredAsFloat(OpBuilder &b, Location loc, const Act &act) {
  auto type = withElement(act.value.getType(), b.getF32Type());
  Value value = tosa::CastOp::create(b, loc, type, act.value);
  return tosa::SubOp::create(b, loc, type, value,
                             channelConstant(b, loc, type.getRank(),
                                             ArrayRef<float>{static_cast<float>(
                                                 act.quant.zeroPoint)}));
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
    zp = tosa::SubOp::create(b, loc, scalarI32, zp,
                             splat(scalarI32, b.getI32IntegerAttr(128)));
    q = QuantizeOp::create(b, loc, qType.clone(i8), quantize.getInput(),
                           quantize.getScale(), zp);
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

  // The float epilogue, in PyTorch's order.
  Type f32 = resultType.getElementType();
  Value accFloat = tosa::CastOp::create(b, loc, resultType, acc);
  auto scalesType = RankedTensorType::get(
      {1, 1, static_cast<int64_t>(cq->scales.size())}, f32);
  SmallVector<float> weightScales(cq->scales.begin(), cq->scales.end());
  Value scale3 =
      tosa::ReshapeOp::create(b, loc, RankedTensorType::get({1, 1, 1}, f32),
                              input.getScale(), constShape(b, loc, {1, 1, 1}));
  Value scales = tosa::MulOp::create(
      b, loc, scalesType, scale3,
      tosa::ConstOp::create(b, loc, scalesType,
                            mlir::DenseElementsAttr::get(
                                scalesType, ArrayRef<float>(weightScales))),
      noShift(b, loc));
  Value result = tosa::MulOp::create(b, loc, resultType, accFloat, scales,
                                     noShift(b, loc));
  if (bias) {
    auto biasType =
        RankedTensorType::get({1, 1, static_cast<int64_t>(bias->size())}, f32);
    SmallVector<float> values(bias->begin(), bias->end());
    result = tosa::AddOp::create(
        b, loc, resultType, result,
        tosa::ConstOp::create(
            b, loc, biasType,
            mlir::DenseElementsAttr::get(biasType, ArrayRef<float>(values))));
  }
  for (Operation *op : tail) {
    auto clampOp = llvm::cast<tosa::ClampOp>(op);
    result =
        tosa::ClampOp::create(b, loc, resultType, result,
                              clampOp.getMinValAttr(), clampOp.getMaxValAttr());
  }
  return result;
}

llvm::Error Lowering::lowerRecurrentBody(CompositeOp composite) {
  SmallVector<tosa::MatMulOp> matmuls;
  composite.getBody().walk(
      [&](tosa::MatMulOp matmul) { matmuls.push_back(matmul); });
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
    OpBuilder b(last);
    Lowered<Value> result = lowerDynamicMatmul(b, body, input);
    if (!result)
      return result.takeError();
    last->getResult(0).replaceAllUsesWith(*result);
  }
  eraseDeadOps(composite.getBody().front());
  return llvm::Error::success();
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
  if (requantization == Requantization::OneDnn) {
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
      sum =
          tosa::AddOp::create(b, loc, floatType, dequantizeAsFma(b, loc, *lhs),
                              dequantizeAsFma(b, loc, *rhs));
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
  if (llvm::isa<CompositeOp>(main))
    return lowerPool3d(b, body, out);
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
  auto avg = llvm::cast<tosa::AvgPool2dOp>(main);
  if (llvm::any_of(avg.getPad(), [](int64_t p) { return p != 0; })) {
    // The count varies at the borders: TOSA's average (which rounds ties
    // up, where PyTorch rounds them to even).
    Value zp = zeroPoint(b, loc, b.getIntegerType(8), input->quant.zeroPoint);
    Value pooled = tosa::AvgPool2dOp::create(
        b, loc, type, input->value, zp, zp, avg.getKernelAttr(),
        avg.getStrideAttr(), avg.getPadAttr(),
        mlir::TypeAttr::get(b.getIntegerType(32)));
    return requantize(b, loc, Act{pooled, input->quant}, out);
  }
  return averageWithoutPadding(b, loc, avg, *input, out);
}

/// An int32 splat of the rank of `like`, to broadcast against it.
Value splatLike(OpBuilder &b, Location loc, Type like, int64_t value) {
  SmallVector<int64_t> ones(llvm::cast<RankedTensorType>(like).getRank(), 1);
  auto type = RankedTensorType::get(ones, b.getIntegerType(32));
  return tosa::ConstOp::create(
      b, loc, type,
      mlir::DenseElementsAttr::get(type, static_cast<int32_t>(value)));
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
  Value q = tosa::IntDivOp::create(b, loc, type, num, splat(2 * count));
  Value back =
      tosa::MulOp::create(b, loc, type, q, splat(2 * count), noShift(b, loc));
  Value tie = tosa::EqualOp::create(b, loc, withElement(type, b.getI1Type()),
                                    back, num);
  Value odd = tosa::BitwiseAndOp::create(b, loc, type, q, splat(1));
  Value down = tosa::SelectOp::create(b, loc, type, tie, odd, splat(0));
  return tosa::SubOp::create(
      b, loc, type, tosa::SubOp::create(b, loc, type, q, down), splat(bound));
}

Lowered<Value> Lowering::averageWithoutPadding(OpBuilder &b, Location loc,
                                               tosa::AvgPool2dOp avg,
                                               const Act &input,
                                               const ActQuant &out) {
  // The window sums of x - zero point: a depthwise convolution with ones,
  // requantized with the window's size where the scales differ.
  Type i8 = b.getIntegerType(8), i32 = b.getIntegerType(32);
  ArrayRef<int64_t> kernel = avg.getKernel();
  int64_t channels =
      llvm::cast<RankedTensorType>(input.value.getType()).getShape().back();
  auto onesType =
      RankedTensorType::get({kernel[0], kernel[1], channels, 1}, i8);
  Value ones = tosa::ConstOp::create(
      b, loc, onesType,
      mlir::DenseElementsAttr::get(onesType, b.getIntegerAttr(i8, 1)));
  int64_t count = kernel[0] * kernel[1];
  Attribute epilogue;
  Type resultElement = i32;
  if (input.quant.scale != out.scale) {
    auto multipliers =
        getMultipliers({input.quant.scale / (count * out.scale)});
    if (!multipliers)
      return multipliers.takeError();
    MLIRContext *context = b.getContext();
    epilogue = RescaleAttr::get(
        context, 0, mlir::DenseI32ArrayAttr::get(context, {}),
        mlir::DenseI32ArrayAttr::get(context, multipliers->first),
        mlir::DenseI32ArrayAttr::get(context, multipliers->second),
        out.zeroPoint, kInt8Min, kInt8Max);
    resultElement = i8;
  }
  Value sum = ContractOp::create(
      b, loc, withElement(avg.getType(), resultElement),
      ContractionKind::DepthwiseConv2d, input.value, ones, /*bias=*/nullptr,
      input.quant.zeroPoint, 0, avg.getPadAttr(), avg.getStrideAttr(),
      b.getDenseI64ArrayAttr({1, 1}), epilogue);
  if (epilogue)
    return sum;
  // Same scale: (x - zp) averaged, rounded half to even, plus zp, as
  // PyTorch's quantized average pooling (|x - zp| <= 255).
  return rescale(b, loc, roundedQuotient(b, loc, sum, count, /*bound=*/256),
                 {1.0}, 0, out.zeroPoint, i8);
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

Lowered<Value> Lowering::lowerMean(OpBuilder &b, PatternBody &body,
                                   const ActQuant &out) {
  if (body.ops.size() != 1)
    return unsupported("a fused mean is not supported");
  auto mean = llvm::cast<CompositeOp>(body.ops.front());
  Location loc = body.root->getLoc();
  Lowered<SmallVector<int64_t>> axes = getMeanAxes(mean);
  if (!axes)
    return axes.takeError();
  // `averages_integers = false`: PyTorch dequantizes, averages in float and
  // quantizes to the input's qparams (its mean over other dimensions than
  // H and W of a channels-last tensor).
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
/// it and a tosa.reduce_sum), divided with ties to even as PyTorch's
/// quantized kernels do: avg_pool3d averages q - zp, adaptive_avg_pool3d the
/// stored integers (so the int8 domain's, its offset being even). The output
/// keeps the input's qparams.
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
  Lowered<Act> input = getAct(body.external(pool.getInputs().front()));
  if (!input)
    return input.takeError();
  if (!input->quant.sameAs(out))
    return unsupported(pool.getName().str() +
                       " keeps its input's qparams; the output has others");
  bool centered = pool.isFamily(CompositeFamily::AvgPool3d);
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
  Type sumType = sum.getType();
  int64_t zp = input->quant.zeroPoint;
  if (centered)
    sum = tosa::SubOp::create(b, loc, sumType, sum,
                              splatLike(b, loc, sumType, count * zp));
  Value average =
      roundedQuotient(b, loc, sum, count, /*bound=*/centered ? 256 : 128);
  if (centered)
    average = tosa::AddOp::create(b, loc, sumType, average,
                                  splatLike(b, loc, sumType, zp));
  return rescale(b, loc, average, {1.0}, 0, 0, b.getIntegerType(8));
}

Lowered<Value> Lowering::lowerConcat(OpBuilder &b, PatternBody &body,
                                     const ActQuant &out) {
  auto concat = llvm::cast<tosa::ConcatOp>(body.ops.front());
  if (body.ops.size() != 1)
    return unsupported("a fused concat is not supported");
  Location loc = body.root->getLoc();
  SmallVector<Value> inputs;
  for (Value operand : concat.getInput1()) {
    Lowered<Act> input = getAct(body.external(operand));
    if (!input)
      return input.takeError();
    Lowered<Value> value = requantize(b, loc, *input, out);
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
/// H and W): each int8 input dequantized as PyTorch dequantizes,
/// the pattern's float ops as the reference model has them, the result
/// quantized as quantize_per_tensor (x * (1 / s) rounded half to even, plus
/// the zero point, saturated). The float ops are not PyTorch's own kernels
/// (another summation order, another exp), so an output can differ from
/// PyTorch's by one step where its exact value lies at a rounding boundary.
Lowered<Value> Lowering::lowerInFloat(OpBuilder &b, PatternBody &body,
                                      const ActQuant &out) {
  Location loc = body.root->getLoc();
  Lowered<Value> result = cloneInFloat(
      b, body, [&](const Act &act) { return dequantizeAsFma(b, loc, act); });
  if (!result)
    return result.takeError();
  auto type = llvm::cast<RankedTensorType>(result->getType());
  Value scaled = tosa::MulOp::create(
      b, loc, type, *result,
      channelConstant(b, loc, type.getRank(),
                      ArrayRef<float>{1.0f / static_cast<float>(out.scale)}),
      noShift(b, loc));
  return roundToInt8(b, loc, scaled, out.zeroPoint, {kInt8Min, kInt8Max});
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

/// The pattern's float ops cloned onto `toFloat` of each int8 input (the
/// constants of a fused body cloned with them); the float result. `check`
/// may refuse an input before anything is built.
Lowered<Value>
Lowering::cloneInFloat(OpBuilder &b, PatternBody &body,
                       const std::function<Value(const Act &)> &toFloat,
                       const std::function<llvm::Error(const Act &)> &check) {
  llvm::SmallPtrSet<Operation *, 4> inPattern(body.ops.begin(), body.ops.end());
  llvm::SmallVector<std::pair<Value, Act>> inputs;
  llvm::SmallVector<Operation *> constants;
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
      Lowered<Act> input = getAct(body.external(operand));
      if (!input)
        return input.takeError();
      if (check)
        if (llvm::Error e = check(*input))
          return std::move(e);
      inputs.push_back({operand, *input});
    }
  mlir::IRMapping floats;
  for (Operation *constant : constants)
    floats.map(constant->getResult(0), b.clone(*constant)->getResult(0));
  for (auto &[operand, act] : inputs)
    floats.map(operand, toFloat(act));
  for (Operation *op : body.ops)
    b.clone(*op, floats);
  return floats.lookup(body.ops.back()->getResult(0));
}

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
  auto &[lines, lineShift] = *fitted;
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
  // the output.
  int64_t outShift = out.isUnsigned ? 128 : 0;
  QuantRange storage{kInt8Min + outShift, kInt8Max + outShift};
  SmallVector<int8_t> tables;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t q = kInt8Min; q <= kInt8Max; ++q) {
      float x = dequantizeValue(q, input->quant.scale, input->quant.zeroPoint);
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

struct QFXLowerReferencePass
    : qfx::impl::QFXLowerReferenceBase<QFXLowerReferencePass> {
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
