//===- QuantizableOpInterface.cpp - What quantizing an op needs -----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The interface's models for the TOSA ops qfx quantizes: one row per op.
// qfx.composite implements the interface from its name (QFXOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"

#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.cpp.inc"

using namespace qfx;
namespace tosa = mlir::tosa;

std::optional<std::function<int64_t(int64_t)>>
qfx::getWeightChannelOf(QuantizableOpInterface op) {
  std::optional<unsigned> index = op.getWeightOperandIndex();
  llvm::SmallVector<int64_t> axes = op.getWeightChannelAxes();
  if (!index || axes.empty())
    return std::nullopt;
  auto type =
      llvm::dyn_cast<mlir::RankedTensorType>(op->getOperand(*index).getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  // Element n has coordinates n / stride[d] % size[d]; the channel is the
  // row-major index of its coordinates along `axes`.
  llvm::ArrayRef<int64_t> shape = type.getShape();
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  for (int64_t axis : axes)
    if (axis < 0 || axis >= type.getRank())
      return std::nullopt;
  return [shape = llvm::to_vector(shape), strides, axes](int64_t n) {
    int64_t channel = 0;
    for (int64_t axis : axes)
      channel = channel * shape[axis] + n / strides[axis] % shape[axis];
    return channel;
  };
}

namespace {

/// The row of an op with a weight (operand 1) and, if `hasBias`, a bias
/// (operand 2): its weight's output-channel axes and PyTorch's weight axes in
/// its TOSA layout, and whether a batch norm before a ReLU folds into it
/// (see QuantizableOpInterface). Its int8 lowering is a contraction.
struct WeightedRow {
  bool hasBias;
  llvm::ArrayRef<int64_t> channelAxes, torchAxes;
  bool foldsBatchNormBeforeReLU = true;
};

constexpr int64_t kAxis0[] = {0}, kAxis2[] = {2}, kAxes23[] = {2, 3};
// conv2d: PyTorch [O, I, KH, KW], TOSA [O, KH, KW, I].
constexpr int64_t kConv2dTorch[] = {0, 3, 1, 2};
constexpr WeightedRow kConv2d{true, kAxis0, kConv2dTorch};
// depthwise_conv2d: PyTorch [C*M, 1, KH, KW], TOSA [KH, KW, C, M]; output
// channel c * M + m.
constexpr int64_t kDepthwiseTorch[] = {2, -1, 0, 1};
constexpr WeightedRow kDepthwise{true, kAxes23, kDepthwiseTorch};
// conv3d: PyTorch [O, I, KD, KH, KW], TOSA [O, KD, KH, KW, I].
constexpr int64_t kConv3dTorch[] = {0, 4, 1, 2, 3};
constexpr WeightedRow kConv3d{true, kAxis0, kConv3dTorch};
// transpose_conv2d: PyTorch [I, O, KH, KW], TOSA [O, KH, KW, I].
constexpr int64_t kTransposeTorch[] = {3, 0, 1, 2};
constexpr WeightedRow kTransposeConv2d{true, kAxis0, kTransposeTorch,
                                       /*foldsBatchNormBeforeReLU=*/false};
// matmul (a Linear): PyTorch [OUT, IN], TOSA [1, IN, OUT]; the bias is the
// tosa.add that follows.
constexpr int64_t kMatmulTorch[] = {2, 1};
constexpr WeightedRow kMatmul{false, kAxis2, kMatmulTorch};

template <typename OpT, const WeightedRow &Row>
struct WeightedModel
    : QuantizableOpInterface::ExternalModel<WeightedModel<OpT, Row>, OpT> {
  std::optional<unsigned> getWeightOperandIndex(mlir::Operation *) const {
    return 1;
  }
  std::optional<unsigned> getBiasOperandIndex(mlir::Operation *) const {
    return Row.hasBias ? std::optional<unsigned>(2) : std::nullopt;
  }
  llvm::SmallVector<int64_t> getWeightChannelAxes(mlir::Operation *) const {
    return llvm::to_vector(Row.channelAxes);
  }
  llvm::SmallVector<int64_t> getTorchWeightAxes(mlir::Operation *) const {
    return llvm::to_vector(Row.torchAxes);
  }
  std::optional<LoweringKind> getInt8Lowering(mlir::Operation *) const {
    return LoweringKind::Contraction;
  }
  bool foldsBatchNormBeforeReLU(mlir::Operation *) const {
    return Row.foldsBatchNormBeforeReLU;
  }
};

/// An op without weights, lowered by `Kind`; `TakesOutputQParams`: see
/// QuantizableOpInterface::takesOutputQParams.
template <typename OpT, LoweringKind Kind, bool TakesOutputQParams>
struct LoweredModel : QuantizableOpInterface::ExternalModel<
                          LoweredModel<OpT, Kind, TakesOutputQParams>, OpT> {
  std::optional<LoweringKind> getInt8Lowering(mlir::Operation *) const {
    return Kind;
  }
  bool takesOutputQParams(mlir::Operation *) const {
    return TakesOutputQParams;
  }
};

template <LoweringKind Kind, bool TakesOutputQParams, typename... OpTs>
void attach(mlir::MLIRContext *context) {
  (OpTs::template attachInterface<LoweredModel<OpTs, Kind, TakesOutputQParams>>(
       *context),
   ...);
}

} // namespace

void qfx::registerQuantizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry) {
  registry.addExtension(+[](mlir::MLIRContext *context, tosa::TosaDialect *) {
    tosa::Conv2DOp::attachInterface<WeightedModel<tosa::Conv2DOp, kConv2d>>(
        *context);
    tosa::DepthwiseConv2DOp::attachInterface<
        WeightedModel<tosa::DepthwiseConv2DOp, kDepthwise>>(*context);
    tosa::Conv3DOp::attachInterface<WeightedModel<tosa::Conv3DOp, kConv3d>>(
        *context);
    tosa::TransposeConv2DOp::attachInterface<
        WeightedModel<tosa::TransposeConv2DOp, kTransposeConv2d>>(*context);
    tosa::MatMulOp::attachInterface<WeightedModel<tosa::MatMulOp, kMatmul>>(
        *context);
    attach<LoweringKind::Binary, true, tosa::AddOp, tosa::MulOp>(context);
    // PyTorch's pools, ReLUs, hardtanh and clamp, cat, sigmoid and tanh keep
    // their input's qparams or have fixed ones.
    attach<LoweringKind::Pool, false, tosa::MaxPool2dOp, tosa::AvgPool2dOp>(
        context);
    attach<LoweringKind::Concat, false, tosa::ConcatOp>(context);
    // Unary elementwise ops: a 256-entry table of the float op.
    attach<LoweringKind::Table, false, tosa::SigmoidOp, tosa::TanhOp,
           tosa::ClampOp>(context);
    attach<LoweringKind::Table, true, tosa::ExpOp, tosa::LogOp, tosa::ErfOp,
           tosa::AbsOp, tosa::FloorOp, tosa::CeilOp, tosa::NegateOp,
           tosa::ReciprocalOp, tosa::RsqrtOp>(context);
    // Ops that move elements without changing them: PyTorch's shape ops
    // (reshape, view, flatten, transpose, permute, repeat, Identity) run on
    // the quantized tensor; slicing and flipping in float, then quantize.
    attach<LoweringKind::DataMovement, false, tosa::ReshapeOp,
           tosa::TransposeOp, tosa::TileOp, tosa::IdentityOp>(context);
    attach<LoweringKind::DataMovement, true, tosa::SliceOp, tosa::ReverseOp>(
        context);
  });
}
