//===- Composites.cpp - The registry of qfx.composite ops -----------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// One entry per composite name the exporter writes. Adding an op PyTorch
// quantizes with an elementwise body (an activation) is one entry here and
// its exporter entry: the backend tables' row, the verifier and the int8
// lowering (a table of the body) follow from the entry.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/Composites.h"
#include "qfx/Numerics/Activations.h"

#include "llvm/ADT/StringMap.h"

using namespace qfx;
using llvm::StringLiteral;

namespace {

using Kind = CompositeAttrKind;

// Attribute schemas.
constexpr CompositeAttr kBatchNormAttrs[] = {
    {"axis", Kind::Integer, true},
    {"eps", Kind::Float, true},
    {"running_mean", Kind::FloatElements, true},
    {"running_var", Kind::FloatElements, true},
    {"weight", Kind::FloatElements, false},
    {"bias", Kind::FloatElements, false}};
constexpr CompositeAttr kLayerNormAttrs[] = {
    {"axes", Kind::IntegerArray, true},
    {"eps", Kind::Float, true},
    {"weight", Kind::FloatElements, false},
    {"bias", Kind::FloatElements, false},
    {"torch_order", Kind::Bool, false}};
constexpr CompositeAttr kGroupNormAttrs[] = {
    {"axis", Kind::Integer, true},
    {"groups", Kind::Integer, true},
    {"eps", Kind::Float, true},
    {"weight", Kind::FloatElements, false},
    {"bias", Kind::FloatElements, false}};
constexpr CompositeAttr kMeanAttrs[] = {
    {"axes", Kind::IntegerArray, true},
    {"keepdim", Kind::Bool, false},
    {"averages_integers", Kind::Bool, false},
    {"torch_dims", Kind::IntegerArray, false},
    {"torch_strides", Kind::IntegerArray, false}};
constexpr CompositeAttr kPool3dAttrs[] = {{"kernel", Kind::IntegerArray, true},
                                          {"channels_last", Kind::Bool, false}};
constexpr CompositeAttr kEmbeddingBagAttrs[] = {{"mode", Kind::String, true}};
constexpr CompositeAttr kSoftmaxAttrs[] = {{"axis", Kind::Integer, true},
                                           {"last_dim", Kind::Bool, false}};
constexpr CompositeAttr kInterpolateAttrs[] = {
    {"mode", Kind::String, true}, {"align_corners", Kind::Bool, true}};
constexpr CompositeAttr kConvTranspose3dAttrs[] = {
    {"stride", Kind::IntegerArray, false},
    {"padding", Kind::IntegerArray, false},
    {"output_padding", Kind::IntegerArray, false}};
constexpr CompositeAttr kLeakyReLUAttrs[] = {
    {"negative_slope", Kind::Float, false}};
constexpr CompositeAttr kELUAttrs[] = {{"alpha", Kind::Float, false}};
constexpr CompositeAttr kDivAttrs[] = {{"divisor", Kind::Float, false}};

// Weight axes.
constexpr int64_t kAxis0[] = {0};
constexpr int64_t kEmbeddingTorchAxes[] = {0, 1};
// PyTorch's [I, O, KD, KH, KW] as [O, KD, KH, KW, I].
constexpr int64_t kConvTranspose3dTorchAxes[] = {4, 0, 1, 2, 3};
constexpr int64_t kConvTranspose3dRanks[] = {5, 5, 1};

// PyTorch's ops each composite stands for in its backend tables.
constexpr StringLiteral kHardsigmoidOps[] = {
    "torch.nn.Hardsigmoid", "torch.nn.functional.hardsigmoid",
    "Tensor.hardsigmoid", "Tensor.hardsigmoid_"};
constexpr StringLiteral kHardswishOps[] = {"torch.nn.Hardswish",
                                           "torch.nn.functional.hardswish"};
constexpr StringLiteral kELUOps[] = {"torch.nn.ELU", "torch.nn.functional.elu"};
constexpr StringLiteral kLeakyReLUOps[] = {"torch.nn.LeakyReLU",
                                           "torch.nn.functional.leaky_relu"};
constexpr StringLiteral kPReLUOps[] = {"torch.nn.PReLU"};
constexpr StringLiteral kMatmulOps[] = {"torch.matmul"};
constexpr StringLiteral kSoftmaxOps[] = {"torch.nn.Softmax"};
constexpr StringLiteral kLayerNormOps[] = {"torch.nn.LayerNorm",
                                           "torch.nn.functional.layer_norm"};
constexpr StringLiteral kInterpolateOps[] = {"torch.nn.functional.interpolate"};
// PyTorch quantizes F.group_norm; nn.GroupNorm is a leaf to FX.
constexpr StringLiteral kGroupNormOps[] = {"torch.nn.functional.group_norm"};
constexpr StringLiteral kInstanceNorm1dOps[] = {
    "torch.nn.InstanceNorm1d", "torch.nn.functional.instance_norm"};
constexpr StringLiteral kInstanceNorm2dOps[] = {
    "torch.nn.InstanceNorm2d", "torch.nn.functional.instance_norm"};
constexpr StringLiteral kInstanceNorm3dOps[] = {
    "torch.nn.InstanceNorm3d", "torch.nn.functional.instance_norm"};
constexpr StringLiteral kEmbeddingOps[] = {"torch.nn.Embedding"};
constexpr StringLiteral kEmbeddingBagOps[] = {"torch.nn.EmbeddingBag"};
constexpr StringLiteral kLSTMOps[] = {"torch.nn.LSTM"};
constexpr StringLiteral kLSTMCellOps[] = {"torch.nn.LSTMCell"};
constexpr StringLiteral kGRUCellOps[] = {"torch.nn.GRUCell"};
constexpr StringLiteral kRNNCellOps[] = {"torch.nn.RNNCell"};
constexpr StringLiteral kBatchNorm2dOps[] = {"torch.nn.BatchNorm2d"};
constexpr StringLiteral kBatchNorm3dOps[] = {"torch.nn.BatchNorm3d"};
constexpr StringLiteral kMeanOps[] = {"torch.mean", "Tensor.mean"};
constexpr StringLiteral kAvgPool3dOps[] = {"torch.nn.AvgPool3d",
                                           "torch.nn.functional.avg_pool3d"};
constexpr StringLiteral kAdaptiveAvgPool3dOps[] = {
    "torch.nn.AdaptiveAvgPool3d", "torch.nn.functional.adaptive_avg_pool3d"};
constexpr StringLiteral kAdaptiveAvgPool2dOps[] = {
    "torch.nn.AdaptiveAvgPool1d", "torch.nn.AdaptiveAvgPool2d",
    "torch.nn.functional.adaptive_avg_pool1d",
    "torch.nn.functional.adaptive_avg_pool2d"};
constexpr StringLiteral kConvTranspose3dOps[] = {"torch.nn.ConvTranspose3d"};

/// An entry of `family` lowered by `lowering`.
CompositeInfo entry(StringLiteral name, CompositeFamily family,
                    std::optional<LoweringKind> lowering) {
  CompositeInfo info;
  info.name = name;
  info.family = family;
  info.lowering = lowering;
  return info;
}

/// The same, with the built-in tables' row: `group`'s dtype configs for
/// `torchOps`.
CompositeInfo row(StringLiteral name, CompositeFamily family,
                  LoweringKind lowering, OpGroup group,
                  llvm::ArrayRef<StringLiteral> torchOps) {
  CompositeInfo info = entry(name, family, lowering);
  info.group = group;
  info.torchOps = torchOps;
  return info;
}

std::vector<CompositeInfo> makeComposites() {
  using F = CompositeFamily;
  using L = LoweringKind;
  std::vector<CompositeInfo> result;
  auto add = [&](CompositeInfo info) -> CompositeInfo & {
    result.push_back(info);
    return result.back();
  };

  // Activations: a table of the body. Fixed qparams [0, 1] for
  // Hardsigmoid.
  CompositeInfo &hardsigmoid =
      add(row("torch.nn.Hardsigmoid", F::Elementwise, L::Table,
              OpGroup::FixedQParams, kHardsigmoidOps));
  hardsigmoid.fixedRange0To1 = true;
  hardsigmoid.takesOutputQParams = false;
  hardsigmoid.qnnpackKernel = hardsigmoidAsQnnpack;
  add(row("torch.nn.Hardswish", F::Elementwise, L::Table, OpGroup::Default,
          kHardswishOps))
      .qnnpackKernel = hardswishAsQnnpack;
  add(row("torch.nn.ELU", F::Elementwise, L::Table, OpGroup::Default, kELUOps))
      .attributes = kELUAttrs;
  add(row("torch.nn.LeakyReLU", F::Elementwise, L::Table, OpGroup::Default,
          kLeakyReLUOps))
      .attributes = kLeakyReLUAttrs;
  // Its slopes are constants of the body (PyTorch 1.13 has no functional
  // pattern for it): one table per channel.
  add(row("torch.nn.PReLU", F::Elementwise, L::Table, OpGroup::Default,
          kPReLUOps));
  // PyTorch 1.13's tables leave these float; a user's row lowers them as
  // tables.
  add(entry("torch.nn.SiLU", F::Elementwise, L::Table));
  add(entry("torch.nn.GELU", F::Elementwise, L::Table)).floatKernel =
      geluAsPyTorch;
  // True division (PyTorch's tables leave it float): of one input by the
  // number `divisor`, or of two inputs; a user's row computes it in float
  // between a dequantize and a quantize.
  add(entry("torch.div", F::Division, L::FloatKernel)).attributes = kDivAttrs;

  // PyTorch's kernels that dequantize, compute in float and quantize: matmul
  // of two activations (a binary op to PyTorch, without a scalar operand;
  // the pattern tosa.matmul is Linear's), softmax (fixed qparams [0, 1]).
  add(row("torch.matmul", F::Matmul, L::FloatKernel, OpGroup::Binary,
          kMatmulOps))
      .scalarOperand = false;
  CompositeInfo &softmax =
      add(row("torch.nn.Softmax", F::Softmax, L::FloatKernel,
              OpGroup::FixedQParams, kSoftmaxOps));
  softmax.fixedRange0To1 = true;
  softmax.attributes = kSoftmaxAttrs;
  // Layer and instance norm: PyTorch's quantized_normalize_kernel (layer
  // norm only in native.py's table); group norm a float group_norm between
  // a dequantize and a quantize.
  CompositeInfo &layerNorm =
      add(row("torch.nn.LayerNorm", F::LayerNorm, L::Normalization,
              OpGroup::LayerNorm, kLayerNormOps));
  layerNorm.nativeOnly = true;
  layerNorm.attributes = kLayerNormAttrs;
  add(row("torch.nn.GroupNorm", F::GroupNorm, L::FloatKernel, OpGroup::Default,
          kGroupNormOps))
      .attributes = kGroupNormAttrs;
  for (auto [name, ops] :
       {std::pair{StringLiteral("torch.nn.InstanceNorm1d"),
                  llvm::ArrayRef<StringLiteral>(kInstanceNorm1dOps)},
        std::pair{StringLiteral("torch.nn.InstanceNorm2d"),
                  llvm::ArrayRef<StringLiteral>(kInstanceNorm2dOps)},
        std::pair{StringLiteral("torch.nn.InstanceNorm3d"),
                  llvm::ArrayRef<StringLiteral>(kInstanceNorm3dOps)}})
    add(row(name, F::InstanceNorm, L::Normalization, OpGroup::Default, ops))
        .attributes = kGroupNormAttrs;
  // Bilinear interpolation (nearest is data movement): PyTorch's kernel
  // interpolates q - zp in float and rounds, keeping the input's qparams.
  CompositeInfo &interpolate =
      add(row("torch.nn.functional.interpolate", F::Interpolate,
              L::CenteredFloat, OpGroup::ShareQParams, kInterpolateOps));
  interpolate.attributes = kInterpolateAttrs;
  interpolate.takesOutputQParams = false;

  // Batch norm that does not follow a conv (qfx-fuse folds it there), alone
  // or with a ReLU.
  for (auto [name, ops, fused] :
       {std::tuple{StringLiteral("torch.nn.BatchNorm2d"),
                   llvm::ArrayRef<StringLiteral>(kBatchNorm2dOps),
                   StringLiteral("bn_relu2d")},
        std::tuple{StringLiteral("torch.nn.BatchNorm3d"),
                   llvm::ArrayRef<StringLiteral>(kBatchNorm3dOps),
                   StringLiteral("bn_relu3d")}}) {
    CompositeInfo &batchNorm =
        add(row(name, F::BatchNorm, L::BatchNorm, OpGroup::Default, ops));
    batchNorm.attributes = kBatchNormAttrs;
    batchNorm.reluFusedOp = fused;
  }
  add(entry("torch.nn.BatchNorm1d", F::BatchNorm, L::BatchNorm)).attributes =
      kBatchNormAttrs;

  // Means and 3-D average pools keep their input's qparams (TOSA has no
  // 3-D pooling).
  CompositeInfo &mean =
      add(row("torch.mean", F::Mean, L::Mean, OpGroup::ShareQParams, kMeanOps));
  mean.attributes = kMeanAttrs;
  mean.takesOutputQParams = false;
  for (auto [name, family, ops] :
       {std::tuple{StringLiteral("torch.nn.AvgPool3d"), F::AvgPool3d,
                   llvm::ArrayRef<StringLiteral>(kAvgPool3dOps)},
        std::tuple{StringLiteral("torch.nn.AdaptiveAvgPool3d"),
                   F::AdaptiveAvgPool3d,
                   llvm::ArrayRef<StringLiteral>(kAdaptiveAvgPool3dOps)}}) {
    CompositeInfo &pool =
        add(row(name, family, L::Pool, OpGroup::ShareQParams, ops));
    pool.attributes = kPool3dAttrs;
    pool.takesOutputQParams = false;
  }

  // An adaptive 2-D pool whose windows differ in size (a 1-D one on
  // [N, 1, L, C]): one op, as PyTorch's, that keeps its input's qparams.
  CompositeInfo &unevenPool =
      add(row("torch.nn.AdaptiveAvgPool2d", F::AdaptiveAvgPool2d, L::Pool,
              OpGroup::ShareQParams, kAdaptiveAvgPool2dOps));
  unevenPool.takesOutputQParams = false;

  // A 3-D transposed conv: a conv3d over the zero-spread input with the
  // kernel reversed, lowered as that conv3d; its weight is PyTorch's
  // [I, O, KD, KH, KW] held as [O, KD, KH, KW, I].
  CompositeInfo &convTranspose3d =
      add(row("torch.nn.ConvTranspose3d", F::ConvTranspose3d, L::WeightedBody,
              OpGroup::Conv, kConvTranspose3dOps));
  convTranspose3d.operandRanks = kConvTranspose3dRanks;
  convTranspose3d.weight = 1;
  convTranspose3d.bias = 2;
  convTranspose3d.weightChannelAxes = kAxis0;
  convTranspose3d.torchWeightAxes = kConvTranspose3dTorchAxes;
  convTranspose3d.attributes = kConvTranspose3dAttrs;
  convTranspose3d.foldsBatchNormBeforeReLU = false;

  // Embeddings (indices, weight [V, D]): the weight quantized per row with
  // float zero points; they stay float, their rows gathered as integers.
  for (auto [name, family, ops] :
       {std::tuple{StringLiteral("torch.nn.Embedding"), F::Embedding,
                   llvm::ArrayRef<StringLiteral>(kEmbeddingOps)},
        std::tuple{StringLiteral("torch.nn.EmbeddingBag"), F::EmbeddingBag,
                   llvm::ArrayRef<StringLiteral>(kEmbeddingBagOps)}}) {
    CompositeInfo &embedding =
        add(row(name, family, L::Embedding, OpGroup::Embedding, ops));
    embedding.weight = 1;
    embedding.weightChannelAxes = kAxis0;
    embedding.torchWeightAxes = kEmbeddingTorchAxes;
    if (family == F::EmbeddingBag)
      embedding.attributes = kEmbeddingBagAttrs;
  }

  // Recurrent modules: a dynamic qconfig quantizes their body's matmuls
  // (qfx-prepare observes inside the body).
  for (auto [name, ops] :
       {std::pair{StringLiteral("torch.nn.LSTM"),
                  llvm::ArrayRef<StringLiteral>(kLSTMOps)},
        std::pair{StringLiteral("torch.nn.LSTMCell"),
                  llvm::ArrayRef<StringLiteral>(kLSTMCellOps)},
        std::pair{StringLiteral("torch.nn.GRUCell"),
                  llvm::ArrayRef<StringLiteral>(kGRUCellOps)},
        std::pair{StringLiteral("torch.nn.RNNCell"),
                  llvm::ArrayRef<StringLiteral>(kRNNCellOps)}})
    add(row(name, F::Recurrent, L::Recurrent, OpGroup::Recurrent, ops));
  add(entry("torch.nn.GRU", F::Recurrent, L::Recurrent));

  // Float in PyTorch's tables, and no int8 form: nn.MultiheadAttention, and
  // the float attention between the quantized projections of PyTorch's
  // quantizable MultiheadAttention (a prepare_custom_config swap).
  for (StringLiteral name : {StringLiteral("torch.nn.MultiheadAttention"),
                             StringLiteral("torch.ao.nn.quantizable."
                                           "MultiheadAttention")})
    add(entry(name, F::MultiheadAttention, std::nullopt));
  return result;
}

} // namespace

llvm::ArrayRef<CompositeInfo> qfx::getComposites() {
  static const std::vector<CompositeInfo> composites = makeComposites();
  return composites;
}

const CompositeInfo *qfx::lookupComposite(llvm::StringRef name) {
  static const llvm::StringMap<const CompositeInfo *> byName = [] {
    llvm::StringMap<const CompositeInfo *> map;
    for (const CompositeInfo &info : getComposites())
      map[info.name] = &info;
    return map;
  }();
  return byName.lookup(name);
}
