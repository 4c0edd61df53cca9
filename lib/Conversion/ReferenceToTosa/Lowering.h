//===- Lowering.h - qfx-lower's int8 lowerings, shared --------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The state and the helpers qfx-lower's lowerings share: the files of this
// folder each define the lowerings of some kinds (ReferenceToTosa.cpp the
// pass, its dispatch and the weight-only lowerings).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_CONVERSION_REFERENCETOTOSA_LOWERING_H
#define QFX_LIB_CONVERSION_REFERENCETOTOSA_LOWERING_H

#include "qfx/Conversion/FloatQParams.h"
#include "qfx/Conversion/ReferenceToTosa/ReferenceToTosa.h"
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
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

namespace qfx::lowering {

using mlir::DenseI64ArrayAttr;
using mlir::RankedTensorType;
namespace quant = mlir::quant;
namespace tosa = mlir::tosa;
using namespace qfx::tosa_builders;

inline constexpr int64_t kInt8Min = -128;
inline constexpr int64_t kInt8Max = 127;

/// A lowered value, or why the pattern cannot be lowered (the reason goes
/// into the "runs in float" remark).
template <typename T> using Lowered = llvm::Expected<T>;

inline llvm::Error unsupported(const llvm::Twine &reason) {
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
std::optional<ActQuant> getActQuant(Type type);

/// Records on the op defining `value` (an int8-domain tensor) the quantized
/// type it stands for, for `quant-run --compare`.
void markQuantized(Value value, const ActQuant &quant);

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

inline RankedTensorType withElement(Type type, Type element) {
  return llvm::cast<RankedTensorType>(type).clone(element);
}

/// The float values of a constant (through reshapes), if `value` is one.
std::optional<std::vector<double>> getFloatConstant(Value value);

/// The float value of a splat float constant.
std::optional<float> getSplat(Value value);

/// True for ops that move elements without changing them: they run on the
/// integers as they are (a padding with float zeros, a tosa.pad or an
/// origin-less concat of one value and zero constants, pads with the zero
/// point, which stands for 0.0 exactly).
bool isDataMovement(Operation *op);

/// The operand a data-movement op moves: operand 0, or the padded operand of
/// a zero-padding concat.
Value getMovedOperand(Operation *op);

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

/// A weight-only embedding's lookup as PyTorch's quantized embedding kernels
/// compute it, its table stored quantized (see WeightOnly.cpp).
Lowered<Value> lowerWeightOnlyEmbedding(OpBuilder &b, CompositeOp composite);

/// Erases the ops of `block` whose results are unused and that have no side
/// effects, latest first.
void eraseDeadOps(mlir::RewriterBase &rewriter, Block &block);

/// The int8 lowerings of one pattern application. Every op they create goes
/// through `listener` (the pattern's record of what to erase if the lowering
/// fails).
class Lowering {
public:
  Lowering(Requantization requantization, OpBuilder::Listener *listener)
      : requantization(requantization), listener(listener) {}

  /// A recurrent composite's dynamically quantized body (qfx-prepare's
  /// observeRecurrentBody): each matmul (and the bias add after it) whose
  /// input is quantized at run time becomes a dynamic matmul, as PyTorch's
  /// quantized LSTM computes each projection; the cell stays float. Returns
  /// the values to replace (none: nothing to lower); the IR is unchanged
  /// until the caller replaces them.
  Lowered<SmallVector<std::pair<Value, Value>>>
  lowerRecurrentBody(CompositeOp composite);

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
  Lowered<Value> requantizeAsTorch(OpBuilder &b, Location loc, Act act,
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
  Lowered<Value> average(OpBuilder &b, Location loc, tosa::AvgPool2dOp avg,
                         const Act &input, const ActQuant &out);
  Lowered<Act> getPoolInput(PatternBody &body, CompositeOp pool,
                            const ActQuant &out);
  Lowered<Value> lowerUnevenPool(OpBuilder &b, PatternBody &body,
                                 const ActQuant &out);
  Lowered<Value> averageAsChannelsLastKernel(OpBuilder &b, Location loc,
                                             tosa::AvgPool2dOp avg,
                                             const Act &input,
                                             const ActQuant &out);
  Lowered<Value> averageAsContiguousKernel(OpBuilder &b, Location loc,
                                           tosa::AvgPool2dOp avg,
                                           const Act &input, bool adaptive,
                                           const ActQuant &out);
  Lowered<Value> averageAsQnnpackKernel(OpBuilder &b, Location loc,
                                        tosa::AvgPool2dOp avg, const Act &input,
                                        const ActQuant &out);
  Lowered<Value> lowerMean(OpBuilder &b, PatternBody &body,
                           const ActQuant &out);
  Lowered<Value> averageAsQnnpackMean(OpBuilder &b, CompositeOp mean,
                                      ArrayRef<int64_t> axes, PatternBody &body,
                                      const ActQuant &out);
  Lowered<Value> lowerConcat(OpBuilder &b, PatternBody &body,
                             const ActQuant &out);
  Lowered<Value> lowerPool3d(OpBuilder &b, PatternBody &body,
                             const ActQuant &out);
  Lowered<Value> lowerInFloat(OpBuilder &b, PatternBody &body,
                              const ActQuant &out);
  Lowered<Value> addAsQnnpack(OpBuilder &b, Location loc, const Act &lhs,
                              const Act &rhs, const ActQuant &out,
                              std::pair<int64_t, int64_t> range);
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

  Requantization requantization;
  OpBuilder::Listener *listener;

  /// Set by a lowering whose output qparams are its own (PyTorch's add and
  /// mul with a scalar), not the observer's.
  std::optional<ActQuant> resultQuant;
};

/// A lowering of a pattern: its int8-domain output.
using LowerFn = Lowered<Value> (Lowering::*)(OpBuilder &, PatternBody &,
                                             const ActQuant &);

/// Checks that each op of `ops` consumes the result of the previous one.
llvm::Error checkChain(ArrayRef<Operation *> ops);

/// tosa.rescale's 32-bit multipliers and shifts of `scales`.
Lowered<std::pair<SmallVector<int32_t>, SmallVector<int32_t>>>
getMultipliers(ArrayRef<double> scales);

/// `values` as an array attribute, one value if all are equal.
mlir::DenseF32ArrayAttr perChannelAttr(MLIRContext *context,
                                       SmallVector<float> values);
mlir::DenseI32ArrayAttr perChannelAttr(MLIRContext *context,
                                       SmallVector<int32_t> values);

/// `q - zp` of an int8-domain value, as float32 (exact).
Value centeredAsFloat(OpBuilder &b, Location loc, const Act &act);

/// PyTorch's vectorized dequantization of an int8-domain value,
/// fma(s, q, s * -z) in float32, without a fused multiply-add (see
/// Values.cpp): what its x86 add kernel computes.
Value dequantizeAsFma(OpBuilder &b, Location loc, const Act &act);

/// PyTorch's Tensor.dequantize() of an int8-domain value: (q - z) * s,
/// rounded once (see Values.cpp).
Value dequantizeAsTensor(OpBuilder &b, Location loc, const Act &act);

/// PyTorch's quantize_per_tensor of a float32 `value` to `out`: times
/// float32 1 / scale, rounded half to even, plus the zero point, saturated
/// (its fbgemm quantizer, LEGACY off).
Value quantizeAsTensor(OpBuilder &b, Location loc, Value value,
                       const ActQuant &out);

/// Looks up each element of the int8 `input` of channel c (along `axis`) in
/// the c-th 256-entry table of `tables` (see Tables.cpp).
Value lookUpPerChannel(OpBuilder &b, Location loc, Value input, int64_t axis,
                       ArrayRef<int8_t> tables);

} // namespace qfx::lowering

#endif // QFX_LIB_CONVERSION_REFERENCETOTOSA_LOWERING_H
