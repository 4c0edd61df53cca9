//===- QConfig.cpp - QConfig and PyTorch's named QConfigs -----------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The presets follow torch/ao/quantization/qconfig.py and observer.py of
// PyTorch 1.13. Presets whose observers are fake quantizers or debugging
// observers (default_qat_qconfig, default_weight_only_qconfig,
// default_activation_only_qconfig, default_debug_qconfig, ...) are left out:
// ObserverSpec describes observers only.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/QConfig.h"
#include "Presets.h"

using namespace qfx;

llvm::Error QConfig::validate() const {
  if (llvm::Error err = activation.validate())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "activation: " +
                                       llvm::toString(std::move(err)));
  if (llvm::Error err = weight.validate())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "weight: " + llvm::toString(std::move(err)));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// observer.py's named observers
//===----------------------------------------------------------------------===//

ObserverSpec qfx::presets::defaultObserver() {
  ObserverSpec spec(ObserverKind::MinMax);
  spec.quantMin = 0;
  spec.quantMax = 127;
  return spec;
}

ObserverSpec qfx::presets::defaultWeightObserver() {
  ObserverSpec spec(ObserverKind::MinMax);
  spec.dtype = DType::QInt8;
  spec.qscheme = QScheme::PerTensorSymmetric;
  return spec;
}

ObserverSpec qfx::presets::defaultPerChannelWeightObserver() {
  ObserverSpec spec(ObserverKind::PerChannelMinMax);
  spec.dtype = DType::QInt8;
  spec.qscheme = QScheme::PerChannelSymmetric;
  return spec;
}

ObserverSpec qfx::presets::weightObserverRangeNeg127To127() {
  ObserverSpec spec = defaultWeightObserver();
  spec.quantMin = -127;
  spec.quantMax = 127;
  spec.eps = 0x1p-12;
  return spec;
}

ObserverSpec qfx::presets::perChannelWeightObserverRangeNeg127To127() {
  ObserverSpec spec = defaultPerChannelWeightObserver();
  spec.quantMin = -127;
  spec.quantMax = 127;
  spec.eps = 0x1p-12;
  return spec;
}

ObserverSpec qfx::presets::defaultPlaceholderObserver() {
  return ObserverSpec(ObserverKind::Placeholder);
}

ObserverSpec qfx::presets::defaultDynamicQuantObserver() {
  ObserverSpec spec(ObserverKind::Placeholder);
  spec.dtype = DType::QUInt8;
  spec.computeDType = DType::QUInt8;
  return spec;
}

ObserverSpec qfx::presets::defaultFloatQParamsObserver(DType dtype) {
  ObserverSpec spec(ObserverKind::PerChannelMinMax);
  spec.dtype = dtype;
  spec.qscheme = QScheme::PerChannelAffineFloatQParams;
  spec.chAxis = 0;
  return spec;
}

ObserverSpec qfx::presets::defaultFixedQParamsRange0To1Observer() {
  ObserverSpec spec(ObserverKind::FixedQParams);
  spec.scale = 1.0 / 256.0;
  spec.zeroPoint = 0;
  spec.dtype = DType::QUInt8;
  spec.quantMin = 0;
  spec.quantMax = 255;
  return spec;
}

ObserverSpec qfx::presets::defaultFixedQParamsRangeNeg1To1Observer() {
  ObserverSpec spec(ObserverKind::FixedQParams);
  spec.scale = 2.0 / 256.0;
  spec.zeroPoint = 128;
  spec.dtype = DType::QUInt8;
  spec.quantMin = 0;
  spec.quantMax = 255;
  return spec;
}

static ObserverSpec placeholder(DType dtype,
                                std::optional<DType> computeDType = {}) {
  ObserverSpec spec(ObserverKind::Placeholder);
  spec.dtype = dtype;
  spec.computeDType = computeDType;
  return spec;
}

static ObserverSpec histogram(bool reduceRange) {
  ObserverSpec spec(ObserverKind::Histogram);
  spec.reduceRange = reduceRange;
  return spec;
}

static ObserverSpec symmetricQnnpackActivationObserver() {
  ObserverSpec spec(ObserverKind::Histogram);
  spec.dtype = DType::QInt8;
  spec.reduceRange = false;
  spec.eps = 0x1p-12;
  return spec;
}

//===----------------------------------------------------------------------===//
// qconfig.py's named QConfigs
//===----------------------------------------------------------------------===//

namespace {
struct QConfigPreset {
  llvm::StringLiteral name;
  QConfig (*build)();
};
} // namespace

using namespace qfx::presets;

static const QConfigPreset kQConfigPresets[] = {
    {"default_qconfig",
     [] { return QConfig(defaultObserver(), defaultWeightObserver()); }},
    {"default_per_channel_qconfig",
     [] {
       return QConfig(defaultObserver(), defaultPerChannelWeightObserver());
     }},
    {"default_dynamic_qconfig",
     [] {
       return QConfig(defaultDynamicQuantObserver(), defaultWeightObserver());
     }},
    {"float16_dynamic_qconfig",
     [] {
       return QConfig(placeholder(DType::Float16, DType::Float16),
                      placeholder(DType::Float16));
     }},
    {"float16_static_qconfig",
     [] {
       return QConfig(placeholder(DType::Float16), placeholder(DType::Float16));
     }},
    {"per_channel_dynamic_qconfig",
     [] {
       return QConfig(defaultDynamicQuantObserver(),
                      defaultPerChannelWeightObserver());
     }},
    {"float_qparams_weight_only_qconfig",
     [] {
       return QConfig(defaultPlaceholderObserver(),
                      defaultFloatQParamsObserver(DType::QUInt8));
     }},
    {"float_qparams_weight_only_qconfig_4bit",
     [] {
       return QConfig(defaultPlaceholderObserver(),
                      defaultFloatQParamsObserver(DType::QUInt4x2));
     }},
    {"default_reuse_input_qconfig",
     [] {
       return QConfig(ObserverSpec(ObserverKind::ReuseInput),
                      ObserverSpec(ObserverKind::Noop));
     }},
    {"default_symmetric_qnnpack_qconfig",
     [] {
       return QConfig(symmetricQnnpackActivationObserver(),
                      weightObserverRangeNeg127To127());
     }},
    {"default_per_channel_symmetric_qnnpack_qconfig",
     [] {
       return QConfig(symmetricQnnpackActivationObserver(),
                      perChannelWeightObserverRangeNeg127To127());
     }},
};

llvm::ArrayRef<llvm::StringLiteral> qfx::getQConfigPresetNames() {
  static const llvm::SmallVector<llvm::StringLiteral> names = [] {
    llvm::SmallVector<llvm::StringLiteral> result;
    for (const QConfigPreset &preset : kQConfigPresets)
      result.push_back(preset.name);
    return result;
  }();
  return names;
}

std::optional<QConfig> qfx::getQConfigPreset(llvm::StringRef name) {
  for (const QConfigPreset &preset : kQConfigPresets)
    if (preset.name == name)
      return preset.build();
  return std::nullopt;
}

llvm::ArrayRef<llvm::StringLiteral> qfx::getDefaultQConfigBackendNames() {
  static constexpr llvm::StringLiteral names[] = {"x86", "fbgemm", "qnnpack",
                                                  "onednn"};
  return names;
}

std::optional<QConfig> qfx::getDefaultQConfig(llvm::StringRef backend) {
  if (backend == "fbgemm" || backend == "x86")
    return QConfig(histogram(/*reduceRange=*/true),
                   defaultPerChannelWeightObserver());
  if (backend == "qnnpack")
    return QConfig(histogram(/*reduceRange=*/false), defaultWeightObserver());
  if (backend == "onednn")
    return QConfig(histogram(/*reduceRange=*/false),
                   defaultPerChannelWeightObserver());
  return std::nullopt;
}
