//===- BackendConfig.cpp - What a backend can run quantized ---------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The built-in tables follow PyTorch 1.13's backend_config/x86.py, qnnpack.py,
// native.py and _common_operator_config_utils.py, translated to TOSA patterns
// by getTorchToTOSAPatterns().
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/BackendConfig.h"
#include "qfx/Config/Composites.h"

#include "Presets.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace qfx;

static llvm::Error configError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

llvm::StringRef qfx::stringifyObservationType(ObservationType type) {
  return type == ObservationType::OutputShareObserverWithInput
             ? "output_share_observer_with_input"
             : "output_use_different_observer_as_input";
}

std::optional<ObservationType>
qfx::symbolizeObservationType(llvm::StringRef name) {
  if (name == "output_use_different_observer_as_input")
    return ObservationType::OutputUseDifferentObserverAsInput;
  if (name == "output_share_observer_with_input")
    return ObservationType::OutputShareObserverWithInput;
  return std::nullopt;
}

llvm::StringRef qfx::stringifyInputRole(InputRole role) {
  return role == InputRole::Weight ? "weight" : "bias";
}

std::optional<InputRole> qfx::symbolizeInputRole(llvm::StringRef name) {
  if (name == "weight")
    return InputRole::Weight;
  if (name == "bias")
    return InputRole::Bias;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// DTypeConfig
//===----------------------------------------------------------------------===//

llvm::Error DTypeConfig::validate() const {
  for (auto [dtype, field] : {std::pair{&inputDType, "input_dtype"},
                              std::pair{&outputDType, "output_dtype"},
                              std::pair{&weightDType, "weight_dtype"}}) {
    if (!*dtype)
      continue;
    if (llvm::Error err = (*dtype)->validate())
      return configError(llvm::Twine(field) + ": " +
                         llvm::toString(std::move(err)));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// BackendPatternConfig
//===----------------------------------------------------------------------===//

BackendPatternConfig::BackendPatternConfig(llvm::StringRef op) {
  pattern.push_back(op.str());
}

BackendPatternConfig::BackendPatternConfig(
    llvm::ArrayRef<llvm::StringRef> ops) {
  for (llvm::StringRef op : ops)
    pattern.push_back(op.str());
}

std::optional<OperandRef>
BackendPatternConfig::getInputRole(InputRole role) const {
  auto it = inputRoles.find(role);
  if (it == inputRoles.end())
    return std::nullopt;
  return it->second;
}

llvm::Error BackendPatternConfig::validate() const {
  if (pattern.empty() || pattern.size() > kMaxPatternLength)
    return configError(llvm::formatv("pattern: expected 1 to {0} ops, got {1}",
                                     kMaxPatternLength, pattern.size()));
  for (const std::string &op : pattern)
    if (op.empty())
      return configError("pattern: expected op names, got an empty name");
  if (rootOp && !llvm::is_contained(pattern, *rootOp))
    return configError("root_op: '" + *rootOp +
                       "' is not an op of the pattern");
  for (const auto &[role, operand] : inputRoles)
    if (operand.opIndex >= pattern.size())
      return configError(llvm::formatv(
          "input_roles.{0}: op index {1} is outside the pattern of {2} ops",
          stringifyInputRole(role), operand.opIndex, pattern.size()));
  for (auto [index, config] : llvm::enumerate(dtypeConfigs))
    if (llvm::Error err = config.validate())
      return configError(llvm::formatv("dtype_configs[{0}].", index).str() +
                         llvm::toString(std::move(err)));
  if (overwriteOutputObserver)
    if (llvm::Error err = overwriteOutputObserver->validate())
      return configError("overwrite_output_observer: " +
                         llvm::toString(std::move(err)));
  return llvm::Error::success();
}

bool BackendPatternConfig::operator==(const BackendPatternConfig &other) const {
  return pattern == other.pattern && observationType == other.observationType &&
         dtypeConfigs == other.dtypeConfigs && rootOp == other.rootOp &&
         fusedOp == other.fusedOp && fuser == other.fuser &&
         referenceLowering == other.referenceLowering &&
         inputRoles == other.inputRoles &&
         numTensorArgsToObservationType ==
             other.numTensorArgsToObservationType &&
         overwriteOutputObserver == other.overwriteOutputObserver;
}

//===----------------------------------------------------------------------===//
// BackendConfig
//===----------------------------------------------------------------------===//

BackendConfig &
BackendConfig::setBackendPatternConfig(BackendPatternConfig config) {
  for (BackendPatternConfig &existing : configs)
    if (llvm::equal(existing.getPattern(), config.getPattern())) {
      existing = std::move(config);
      return *this;
    }
  configs.push_back(std::move(config));
  return *this;
}

BackendConfig &BackendConfig::setBackendPatternConfigs(
    llvm::ArrayRef<BackendPatternConfig> newConfigs) {
  for (const BackendPatternConfig &config : newConfigs)
    setBackendPatternConfig(config);
  return *this;
}

const BackendPatternConfig *
BackendConfig::lookup(llvm::ArrayRef<std::string> pattern) const {
  for (const BackendPatternConfig &config : configs)
    if (llvm::equal(config.getPattern(), pattern))
      return &config;
  return nullptr;
}

const BackendPatternConfig *
BackendConfig::lookup(llvm::ArrayRef<llvm::StringRef> pattern) const {
  for (const BackendPatternConfig &config : configs)
    if (config.getPattern().size() == pattern.size() &&
        llvm::all_of(llvm::zip(config.getPattern(), pattern), [](auto pair) {
          return llvm::StringRef(std::get<0>(pair)) == std::get<1>(pair);
        }))
      return &config;
  return nullptr;
}

llvm::Error BackendConfig::validate() const {
  for (auto [index, config] : llvm::enumerate(configs))
    if (llvm::Error err = config.validate())
      return configError(llvm::formatv("configs[{0}].", index).str() +
                         llvm::toString(std::move(err)));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The torch → TOSA correspondence
//===----------------------------------------------------------------------===//

namespace {
/// One TOSA pattern of a built-in table and what it is made from.
struct TOSAPatternSpec {
  llvm::SmallVector<llvm::StringRef, kMaxPatternLength> tosaPattern;
  OpGroup group;
  /// PyTorch's patterns (forward order) this TOSA pattern stands for.
  llvm::SmallVector<llvm::SmallVector<llvm::StringRef, kMaxPatternLength>, 4>
      torchPatterns;
  // Fields after the first three are optional in the table below: default
  // initializers keep brace-initialized entries short and warning-free.
  /// The op that carries the weight.
  llvm::StringRef rootOp = {};
  /// Weight and bias operands.
  std::optional<OperandRef> weight = std::nullopt, bias = std::nullopt;
  llvm::StringRef fusedOp = {}, fuser = {};
  std::optional<LoweringKind> referenceLowering = std::nullopt;
  /// For the fixed-qparams ops: whether the output range is [0, 1] (sigmoid)
  /// or [-1, 1] (tanh).
  bool fixedRange0To1 = false;
  /// For binary ops: whether one operand can be a scalar (add and mul; the
  /// output then shares the tensor operand's observer).
  bool scalarOperand = true;
  /// Only in the table of PyTorch's native.py (qfx's "onednn"): x86.py,
  /// fbgemm.py and qnnpack.py have no layer norm.
  bool nativeOnly = false;
};
} // namespace

using TorchPatterns =
    llvm::SmallVector<llvm::SmallVector<llvm::StringRef, kMaxPatternLength>, 4>;

// ReLU and its spellings: PyTorch's fusion patterns list each of them.
static TorchPatterns withRelu(llvm::ArrayRef<llvm::StringRef> roots,
                              llvm::ArrayRef<llvm::StringRef> relus) {
  TorchPatterns result;
  for (llvm::StringRef root : roots)
    for (llvm::StringRef relu : relus)
      result.push_back({root, relu});
  return result;
}

static TorchPatterns singles(llvm::ArrayRef<llvm::StringRef> ops) {
  TorchPatterns result;
  for (llvm::StringRef op : ops)
    result.push_back({op});
  return result;
}

static const std::vector<TOSAPatternSpec> &getTOSAPatternSpecs() {
  static const std::vector<TOSAPatternSpec> specs = [] {
    std::vector<TOSAPatternSpec> result;
    OperandRef convWeight{0, 1}, convBias{0, 2};
    llvm::StringRef moduleAndFunctionalRelu[] = {"torch.nn.ReLU",
                                                 "torch.nn.functional.relu"};
    // Convolutions: tosa.conv2d / depthwise_conv2d / conv3d take (input,
    // weight, bias, input_zp, weight_zp). A depthwise torch.nn.Conv2d
    // (groups == channels) imports as tosa.depthwise_conv2d.
    // A Conv1d is a conv2d (or depthwise_conv2d) over [N, 1, L, C].
    struct Conv {
      llvm::StringRef tosaOp;
      std::vector<llvm::StringRef> torchOps;
      llvm::StringRef reluName;
    };
    std::vector<llvm::StringRef> conv1dAnd2d = {
        "torch.nn.Conv1d", "torch.nn.functional.conv1d", "torch.nn.Conv2d",
        "torch.nn.functional.conv2d"};
    for (const Conv &conv :
         {Conv{"tosa.conv2d", conv1dAnd2d, "conv2d_relu"},
          Conv{"tosa.depthwise_conv2d", conv1dAnd2d, "depthwise_conv2d_relu"},
          Conv{"tosa.conv3d",
               {"torch.nn.Conv3d", "torch.nn.functional.conv3d"},
               "conv3d_relu"}}) {
      result.push_back({{conv.tosaOp},
                        OpGroup::Conv,
                        singles(conv.torchOps),
                        conv.tosaOp,
                        convWeight,
                        convBias,
                        "",
                        "",
                        LoweringKind::Contraction});
      result.push_back({{conv.tosaOp, "tosa.clamp"},
                        OpGroup::Conv,
                        withRelu(conv.torchOps, moduleAndFunctionalRelu),
                        conv.tosaOp,
                        convWeight,
                        convBias,
                        conv.reluName,
                        "sequence",
                        LoweringKind::Contraction});
    }
    // A ConvTranspose1d is a transpose_conv2d over [N, 1, L, C].
    result.push_back(
        {{"tosa.transpose_conv2d"},
         OpGroup::Conv,
         singles({"torch.nn.ConvTranspose1d", "torch.nn.ConvTranspose2d"}),
         "tosa.transpose_conv2d",
         convWeight,
         convBias,
         "",
         "",
         LoweringKind::Contraction});
    // A conv followed by a batch norm that qfx-fuse left (PyTorch's fuser
    // folds one batch norm, its prepare matches the folded conv and a
    // second one as its conv + batch norm pattern, and its convert leaves
    // that pattern as its reference model: the conv's quantized weight
    // dequantized, conv and batch norm in float between the input's
    // dequantize and the output's quantize). Conv1d and ConvTranspose1d
    // reach their batch norm through a reshape: no pattern.
    for (auto [tosaOp, torchConv, batchNorm, fusedOp] :
         {std::tuple{"tosa.conv2d", "torch.nn.Conv2d", "torch.nn.BatchNorm2d",
                     "conv2d_bn"},
          std::tuple{"tosa.depthwise_conv2d", "torch.nn.Conv2d",
                     "torch.nn.BatchNorm2d", "depthwise_conv2d_bn"},
          std::tuple{"tosa.conv3d", "torch.nn.Conv3d", "torch.nn.BatchNorm3d",
                     "conv3d_bn"},
          std::tuple{"tosa.transpose_conv2d", "torch.nn.ConvTranspose2d",
                     "torch.nn.BatchNorm2d", "transpose_conv2d_bn"}})
      result.push_back({{tosaOp, batchNorm},
                        OpGroup::Conv,
                        {{torchConv, batchNorm}},
                        tosaOp,
                        convWeight,
                        convBias,
                        fusedOp,
                        "sequence",
                        LoweringKind::FloatKernel});

    // Linear: tosa.matmul on rank-3 tensors, then tosa.add of the bias; a
    // linear without bias is the matmul alone.
    llvm::StringRef linears[] = {"torch.nn.Linear",
                                 "torch.nn.functional.linear"};
    OperandRef matmulWeight{0, 1}, addBias{1, 1};
    result.push_back({{"tosa.matmul"},
                      OpGroup::Linear,
                      singles(linears),
                      "tosa.matmul",
                      matmulWeight,
                      std::nullopt,
                      "",
                      "",
                      LoweringKind::Contraction});
    result.push_back({{"tosa.matmul", "tosa.add"},
                      OpGroup::Linear,
                      singles(linears),
                      "tosa.matmul",
                      matmulWeight,
                      addBias,
                      "linear",
                      "sequence",
                      LoweringKind::Contraction});
    result.push_back({{"tosa.matmul", "tosa.clamp"},
                      OpGroup::Linear,
                      withRelu(linears, moduleAndFunctionalRelu),
                      "tosa.matmul",
                      matmulWeight,
                      std::nullopt,
                      "linear_relu",
                      "sequence",
                      LoweringKind::Contraction});
    result.push_back({{"tosa.matmul", "tosa.add", "tosa.clamp"},
                      OpGroup::Linear,
                      withRelu(linears, moduleAndFunctionalRelu),
                      "tosa.matmul",
                      matmulWeight,
                      addBias,
                      "linear_relu",
                      "sequence",
                      LoweringKind::Contraction});

    // A row of an op without weights, int8-lowered by `lowering`
    // (docs/convert-and-lower.md).
    auto row = [](llvm::ArrayRef<llvm::StringRef> tosaPattern, OpGroup group,
                  TorchPatterns torchPatterns,
                  std::optional<LoweringKind> lowering,
                  llvm::StringRef fusedOp = {}) {
      TOSAPatternSpec spec{
          llvm::SmallVector<llvm::StringRef, kMaxPatternLength>(tosaPattern),
          group, std::move(torchPatterns)};
      spec.referenceLowering = lowering;
      if (!fusedOp.empty()) {
        spec.fusedOp = fusedOp;
        spec.fuser = "sequence";
      }
      return spec;
    };

    // add and mul, alone and followed by a ReLU.
    llvm::StringRef allRelus[] = {"torch.nn.ReLU", "torch.nn.functional.relu",
                                  "torch.relu"};
    for (auto [tosaOp, ops, reluName] :
         {std::tuple{
              llvm::StringRef("tosa.add"),
              std::array<llvm::StringRef, 2>{"operator.add", "torch.add"},
              llvm::StringRef("add_relu")},
          std::tuple{
              llvm::StringRef("tosa.mul"),
              std::array<llvm::StringRef, 2>{"operator.mul", "torch.mul"},
              llvm::StringRef("mul_relu")}}) {
      result.push_back(
          row({tosaOp}, OpGroup::Binary, singles(ops), LoweringKind::Binary));
      result.push_back(row({tosaOp, "tosa.clamp"}, OpGroup::Binary,
                           withRelu(ops, allRelus), LoweringKind::Binary,
                           reluName));
    }

    result.push_back(row({"tosa.concat"}, OpGroup::Cat,
                         singles({"torch.cat", "torch.stack"}),
                         LoweringKind::Concat));

    // Elementwise ops: a 256-entry table. Fixed qparams for sigmoid ([0, 1])
    // and tanh ([-1, 1]).
    TOSAPatternSpec sigmoid =
        row({"tosa.sigmoid"}, OpGroup::FixedQParams,
            singles({"torch.nn.Sigmoid", "torch.sigmoid", "Tensor.sigmoid",
                     "Tensor.sigmoid_"}),
            LoweringKind::Table);
    sigmoid.fixedRange0To1 = true;
    result.push_back(sigmoid);
    result.push_back(row(
        {"tosa.tanh"}, OpGroup::FixedQParams,
        singles({"torch.nn.Tanh", "torch.tanh", "Tensor.tanh", "Tensor.tanh_"}),
        LoweringKind::Table));

    // PyTorch ops that have no single TOSA op: the exporter writes them as
    // qfx.composite ops named by the module, each row from its registry
    // entry (Composites.cpp).
    for (const CompositeInfo &composite : getComposites()) {
      if (!composite.group)
        continue;
      llvm::SmallVector<llvm::StringRef, 4> ops(composite.torchOps.begin(),
                                                composite.torchOps.end());
      TOSAPatternSpec spec = row({composite.name}, *composite.group,
                                 singles(ops), composite.lowering);
      spec.fixedRange0To1 = composite.fixedRange0To1;
      spec.scalarOperand = composite.scalarOperand;
      spec.nativeOnly = composite.nativeOnly;
      if (composite.weight) {
        spec.rootOp = composite.name;
        spec.weight = OperandRef{0, *composite.weight};
      }
      if (composite.bias)
        spec.bias = OperandRef{0, *composite.bias};
      result.push_back(spec);
      if (!composite.reluFusedOp.empty())
        result.push_back(row({composite.name, "tosa.clamp"}, *composite.group,
                             withRelu(ops, moduleAndFunctionalRelu),
                             composite.lowering, composite.reluFusedOp));
    }

    // Ops whose output shares the input's observer.
    struct Share {
      llvm::StringRef tosaOp;
      std::vector<llvm::StringRef> torchOps;
      std::optional<LoweringKind> lowering;
    };
    for (const Share &share :
         // 1-D pooling is 2-D pooling over [N, 1, L, C].
         {Share{"tosa.avg_pool2d",
                {"torch.nn.AvgPool1d", "torch.nn.AvgPool2d",
                 "torch.nn.AdaptiveAvgPool1d", "torch.nn.AdaptiveAvgPool2d",
                 "torch.nn.functional.avg_pool1d",
                 "torch.nn.functional.adaptive_avg_pool1d",
                 "torch.nn.functional.adaptive_avg_pool2d",
                 "torch.nn.functional.avg_pool2d"},
                LoweringKind::Pool},
          Share{"tosa.max_pool2d",
                {"torch.nn.MaxPool1d", "torch.nn.MaxPool2d",
                 "torch.nn.functional.max_pool1d",
                 "torch.nn.functional.max_pool2d"},
                LoweringKind::Pool},
          Share{"tosa.clamp",
                {"torch.nn.Hardtanh", "torch.nn.ReLU", "torch.nn.ReLU6",
                 "torch.nn.functional.hardtanh",
                 "torch.nn.functional.hardtanh_", "torch.nn.functional.relu",
                 "torch.nn.functional.relu6", "torch.clamp", "Tensor.clamp",
                 "Tensor.relu", "Tensor.relu_"},
                LoweringKind::Table},
          Share{"tosa.identity",
                {"torch.nn.Identity"},
                LoweringKind::DataMovement},
          // torch.stack is a reshape per tensor and a concat;
          // repeat_interleave a reshape, a tile and a reshape (and so is
          // nearest interpolation, per dimension).
          Share{"tosa.reshape",
                {"torch.flatten", "torch.squeeze", "torch.unsqueeze",
                 "Tensor.reshape", "Tensor.view", "Tensor.squeeze",
                 "Tensor.squeeze_", "Tensor.unsqueeze", "Tensor.unsqueeze_",
                 "torch.stack", "torch.repeat_interleave",
                 "Tensor.repeat_interleave", "torch.nn.functional.interpolate"},
                LoweringKind::DataMovement},
          Share{"tosa.transpose",
                {"torch.transpose", "Tensor.transpose", "Tensor.permute"},
                LoweringKind::DataMovement},
          Share{"tosa.tile",
                {"Tensor.repeat", "torch.repeat_interleave",
                 "Tensor.repeat_interleave", "torch.nn.functional.interpolate"},
                LoweringKind::DataMovement},
          // No int8 lowering yet.
          Share{"tosa.resize",
                {"torch.nn.functional.interpolate"},
                std::nullopt}})
      result.push_back(row({share.tosaOp}, OpGroup::ShareQParams,
                           singles(share.torchOps), share.lowering));
    return result;
  }();
  return specs;
}

llvm::ArrayRef<TorchToTOSAPattern> qfx::getTorchToTOSAPatterns() {
  static const std::vector<TorchToTOSAPattern> patterns = [] {
    std::vector<TorchToTOSAPattern> result;
    for (const TOSAPatternSpec &spec : getTOSAPatternSpecs())
      for (const auto &torchPattern : spec.torchPatterns)
        result.push_back({torchPattern, spec.tosaPattern, spec.rootOp,
                          spec.fusedOp, spec.fuser, spec.referenceLowering,
                          spec.weight, spec.bias});
    return result;
  }();
  return patterns;
}

std::optional<TorchFusedModule>
qfx::getTorchFusedModule(llvm::ArrayRef<llvm::StringRef> torchPattern) {
  // _common_operator_config_utils.py's fused modules (fuse_conv_bn_relu makes
  // a ConvReLU of the folded conv in eval mode).
  static constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral>
      fusedModules[] = {
          {"torch.nn.Conv1d", "torch.nn.intrinsic.ConvReLU1d"},
          {"torch.nn.Conv2d", "torch.nn.intrinsic.ConvReLU2d"},
          {"torch.nn.Conv3d", "torch.nn.intrinsic.ConvReLU3d"},
          {"torch.nn.Linear", "torch.nn.intrinsic.LinearReLU"},
          {"torch.nn.BatchNorm2d", "torch.nn.intrinsic.BNReLU2d"},
          {"torch.nn.BatchNorm3d", "torch.nn.intrinsic.BNReLU3d"}};
  if (torchPattern.size() != 2 ||
      (torchPattern[1] != "torch.nn.ReLU" &&
       torchPattern[1] != "torch.nn.functional.relu"))
    return std::nullopt;
  for (const auto &[root, fused] : fusedModules)
    if (torchPattern[0] == root)
      return TorchFusedModule{fused, {root, "torch.nn.ReLU"}};
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The built-in tables
//===----------------------------------------------------------------------===//

namespace {
/// The dtype configs of each op group in one backend table.
struct GroupDTypeConfigs {
  std::vector<DTypeConfig> conv, linear, binary, cat, fixedQParams,
      shareQParams, layerNorm, embedding, recurrent;
  /// The fixed-qparams observers; PyTorch's are quint8.
  ObserverSpec range0To1, rangeNeg1To1;
  /// tosa.slice and tosa.pad, which only the tosa table has.
  bool withSliceAndPad = false;
  /// The rows of PyTorch's native table only (TOSAPatternSpec::nativeOnly).
  bool native = false;

  const std::vector<DTypeConfig> &get(OpGroup group) const {
    switch (group) {
    case OpGroup::Conv:
      return conv;
    case OpGroup::Linear:
      return linear;
    case OpGroup::Binary:
      return binary;
    case OpGroup::Cat:
    case OpGroup::Default:
      return cat;
    case OpGroup::FixedQParams:
      return fixedQParams;
    case OpGroup::ShareQParams:
      return shareQParams;
    case OpGroup::LayerNorm:
      return layerNorm;
    case OpGroup::Embedding:
      return embedding;
    case OpGroup::Recurrent:
      return recurrent;
    }
    return conv;
  }
};
} // namespace

static DTypeConfig dtypes(DType input, DType output) {
  return DTypeConfig()
      .setInputDType(DTypeWithConstraints(input))
      .setOutputDType(DTypeWithConstraints(output));
}

static DTypeConfig weighted(DTypeWithConstraints input,
                            DTypeWithConstraints output,
                            DTypeWithConstraints weight, DType bias) {
  return DTypeConfig()
      .setInputDType(input)
      .setOutputDType(output)
      .setWeightDType(weight)
      .setBiasDType(bias);
}

// native.py / x86.py: weighted_op_int8_dtype_config and friends.
static DTypeConfig weightedInt8() {
  return weighted(DTypeWithConstraints(DType::QUInt8),
                  DTypeWithConstraints(DType::QUInt8),
                  DTypeWithConstraints(DType::QInt8), DType::Float32);
}
static DTypeConfig defaultOpQUInt8() {
  return dtypes(DType::QUInt8, DType::QUInt8);
}
static DTypeConfig dynamicInt8() {
  return weighted(DTypeWithConstraints(DType::QUInt8),
                  DTypeWithConstraints(DType::Float32),
                  DTypeWithConstraints(DType::QInt8), DType::Float32)
      .setIsDynamic(true);
}
static DTypeConfig dynamicFloat16() {
  return weighted(DTypeWithConstraints(DType::Float16),
                  DTypeWithConstraints(DType::Float32),
                  DTypeWithConstraints(DType::Float16), DType::Float32)
      .setIsDynamic(true);
}

// qnnpack.py's symmetric qint8 configs (xnnpack's constraints).
static DTypeWithConstraints qnnpackActQInt8() {
  DTypeWithConstraints d(DType::QInt8);
  d.scaleMinLowerBound = 0x1p-12;
  return d;
}
static DTypeWithConstraints qnnpackWeightQInt8() {
  DTypeWithConstraints d(DType::QInt8);
  d.quantMinLowerBound = -127;
  d.quantMaxUpperBound = 127;
  d.scaleMinLowerBound = 0x1p-12;
  return d;
}
static DTypeConfig qnnpackWeightedSymmetric() {
  return weighted(qnnpackActQInt8(), qnnpackActQInt8(), qnnpackWeightQInt8(),
                  DType::Float32);
}
static DTypeConfig qnnpackDefaultOpSymmetric() {
  return DTypeConfig()
      .setInputDType(qnnpackActQInt8())
      .setOutputDType(qnnpackActQInt8());
}

static GroupDTypeConfigs nativeGroups() {
  GroupDTypeConfigs g;
  g.conv = {weightedInt8()};
  g.linear = {weightedInt8(), dynamicInt8(), dynamicFloat16()};
  g.binary = {weightedInt8()};
  g.cat = {defaultOpQUInt8()};
  g.fixedQParams = {weightedInt8()};
  g.shareQParams = {defaultOpQUInt8()};
  g.layerNorm = {weighted(
      DTypeWithConstraints(DType::QUInt8), DTypeWithConstraints(DType::QUInt8),
      DTypeWithConstraints(DType::Float32), DType::Float32)};
  auto weightOnly = [](DType weight) {
    return dtypes(DType::Float32, DType::Float32)
        .setWeightDType(DTypeWithConstraints(weight));
  };
  g.embedding = {weightOnly(DType::QUInt8), weightOnly(DType::QUInt4x2)};
  g.recurrent = {dynamicInt8(), dynamicFloat16()};
  g.range0To1 = presets::defaultFixedQParamsRange0To1Observer();
  g.rangeNeg1To1 = presets::defaultFixedQParamsRangeNeg1To1Observer();
  return g;
}

static GroupDTypeConfigs qnnpackGroups() {
  GroupDTypeConfigs g = nativeGroups();
  g.conv = {qnnpackWeightedSymmetric(), weightedInt8()};
  g.linear = {qnnpackWeightedSymmetric(), weightedInt8(), dynamicInt8(),
              dynamicFloat16()};
  g.binary = {qnnpackWeightedSymmetric(), weightedInt8()};
  g.cat = {qnnpackDefaultOpSymmetric(), defaultOpQUInt8()};
  g.fixedQParams = {qnnpackWeightedSymmetric(), weightedInt8()};
  g.shareQParams = {qnnpackDefaultOpSymmetric(), defaultOpQUInt8()};
  return g;
}

// qfx's own TOSA table: qint8 activations (TOSA's int8 with a zero point),
// symmetric qint8 weights that leave out -128, and qint32 bias, which the
// lowering quantizes with scale input_scale * weight_scale. Fixed-qparams ops
// get PyTorch's output ranges in qint8.
static GroupDTypeConfigs tosaGroups() {
  DTypeWithConstraints weight(DType::QInt8);
  weight.quantMinLowerBound = -127;
  weight.quantMaxUpperBound = 127;
  DTypeConfig weightedOp =
      weighted(DTypeWithConstraints(DType::QInt8),
               DTypeWithConstraints(DType::QInt8), weight, DType::QInt32);
  DTypeConfig defaultOp = dtypes(DType::QInt8, DType::QInt8);
  GroupDTypeConfigs g;
  g.conv = {weightedOp};
  g.linear = {weightedOp};
  g.binary = {defaultOp};
  g.cat = {defaultOp};
  g.fixedQParams = {defaultOp};
  g.shareQParams = {defaultOp};
  auto fixed = [](double scale, int64_t zeroPoint) {
    ObserverSpec spec(ObserverKind::FixedQParams);
    spec.scale = scale;
    spec.zeroPoint = zeroPoint;
    spec.dtype = DType::QInt8;
    spec.quantMin = -128;
    spec.quantMax = 127;
    return spec;
  };
  g.range0To1 = fixed(1.0 / 256.0, -128);
  g.rangeNeg1To1 = fixed(2.0 / 256.0, 0);
  g.withSliceAndPad = true;
  return g;
}

static BackendConfig buildTable(llvm::StringRef name,
                                const GroupDTypeConfigs &groups) {
  BackendConfig table(name);
  for (const TOSAPatternSpec &spec : getTOSAPatternSpecs()) {
    if ((spec.nativeOnly && !groups.native) || groups.get(spec.group).empty())
      continue;
    BackendPatternConfig config(spec.tosaPattern);
    config.setDTypeConfigs(groups.get(spec.group));
    switch (spec.group) {
    case OpGroup::Cat:
    case OpGroup::ShareQParams:
      config.setObservationType(ObservationType::OutputShareObserverWithInput);
      break;
    case OpGroup::Binary:
      // One tensor operand (the other a scalar constant): the output shares
      // the input's observer.
      if (!spec.scalarOperand)
        break;
      config
          .setNumTensorArgsToObservationType(
              0, ObservationType::OutputUseDifferentObserverAsInput)
          .setNumTensorArgsToObservationType(
              1, ObservationType::OutputShareObserverWithInput)
          .setNumTensorArgsToObservationType(
              2, ObservationType::OutputUseDifferentObserverAsInput);
      break;
    case OpGroup::FixedQParams:
      config.setOverwriteOutputObserver(
          spec.fixedRange0To1 ? groups.range0To1 : groups.rangeNeg1To1);
      break;
    default:
      break;
    }
    if (!spec.rootOp.empty())
      config.setRootOp(spec.rootOp);
    if (spec.weight)
      config.setInputRole(InputRole::Weight, *spec.weight);
    if (spec.bias)
      config.setInputRole(InputRole::Bias, *spec.bias);
    if (!spec.fusedOp.empty())
      config.setFusedOp(spec.fusedOp);
    if (!spec.fuser.empty())
      config.setFuser(spec.fuser);
    if (spec.referenceLowering)
      config.setReferenceLowering(*spec.referenceLowering);
    table.setBackendPatternConfig(std::move(config));
  }
  if (groups.withSliceAndPad)
    for (llvm::StringRef op : {"tosa.slice", "tosa.pad"})
      table.setBackendPatternConfig(
          BackendPatternConfig(op)
              .setObservationType(ObservationType::OutputShareObserverWithInput)
              .setDTypeConfigs(groups.shareQParams));
  return table;
}

llvm::ArrayRef<llvm::StringLiteral> qfx::getBackendConfigNames() {
  static constexpr llvm::StringLiteral names[] = {"x86", "fbgemm", "qnnpack",
                                                  "onednn", "tosa"};
  return names;
}

std::optional<BackendConfig> qfx::getBackendConfig(llvm::StringRef name) {
  // x86.py's and fbgemm.py's dtype configs equal native.py's for every group
  // qfx maps; native.py alone has layer norm.
  if (name == "x86" || name == "fbgemm")
    return buildTable(name, nativeGroups());
  if (name == "onednn") {
    GroupDTypeConfigs groups = nativeGroups();
    groups.native = true;
    return buildTable(name, groups);
  }
  if (name == "qnnpack")
    return buildTable(name, qnnpackGroups());
  if (name == "tosa")
    return buildTable(name, tosaGroups());
  return std::nullopt;
}

bool qfx::isEngineName(llvm::StringRef name) {
  return llvm::is_contained({"x86", "fbgemm", "qnnpack", "onednn"}, name);
}

EngineTraits qfx::getEngineTraits(llvm::StringRef backendName) {
  if (backendName == "x86" || backendName == "fbgemm" ||
      backendName == "onednn")
    return {"onednn", true};
  if (backendName == "qnnpack")
    return {"qnnpack", false};
  return {"integer", true};
}
