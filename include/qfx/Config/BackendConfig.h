//===- BackendConfig.h - What a backend can run quantized -------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch 1.13's backend_config: DTypeConfig, ObservationType,
// BackendPatternConfig and BackendConfig, with patterns written over the op
// names of the TOSA graph in forward order (PyTorch writes them reversed).
// Pure C++ (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_BACKENDCONFIG_H
#define QFX_CONFIG_BACKENDCONFIG_H

#include "qfx/Config/DTypeWithConstraints.h"
#include "qfx/Config/LoweringKind.h"
#include "qfx/Numerics/ObserverSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <string>
#include <vector>

namespace qfx {

/// The dtypes a pattern supports for its input and output activations, weight
/// and bias; unset fields are PyTorch's None (not checked).
struct DTypeConfig {
  std::optional<DTypeWithConstraints> inputDType;
  std::optional<DTypeWithConstraints> outputDType;
  std::optional<DTypeWithConstraints> weightDType;
  std::optional<DType> biasDType;
  std::optional<bool> isDynamic;

  DTypeConfig() = default;

  DTypeConfig &setInputDType(DTypeWithConstraints dtype) {
    inputDType = dtype;
    return *this;
  }
  DTypeConfig &setOutputDType(DTypeWithConstraints dtype) {
    outputDType = dtype;
    return *this;
  }
  DTypeConfig &setWeightDType(DTypeWithConstraints dtype) {
    weightDType = dtype;
    return *this;
  }
  DTypeConfig &setBiasDType(DType dtype) {
    biasDType = dtype;
    return *this;
  }
  DTypeConfig &setIsDynamic(bool dynamic) {
    isDynamic = dynamic;
    return *this;
  }

  /// Validates the constraints of each dtype; the message names the field.
  llvm::Error validate() const;

  bool operator==(const DTypeConfig &other) const {
    return inputDType == other.inputDType && outputDType == other.outputDType &&
           weightDType == other.weightDType && biasDType == other.biasDType &&
           isDynamic == other.isDynamic;
  }
  bool operator!=(const DTypeConfig &other) const { return !(*this == other); }
};

/// How a pattern's output is observed relative to its input.
enum class ObservationType : uint8_t {
  /// The output gets its own observer from qconfig.activation (conv, linear).
  OutputUseDifferentObserverAsInput,
  /// The output shares the input's observer (concat, max_pool2d, reshape).
  OutputShareObserverWithInput,
};

/// "output_use_different_observer_as_input" or
/// "output_share_observer_with_input".
llvm::StringRef stringifyObservationType(ObservationType type);
/// Parses a name printed by stringifyObservationType.
std::optional<ObservationType> symbolizeObservationType(llvm::StringRef name);

/// The role of a pattern operand that is not an activation.
enum class InputRole : uint8_t { Weight, Bias };

/// "weight" or "bias".
llvm::StringRef stringifyInputRole(InputRole role);
/// Parses a name printed by stringifyInputRole.
std::optional<InputRole> symbolizeInputRole(llvm::StringRef name);

/// Where a weight or bias enters a pattern: operand `operandIndex` of the
/// op at `opIndex` in the pattern. PyTorch's _input_type_to_index, extended to
/// multi-op patterns (linear = tosa.matmul then tosa.add of the bias).
struct OperandRef {
  unsigned opIndex = 0;
  unsigned operandIndex = 0;
  bool operator==(const OperandRef &other) const {
    return opIndex == other.opIndex && operandIndex == other.operandIndex;
  }
};

/// The longest pattern a BackendPatternConfig may have, as in PyTorch.
constexpr unsigned kMaxPatternLength = 3;

/// How a backend supports one pattern of ops: PyTorch's BackendPatternConfig.
class BackendPatternConfig {
public:
  /// A single-op pattern.
  explicit BackendPatternConfig(llvm::StringRef op);
  /// A sequence of 1 to kMaxPatternLength ops, in forward order: each op's
  /// result feeds the next op.
  explicit BackendPatternConfig(llvm::ArrayRef<llvm::StringRef> ops);

  BackendPatternConfig &setObservationType(ObservationType type) {
    observationType = type;
    return *this;
  }
  BackendPatternConfig &addDTypeConfig(DTypeConfig config) {
    dtypeConfigs.push_back(std::move(config));
    return *this;
  }
  BackendPatternConfig &setDTypeConfigs(llvm::ArrayRef<DTypeConfig> configs) {
    dtypeConfigs.assign(configs.begin(), configs.end());
    return *this;
  }
  /// The op of the pattern that carries the weight (PyTorch's root module).
  BackendPatternConfig &setRootOp(llvm::StringRef op) {
    rootOp = op.str();
    return *this;
  }
  /// The name the fused pattern gets (qfx.fused), PyTorch's fused module.
  BackendPatternConfig &setFusedOp(llvm::StringRef name) {
    fusedOp = name.str();
    return *this;
  }
  /// The registered rewrite that fuses the pattern (PyTorch's fuser method).
  BackendPatternConfig &setFuser(llvm::StringRef name) {
    fuser = name.str();
    return *this;
  }
  /// The int8 lowering of the reference quantized pattern (PyTorch's
  /// reference quantized module).
  BackendPatternConfig &setReferenceLowering(LoweringKind kind) {
    referenceLowering = kind;
    return *this;
  }
  /// Marks an operand as the pattern's weight or bias.
  BackendPatternConfig &setInputRole(InputRole role, OperandRef operand) {
    inputRoles[role] = operand;
    return *this;
  }
  /// The observation type used for a given number of tensor (non-constant)
  /// operands, overriding observationType (PyTorch's
  /// _num_tensor_args_to_observation_type, used by add and mul).
  BackendPatternConfig &
  setNumTensorArgsToObservationType(unsigned numTensorArgs,
                                    ObservationType type) {
    numTensorArgsToObservationType[numTensorArgs] = type;
    return *this;
  }
  /// The observer of the output regardless of the QConfig (PyTorch's
  /// _overwrite_output_observer: the fixed qparams of sigmoid, tanh).
  BackendPatternConfig &setOverwriteOutputObserver(ObserverSpec observer) {
    overwriteOutputObserver = std::move(observer);
    return *this;
  }

  llvm::ArrayRef<std::string> getPattern() const { return pattern; }
  ObservationType getObservationType() const { return observationType; }
  /// The observation type of a match whose root op has `numTensorArgs`
  /// tensor arguments: its getNumTensorArgsToObservationType entry, else
  /// getObservationType().
  ObservationType getObservationType(unsigned numTensorArgs) const {
    auto it = numTensorArgsToObservationType.find(numTensorArgs);
    return it == numTensorArgsToObservationType.end() ? observationType
                                                      : it->second;
  }
  llvm::ArrayRef<DTypeConfig> getDTypeConfigs() const { return dtypeConfigs; }
  const std::optional<std::string> &getRootOp() const { return rootOp; }
  const std::optional<std::string> &getFusedOp() const { return fusedOp; }
  const std::optional<std::string> &getFuser() const { return fuser; }
  std::optional<LoweringKind> getReferenceLowering() const {
    return referenceLowering;
  }
  const std::map<InputRole, OperandRef> &getInputRoles() const {
    return inputRoles;
  }
  std::optional<OperandRef> getInputRole(InputRole role) const;
  const std::map<unsigned, ObservationType> &
  getNumTensorArgsToObservationType() const {
    return numTensorArgsToObservationType;
  }
  const std::optional<ObserverSpec> &getOverwriteOutputObserver() const {
    return overwriteOutputObserver;
  }

  /// Checks the pattern length, root op, input roles, dtype configs and
  /// overwrite observer. The message names the field.
  llvm::Error validate() const;

  bool operator==(const BackendPatternConfig &other) const;
  bool operator!=(const BackendPatternConfig &other) const {
    return !(*this == other);
  }

private:
  llvm::SmallVector<std::string, kMaxPatternLength> pattern;
  ObservationType observationType =
      ObservationType::OutputUseDifferentObserverAsInput;
  std::vector<DTypeConfig> dtypeConfigs;
  std::optional<std::string> rootOp;
  std::optional<std::string> fusedOp;
  std::optional<std::string> fuser;
  std::optional<LoweringKind> referenceLowering;
  std::map<InputRole, OperandRef> inputRoles;
  std::map<unsigned, ObservationType> numTensorArgsToObservationType;
  std::optional<ObserverSpec> overwriteOutputObserver;
};

/// A backend's name and the patterns it runs quantized: PyTorch's
/// BackendConfig. Patterns keep their first registration order; setting a
/// pattern again replaces its config in place.
class BackendConfig {
public:
  explicit BackendConfig(llvm::StringRef name = "") : name(name) {}

  BackendConfig &setName(llvm::StringRef newName) {
    name = newName.str();
    return *this;
  }
  /// PyTorch's set_backend_pattern_config.
  BackendConfig &setBackendPatternConfig(BackendPatternConfig config);
  /// PyTorch's set_backend_pattern_configs.
  BackendConfig &
  setBackendPatternConfigs(llvm::ArrayRef<BackendPatternConfig> configs);

  llvm::StringRef getName() const { return name; }
  llvm::ArrayRef<BackendPatternConfig> getConfigs() const { return configs; }
  /// The config of exactly this pattern, or null.
  const BackendPatternConfig *lookup(llvm::ArrayRef<std::string> pattern) const;
  const BackendPatternConfig *
  lookup(llvm::ArrayRef<llvm::StringRef> pattern) const;

  /// Validates every pattern config; the message names it by index.
  llvm::Error validate() const;

  bool operator==(const BackendConfig &other) const {
    return name == other.name && configs == other.configs;
  }

private:
  std::string name;
  std::vector<BackendPatternConfig> configs;
};

/// The built-in backend tables: "x86", "fbgemm", "qnnpack", "onednn",
/// "tosa".
llvm::ArrayRef<llvm::StringLiteral> getBackendConfigNames();

/// The built-in table `name`, or none. The x86, fbgemm and qnnpack tables
/// carry PyTorch 1.13's get_x86_backend_config / get_fbgemm_backend_config /
/// get_qnnpack_backend_config dtype configs, and onednn carries
/// get_native_backend_config's (1.13 has no onednn table; prepare_fx uses the
/// native one), for the PyTorch patterns that have a TOSA form (see
/// getTorchToTOSAPatterns). The tosa table is qfx's own: qint8 activations,
/// symmetric qint8 weights ([-127, 127]) and qint32 bias.
std::optional<BackendConfig> getBackendConfig(llvm::StringRef name);

/// How PyTorch 1.13's quantized engine for a backend computes, by the
/// backend's name: x86, fbgemm and onednn run on onednn's (and fbgemm's)
/// kernels, qnnpack on qnnpack's; other names (tosa, a user's table) take
/// TOSA's integer requantization.
struct EngineTraits {
  /// qfx-lower's `requantization`: "onednn", "qnnpack" or "integer".
  llvm::StringRef requantization;
  /// Whether dynamically quantized activations get a 7-bit range
  /// (quantized::linear_dynamic's reduce_range; qnnpack ignores it).
  bool reducesDynamicRange;
};
EngineTraits getEngineTraits(llvm::StringRef backendName);
/// Whether `name` is one of PyTorch 1.13's quantized engines qfx follows:
/// x86, fbgemm, qnnpack, onednn (torch.backends.quantized.engine).
bool isEngineName(llvm::StringRef name);

/// One PyTorch pattern and the TOSA pattern it becomes after import.
struct TorchToTOSAPattern {
  /// PyTorch's pattern in forward order, by public names, e.g.
  /// {"torch.nn.Conv2d", "torch.nn.ReLU"}; methods are "Tensor.reshape".
  llvm::SmallVector<llvm::StringRef, kMaxPatternLength> torchPattern;
  /// The TOSA ops it becomes, in forward order.
  llvm::SmallVector<llvm::StringRef, kMaxPatternLength> tosaPattern;
  /// The TOSA pattern's fields PyTorch's patterns do not have (as in its
  /// BackendPatternConfig): the op that carries the weight, the weight and
  /// bias operands, the fused op, the fuser and the reference lowering.
  llvm::StringRef rootOp, fusedOp, fuser;
  std::optional<LoweringKind> referenceLowering;
  std::optional<OperandRef> weight, bias;
};

/// The correspondence the built-in x86, qnnpack and onednn tables are written
/// by. A PyTorch pattern absent from it has no TOSA form in qfx's tables.
llvm::ArrayRef<TorchToTOSAPattern> getTorchToTOSAPatterns();

/// A module of torch.nn.intrinsic that PyTorch 1.13's fuse_fx makes in eval
/// mode: a module followed by a ReLU.
struct TorchFusedModule {
  /// Its public name, "torch.nn.intrinsic.LinearReLU".
  llvm::StringRef type;
  /// The types of the modules it holds, which update_qconfig_for_fusion
  /// reads the QConfig of: {"torch.nn.Linear", "torch.nn.ReLU"}.
  llvm::SmallVector<llvm::StringRef, 2> parts;
};

/// The module fuse_fx fuses `torchPattern` (forward order, public names as
/// in TorchToTOSAPattern) into, or none: a Conv1d/2d/3d, Linear or
/// BatchNorm2d/3d module followed by a torch.nn.ReLU or F.relu (which
/// becomes a torch.nn.ReLU; a batch norm between a conv and its ReLU is
/// folded into the conv in eval mode). Functional patterns (F.linear +
/// F.relu, add + ReLU) stay separate nodes.
std::optional<TorchFusedModule>
getTorchFusedModule(llvm::ArrayRef<llvm::StringRef> torchPattern);

} // namespace qfx

#endif // QFX_CONFIG_BACKENDCONFIG_H
