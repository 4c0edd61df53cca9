//===- QConfigMapping.h - Which QConfig each op gets ------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch 1.13's QConfigMapping and its resolution rules
// (torch/ao/quantization/qconfig_mapping_utils.py and
// fx/qconfig_mapping_utils.py). Pure C++ (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_QCONFIGMAPPING_H
#define QFX_CONFIG_QCONFIGMAPPING_H

#include "qfx/Config/QConfig.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"

#include <memory>
#include <string>
#include <vector>

namespace qfx {

/// An op whose QConfig is looked up: its module name and the object types it
/// is known by.
///
/// PyTorch resolves a node by chaining lookups, each with its own object type
/// (generate_qconfig_map: a call_function node is looked up by its function,
/// then by the type of the module it is called in). `objectTypes` is that
/// chain, in increasing priority: an object type later in the list that has
/// an `object_type` entry overrides an earlier one. A qfx op usually passes
/// its op name, then its origin type, e.g. {"tosa.conv2d", "torch.nn.Conv2d"}.
struct QConfigQuery {
  /// One object type the op is known by.
  struct ObjectType {
    /// An op name ("tosa.conv2d"), a PyTorch type or function
    /// ("torch.nn.Conv2d", "torch.nn.functional.relu") or a method ("reshape").
    std::string type;
    /// The op's index among the ops of `type` in `orderModuleName`, in program
    /// order, for `module_name_object_type_order`; none if not counted.
    std::optional<int64_t> orderIndex;
    /// The module whose ops `orderIndex` counts. PyTorch counts a
    /// call_function in the module it is called from, but a call_module in
    /// the parent of the called module.
    std::string orderModuleName;
    /// False for a type only counted for `module_name_object_type_order`,
    /// not looked up among the `object_type` entries: a fused module is
    /// counted as the module it was fused from, the type PyTorch's tracer
    /// recorded before fusion.
    bool lookUp = true;
  };

  /// The dotted module name ("layer1.0.conv1"); "" for the top level.
  std::string moduleName;
  /// The object types, in increasing priority.
  llvm::SmallVector<ObjectType, 2> objectTypes;

  QConfigQuery() = default;
  explicit QConfigQuery(llvm::StringRef moduleName) : moduleName(moduleName) {}

  /// Adds an object type that is not counted for
  /// `module_name_object_type_order`.
  QConfigQuery &addObjectType(llvm::StringRef type);
  /// Adds an object type and the op's index among the ops of that type in
  /// `orderModuleName`.
  QConfigQuery &addObjectType(llvm::StringRef type, int64_t orderIndex,
                              llvm::StringRef orderModuleName);
  /// Same, counting in the query's own module name.
  QConfigQuery &addObjectType(llvm::StringRef type, int64_t orderIndex);
  /// Adds a type counted for `module_name_object_type_order` only (see
  /// ObjectType::lookUp).
  QConfigQuery &addOrderOnlyType(llvm::StringRef type, int64_t orderIndex,
                                 llvm::StringRef orderModuleName);
};

/// Maps ops to QConfigs, by PyTorch's rules, in increasing priority: the
/// global QConfig, object type, module name regex, module name, and module
/// name + object type + order index. Every entry may be none, which means
/// "do not quantize". Setting a key again replaces its QConfig in place, so
/// entries keep their first registration order.
class QConfigMapping {
public:
  /// An `object_type` entry.
  struct ObjectTypeEntry {
    std::string objectType;
    OptionalQConfig qconfig;
  };
  /// A `module_name_regex` entry, with the regex compiled once.
  struct ModuleNameRegexEntry {
    std::string regex;
    OptionalQConfig qconfig;
    /// Null if `regex` does not compile (see validate()).
    std::shared_ptr<const llvm::Regex> compiled;
  };
  /// A `module_name` entry.
  struct ModuleNameEntry {
    std::string moduleName;
    OptionalQConfig qconfig;
  };
  /// A `module_name_object_type_order` entry.
  struct ModuleNameObjectTypeOrderEntry {
    std::string moduleName;
    std::string objectType;
    int64_t index;
    OptionalQConfig qconfig;
  };

  QConfigMapping() = default;

  /// PyTorch's set_global.
  QConfigMapping &setGlobal(OptionalQConfig qconfig);
  /// PyTorch's set_object_type.
  QConfigMapping &setObjectType(llvm::StringRef objectType,
                                OptionalQConfig qconfig);
  /// PyTorch's set_module_name_regex. The regex is Python's `re` syntax,
  /// matched with re.match (anchored at the start only); qfx accepts the
  /// subset that translates to POSIX extended regexes (see
  /// translatePythonRegex). A regex that does not compile never matches and
  /// makes validate() fail.
  QConfigMapping &setModuleNameRegex(llvm::StringRef regex,
                                     OptionalQConfig qconfig);
  /// PyTorch's set_module_name.
  QConfigMapping &setModuleName(llvm::StringRef moduleName,
                                OptionalQConfig qconfig);
  /// PyTorch's set_module_name_object_type_order.
  QConfigMapping &setModuleNameObjectTypeOrder(llvm::StringRef moduleName,
                                               llvm::StringRef objectType,
                                               int64_t index,
                                               OptionalQConfig qconfig);

  const OptionalQConfig &getGlobal() const { return globalQConfig; }
  llvm::ArrayRef<ObjectTypeEntry> getObjectTypeEntries() const {
    return objectTypeEntries;
  }
  llvm::ArrayRef<ModuleNameRegexEntry> getModuleNameRegexEntries() const {
    return moduleNameRegexEntries;
  }
  llvm::ArrayRef<ModuleNameEntry> getModuleNameEntries() const {
    return moduleNameEntries;
  }
  llvm::ArrayRef<ModuleNameObjectTypeOrderEntry>
  getModuleNameObjectTypeOrderEntries() const {
    return moduleNameObjectTypeOrderEntries;
  }

  /// Checks every regex and every QConfig. The message names the entry.
  llvm::Error validate() const;

  /// The QConfig of the op described by `query`, or none if it is not to be
  /// quantized.
  OptionalQConfig resolve(const QConfigQuery &query) const;

  // The steps of resolve(), by PyTorch's names, for callers that chain them
  // differently. Each returns `fallback` when it has no entry.

  /// get_object_type_qconfig: the `object_type` entry of `objectType`.
  OptionalQConfig getObjectTypeQConfig(llvm::StringRef objectType,
                                       const OptionalQConfig &fallback) const;
  /// get_module_name_regex_qconfig: the first regex, in registration order,
  /// that matches the start of `moduleName`.
  OptionalQConfig
  getModuleNameRegexQConfig(llvm::StringRef moduleName,
                            const OptionalQConfig &fallback) const;
  /// get_module_name_qconfig: the `module_name` entry of `moduleName` or of
  /// its closest dotted prefix ("a.b.c", then "a.b", then "a"). The empty
  /// name matches nothing, not even an entry set for "".
  OptionalQConfig getModuleNameQConfig(llvm::StringRef moduleName,
                                       const OptionalQConfig &fallback) const;
  /// maybe_adjust_qconfig_for_module_type_or_name: object type, then regex,
  /// then module name, each overriding the previous.
  OptionalQConfig
  adjustForModuleTypeOrName(llvm::StringRef objectType,
                            llvm::StringRef moduleName,
                            const OptionalQConfig &fallback) const;
  /// maybe_adjust_qconfig_for_module_name_object_type_order: the first
  /// `module_name_object_type_order` entry equal to (moduleName, objectType,
  /// index).
  OptionalQConfig
  adjustForModuleNameObjectTypeOrder(llvm::StringRef moduleName,
                                     llvm::StringRef objectType, int64_t index,
                                     const OptionalQConfig &fallback) const;

  bool operator==(const QConfigMapping &other) const;
  bool operator!=(const QConfigMapping &other) const {
    return !(*this == other);
  }

private:
  OptionalQConfig globalQConfig;
  std::vector<ObjectTypeEntry> objectTypeEntries;
  std::vector<ModuleNameRegexEntry> moduleNameRegexEntries;
  std::vector<ModuleNameEntry> moduleNameEntries;
  std::vector<ModuleNameObjectTypeOrderEntry> moduleNameObjectTypeOrderEntries;
};

/// Translates a Python `re` regex into an anchored POSIX extended regex for
/// llvm::Regex with re.match's semantics (anchored at the start only). Handles
/// \d, \w, \s (and \D, \W, \S outside brackets) and escaped punctuation;
/// rejects what POSIX cannot express ((?...) groups, lazy quantifiers,
/// backreferences, \b, ...) with a message saying what is unsupported.
llvm::Expected<std::string> translatePythonRegex(llvm::StringRef regex);

/// The backends of get_default_qconfig_mapping: "x86", "fbgemm", "qnnpack",
/// "onednn".
llvm::ArrayRef<llvm::StringLiteral> getDefaultQConfigMappingBackendNames();

/// PyTorch's get_default_qconfig_mapping(backend) (post-training, version 0),
/// or none for an unknown backend. The QAT variant
/// (get_default_qat_qconfig_mapping) is not provided: its observers are fake
/// quantizers, which ObserverSpec does not describe.
std::optional<QConfigMapping> getDefaultQConfigMapping(llvm::StringRef backend);

} // namespace qfx

#endif // QFX_CONFIG_QCONFIGMAPPING_H
