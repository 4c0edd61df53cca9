//===- ConfigJSON.h - Configuration files -----------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The JSON form of the configuration, shaped like PyTorch 1.13's to_dict():
// observers, QConfigs, QConfigMappings and BackendConfigs; and the loaders
// the passes and tools use. Errors name the file, the JSON path
// (`configs[3].dtype_configs[0].input_dtype`) and what was expected. See
// docs/Config.md. Pure C++ (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_CONFIGJSON_H
#define QFX_CONFIG_CONFIGJSON_H

#include "qfx/Config/BackendConfig.h"
#include "qfx/Config/QConfigMapping.h"

#include "llvm/Support/JSON.h"

namespace qfx {

/// {"observer": "MinMaxObserver", "dtype": "quint8", ...}: the class name
/// and the arguments that are set, by PyTorch's names.
llvm::json::Value observerSpecToJSON(const ObserverSpec &spec);
/// {"activation": OBSERVER, "weight": OBSERVER}.
llvm::json::Value qconfigToJSON(const QConfig &qconfig);
/// A QConfig, or null.
llvm::json::Value qconfigToJSON(const OptionalQConfig &qconfig);
/// PyTorch's QConfigMapping.to_dict() with QConfigs as JSON.
llvm::json::Value qconfigMappingToJSON(const QConfigMapping &mapping);
/// A DTYPE string, or {"dtype": DTYPE, bounds...} if constrained.
llvm::json::Value dtypeWithConstraintsToJSON(const DTypeWithConstraints &d);
/// PyTorch's DTypeConfig.to_dict(): only the fields that are set.
llvm::json::Value dtypeConfigToJSON(const DTypeConfig &config);
/// PyTorch's BackendPatternConfig.to_dict(), with qfx's field names.
llvm::json::Value backendPatternConfigToJSON(const BackendPatternConfig &c);
/// PyTorch's BackendConfig.to_dict().
llvm::json::Value backendConfigToJSON(const BackendConfig &config);
/// getTorchToTOSAPatterns(): a list of {"torch_pattern": [...],
/// "tosa_pattern": [...]} with the TOSA pattern's "root_op", "fused_op",
/// "fuser", "reference_lowering" and "input_roles" where set (as
/// backendPatternConfigToJSON writes them).
llvm::json::Value torchToTOSAPatternsToJSON();

// The parsers take the document and the name of the file it came from (for
// messages); errors read "<file>: <json path>: <what was expected>".

/// Parses an OBSERVER object and validates it.
llvm::Expected<ObserverSpec> parseObserverSpec(const llvm::json::Value &value,
                                               llvm::StringRef fileName);
/// Parses a QCONFIG: an object, or a preset name such as "default_qconfig".
llvm::Expected<QConfig> parseQConfig(const llvm::json::Value &value,
                                     llvm::StringRef fileName);
/// Parses a QConfigMapping document, or a preset string such as
/// "default:x86".
llvm::Expected<QConfigMapping>
parseQConfigMapping(const llvm::json::Value &value, llvm::StringRef fileName);
/// Parses a BackendConfig document, or the name of a built-in table.
llvm::Expected<BackendConfig> parseBackendConfig(const llvm::json::Value &value,
                                                 llvm::StringRef fileName);

/// Parses `text` as JSON and then as a QConfigMapping.
llvm::Expected<QConfigMapping>
parseQConfigMappingText(llvm::StringRef text, llvm::StringRef fileName);
/// Parses `text` as JSON and then as a BackendConfig.
llvm::Expected<BackendConfig> parseBackendConfigText(llvm::StringRef text,
                                                     llvm::StringRef fileName);

/// A preset ("default:x86", "default:fbgemm", "default:qnnpack",
/// "default:onednn") or the path of a QConfigMapping JSON file.
llvm::Expected<QConfigMapping> loadQConfigMapping(llvm::StringRef pathOrPreset);
/// A built-in table ("x86", "fbgemm", "qnnpack", "onednn", "tosa") or the
/// path of a
/// BackendConfig JSON file.
llvm::Expected<BackendConfig> loadBackendConfig(llvm::StringRef nameOrPath);

/// The preset names loadQConfigMapping accepts, for diagnostics.
std::string getQConfigMappingPresetList();

} // namespace qfx

#endif // QFX_CONFIG_CONFIGJSON_H
