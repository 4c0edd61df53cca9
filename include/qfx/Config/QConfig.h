//===- QConfig.h - Activation and weight observers of an op -----*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch 1.13's QConfig: the observer for an op's activations and the one
// for its weights, and the named QConfigs of torch.ao.quantization.qconfig.
// Pure C++ (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_QCONFIG_H
#define QFX_CONFIG_QCONFIG_H

#include "qfx/Numerics/ObserverSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace qfx {

/// How to observe an op: PyTorch's `QConfig(activation=..., weight=...)`.
struct QConfig {
  ObserverSpec activation;
  ObserverSpec weight;

  QConfig() = default;
  QConfig(ObserverSpec activation, ObserverSpec weight)
      : activation(std::move(activation)), weight(std::move(weight)) {}

  /// Validates both observers; the message says which one is wrong.
  llvm::Error validate() const;

  bool operator==(const QConfig &other) const {
    return activation == other.activation && weight == other.weight;
  }
  bool operator!=(const QConfig &other) const { return !(*this == other); }
};

/// PyTorch's `QConfigAny`: a QConfig, or none (= do not quantize).
using OptionalQConfig = std::optional<QConfig>;

/// The names of the QConfig presets, as in PyTorch 1.13's qconfig.py
/// (default_qconfig, default_per_channel_qconfig, ...).
llvm::ArrayRef<llvm::StringLiteral> getQConfigPresetNames();

/// The QConfig preset `name` (a name of getQConfigPresetNames()), or none if
/// there is no such preset.
std::optional<QConfig> getQConfigPreset(llvm::StringRef name);

/// The backends of get_default_qconfig: "x86", "fbgemm", "qnnpack",
/// "onednn".
llvm::ArrayRef<llvm::StringLiteral> getDefaultQConfigBackendNames();

/// PyTorch's get_default_qconfig(backend) (version 0), or none for a backend
/// that is not one of getDefaultQConfigBackendNames(). PyTorch falls back to
/// default_qconfig for unknown backends; qfx rejects them instead.
std::optional<QConfig> getDefaultQConfig(llvm::StringRef backend);

} // namespace qfx

#endif // QFX_CONFIG_QCONFIG_H
