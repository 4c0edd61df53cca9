//===- QConfigMapping.cpp - Which QConfig each op gets --------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Resolution follows PyTorch 1.13's qconfig_mapping_utils.py and
// fx/qconfig_mapping_utils.py (generate_qconfig_map); the default mapping
// follows qconfig_mapping.py's _get_default_qconfig_mapping.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/QConfigMapping.h"

#include "Presets.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace qfx;

//===----------------------------------------------------------------------===//
// QConfigQuery
//===----------------------------------------------------------------------===//

QConfigQuery &QConfigQuery::addObjectType(llvm::StringRef type) {
  objectTypes.push_back({type.str(), std::nullopt, ""});
  return *this;
}

QConfigQuery &QConfigQuery::addObjectType(llvm::StringRef type,
                                          int64_t orderIndex,
                                          llvm::StringRef orderModuleName) {
  objectTypes.push_back({type.str(), orderIndex, orderModuleName.str()});
  return *this;
}

QConfigQuery &QConfigQuery::addObjectType(llvm::StringRef type,
                                          int64_t orderIndex) {
  return addObjectType(type, orderIndex, moduleName);
}

QConfigQuery &QConfigQuery::addOrderOnlyType(llvm::StringRef type,
                                             int64_t orderIndex,
                                             llvm::StringRef orderModuleName) {
  objectTypes.push_back(
      {type.str(), orderIndex, orderModuleName.str(), /*lookUp=*/false});
  return *this;
}

//===----------------------------------------------------------------------===//
// Python regexes
//===----------------------------------------------------------------------===//

static llvm::Error regexError(llvm::StringRef regex, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "regex '" + regex + "': " + what);
}

static bool isQuantifierEnd(char c) {
  return c == '*' || c == '+' || c == '?' || c == '}';
}

llvm::Expected<std::string> qfx::translatePythonRegex(llvm::StringRef regex) {
  std::string out;
  bool inBracket = false;
  // Position of the first character after '[' or '[^', where ']' is literal.
  size_t bracketStart = 0;
  for (size_t i = 0, e = regex.size(); i < e; ++i) {
    char c = regex[i];
    if (c == '\\') {
      if (i + 1 == e)
        return regexError(regex, "ends with a lone backslash");
      char next = regex[++i];
      llvm::StringRef klass;
      bool negated = false;
      switch (next) {
      case 'd':
      case 'D':
        klass = "0-9";
        negated = next == 'D';
        break;
      case 'w':
      case 'W':
        klass = "A-Za-z0-9_";
        negated = next == 'W';
        break;
      case 's':
      case 'S':
        klass = " \t\n\r\f\v";
        negated = next == 'S';
        break;
      case 'n':
        out += '\n';
        continue;
      case 't':
        out += '\t';
        continue;
      default:
        if (llvm::isAlnum(next))
          return regexError(regex, "the escape \\" + std::string(1, next) +
                                       " is not supported (qfx matches "
                                       "module names with POSIX extended "
                                       "regexes)");
        if (inBracket) {
          if (next == ']' || next == '^' || next == '-')
            return regexError(regex, "the escape \\" + std::string(1, next) +
                                         " inside [...] is not supported");
          out += next;
        } else {
          out += '\\';
          out += next;
        }
        continue;
      }
      if (inBracket) {
        if (negated)
          return regexError(regex, "the escape \\" + std::string(1, next) +
                                       " inside [...] is not supported");
        out += klass;
      } else {
        out += negated ? "[^" : "[";
        out += klass;
        out += ']';
      }
      continue;
    }
    if (inBracket) {
      if (c == ']' && i != bracketStart)
        inBracket = false;
      out += c;
      continue;
    }
    if (c == '[') {
      inBracket = true;
      out += c;
      if (i + 1 < e && regex[i + 1] == '^') {
        out += '^';
        ++i;
      }
      bracketStart = i + 1;
      continue;
    }
    if (c == '(' && i + 1 < e && regex[i + 1] == '?')
      return regexError(regex, "(?...) groups are not supported");
    if (c == '?' && i > 0 && isQuantifierEnd(regex[i - 1]) &&
        !(i > 1 && regex[i - 2] == '\\'))
      return regexError(regex, "lazy quantifiers are not supported");
    out += c;
  }
  if (inBracket)
    return regexError(regex, "unterminated [...]");
  if (out.empty())
    return std::string("^");
  return "^(" + out + ")";
}

static std::shared_ptr<const llvm::Regex> compileRegex(llvm::StringRef regex,
                                                       std::string &error) {
  llvm::Expected<std::string> translated = translatePythonRegex(regex);
  if (!translated) {
    error = llvm::toString(translated.takeError());
    return nullptr;
  }
  auto compiled = std::make_shared<llvm::Regex>(*translated);
  std::string why;
  if (!compiled->isValid(why)) {
    error = ("regex '" + regex + "': " + why).str();
    return nullptr;
  }
  return compiled;
}

//===----------------------------------------------------------------------===//
// QConfigMapping
//===----------------------------------------------------------------------===//

QConfigMapping &QConfigMapping::setGlobal(OptionalQConfig qconfig) {
  globalQConfig = std::move(qconfig);
  return *this;
}

// Python's OrderedDict keeps the first insertion position of a key when its
// value is replaced; so do these setters.
QConfigMapping &QConfigMapping::setObjectType(llvm::StringRef objectType,
                                              OptionalQConfig qconfig) {
  for (ObjectTypeEntry &entry : objectTypeEntries)
    if (entry.objectType == objectType) {
      entry.qconfig = std::move(qconfig);
      return *this;
    }
  objectTypeEntries.push_back({objectType.str(), std::move(qconfig)});
  return *this;
}

QConfigMapping &QConfigMapping::setModuleNameRegex(llvm::StringRef regex,
                                                   OptionalQConfig qconfig) {
  for (ModuleNameRegexEntry &entry : moduleNameRegexEntries)
    if (entry.regex == regex) {
      entry.qconfig = std::move(qconfig);
      return *this;
    }
  std::string error;
  moduleNameRegexEntries.push_back(
      {regex.str(), std::move(qconfig), compileRegex(regex, error)});
  return *this;
}

QConfigMapping &QConfigMapping::setModuleName(llvm::StringRef moduleName,
                                              OptionalQConfig qconfig) {
  for (ModuleNameEntry &entry : moduleNameEntries)
    if (entry.moduleName == moduleName) {
      entry.qconfig = std::move(qconfig);
      return *this;
    }
  moduleNameEntries.push_back({moduleName.str(), std::move(qconfig)});
  return *this;
}

QConfigMapping &QConfigMapping::setModuleNameObjectTypeOrder(
    llvm::StringRef moduleName, llvm::StringRef objectType, int64_t index,
    OptionalQConfig qconfig) {
  for (ModuleNameObjectTypeOrderEntry &entry : moduleNameObjectTypeOrderEntries)
    if (entry.moduleName == moduleName && entry.objectType == objectType &&
        entry.index == index) {
      entry.qconfig = std::move(qconfig);
      return *this;
    }
  moduleNameObjectTypeOrderEntries.push_back(
      {moduleName.str(), objectType.str(), index, std::move(qconfig)});
  return *this;
}

static llvm::Error checkQConfig(const OptionalQConfig &qconfig,
                                const llvm::Twine &where) {
  if (!qconfig)
    return llvm::Error::success();
  if (llvm::Error err = qconfig->validate())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   where + ": " +
                                       llvm::toString(std::move(err)));
  return llvm::Error::success();
}

llvm::Error QConfigMapping::validate() const {
  if (llvm::Error err = checkQConfig(globalQConfig, "global qconfig"))
    return err;
  for (const ObjectTypeEntry &entry : objectTypeEntries)
    if (llvm::Error err = checkQConfig(
            entry.qconfig, "object_type '" + entry.objectType + "'"))
      return err;
  for (const ModuleNameRegexEntry &entry : moduleNameRegexEntries) {
    std::string error;
    if (!entry.compiled && !compileRegex(entry.regex, error))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
    if (llvm::Error err = checkQConfig(entry.qconfig, "module_name_regex '" +
                                                          entry.regex + "'"))
      return err;
  }
  for (const ModuleNameEntry &entry : moduleNameEntries)
    if (llvm::Error err = checkQConfig(
            entry.qconfig, "module_name '" + entry.moduleName + "'"))
      return err;
  for (const ModuleNameObjectTypeOrderEntry &entry :
       moduleNameObjectTypeOrderEntries)
    if (llvm::Error err = checkQConfig(
            entry.qconfig,
            llvm::formatv("module_name_object_type_order ('{0}', '{1}', {2})",
                          entry.moduleName, entry.objectType, entry.index)))
      return err;
  return llvm::Error::success();
}

OptionalQConfig
QConfigMapping::getObjectTypeQConfig(llvm::StringRef objectType,
                                     const OptionalQConfig &fallback) const {
  for (const ObjectTypeEntry &entry : objectTypeEntries)
    if (entry.objectType == objectType)
      return entry.qconfig;
  return fallback;
}

OptionalQConfig QConfigMapping::getModuleNameRegexQConfig(
    llvm::StringRef moduleName, const OptionalQConfig &fallback) const {
  for (const ModuleNameRegexEntry &entry : moduleNameRegexEntries)
    if (entry.compiled && entry.compiled->match(moduleName))
      return entry.qconfig;
  return fallback;
}

OptionalQConfig
QConfigMapping::getModuleNameQConfig(llvm::StringRef moduleName,
                                     const OptionalQConfig &fallback) const {
  // PyTorch recurses on _parent_name(name), i.e. name.rsplit('.', 1)[0], and
  // stops at "" without looking it up.
  while (!moduleName.empty()) {
    for (const ModuleNameEntry &entry : moduleNameEntries)
      if (entry.moduleName == moduleName)
        return entry.qconfig;
    size_t dot = moduleName.rfind('.');
    moduleName = dot == llvm::StringRef::npos ? llvm::StringRef()
                                              : moduleName.take_front(dot);
  }
  return fallback;
}

OptionalQConfig QConfigMapping::adjustForModuleTypeOrName(
    llvm::StringRef objectType, llvm::StringRef moduleName,
    const OptionalQConfig &fallback) const {
  OptionalQConfig qconfig = getObjectTypeQConfig(objectType, fallback);
  qconfig = getModuleNameRegexQConfig(moduleName, qconfig);
  return getModuleNameQConfig(moduleName, qconfig);
}

OptionalQConfig QConfigMapping::adjustForModuleNameObjectTypeOrder(
    llvm::StringRef moduleName, llvm::StringRef objectType, int64_t index,
    const OptionalQConfig &fallback) const {
  for (const ModuleNameObjectTypeOrderEntry &entry :
       moduleNameObjectTypeOrderEntries)
    if (entry.moduleName == moduleName && entry.objectType == objectType &&
        entry.index == index)
      return entry.qconfig;
  return fallback;
}

// generate_qconfig_map chains these lookups: a call_function node takes its
// function's object type entry, then adjusts for the enclosing module's type
// and name, then for the order index; a call_method node does the same with
// the method name without an order index. A chain over all object types in
// increasing priority reproduces each of these.
OptionalQConfig QConfigMapping::resolve(const QConfigQuery &query) const {
  OptionalQConfig qconfig = globalQConfig;
  if (query.objectTypes.empty()) {
    qconfig = getModuleNameRegexQConfig(query.moduleName, qconfig);
    return getModuleNameQConfig(query.moduleName, qconfig);
  }
  for (const QConfigQuery::ObjectType &type : query.objectTypes)
    if (type.lookUp)
      qconfig = adjustForModuleTypeOrName(type.type, query.moduleName, qconfig);
  for (const QConfigQuery::ObjectType &type : query.objectTypes)
    if (type.orderIndex)
      qconfig = adjustForModuleNameObjectTypeOrder(
          type.orderModuleName, type.type, *type.orderIndex, qconfig);
  return qconfig;
}

bool QConfigMapping::operator==(const QConfigMapping &other) const {
  auto sameObjectType = [](const ObjectTypeEntry &a, const ObjectTypeEntry &b) {
    return a.objectType == b.objectType && a.qconfig == b.qconfig;
  };
  auto sameRegex = [](const ModuleNameRegexEntry &a,
                      const ModuleNameRegexEntry &b) {
    return a.regex == b.regex && a.qconfig == b.qconfig;
  };
  auto sameName = [](const ModuleNameEntry &a, const ModuleNameEntry &b) {
    return a.moduleName == b.moduleName && a.qconfig == b.qconfig;
  };
  auto sameOrder = [](const ModuleNameObjectTypeOrderEntry &a,
                      const ModuleNameObjectTypeOrderEntry &b) {
    return a.moduleName == b.moduleName && a.objectType == b.objectType &&
           a.index == b.index && a.qconfig == b.qconfig;
  };
  return globalQConfig == other.globalQConfig &&
         llvm::equal(objectTypeEntries, other.objectTypeEntries,
                     sameObjectType) &&
         llvm::equal(moduleNameRegexEntries, other.moduleNameRegexEntries,
                     sameRegex) &&
         llvm::equal(moduleNameEntries, other.moduleNameEntries, sameName) &&
         llvm::equal(moduleNameObjectTypeOrderEntries,
                     other.moduleNameObjectTypeOrderEntries, sameOrder);
}

//===----------------------------------------------------------------------===//
// get_default_qconfig_mapping
//===----------------------------------------------------------------------===//

llvm::ArrayRef<llvm::StringLiteral>
qfx::getDefaultQConfigMappingBackendNames() {
  return getDefaultQConfigBackendNames();
}

std::optional<QConfigMapping>
qfx::getDefaultQConfigMapping(llvm::StringRef backend) {
  std::optional<QConfig> qconfig = getDefaultQConfig(backend);
  if (!qconfig)
    return std::nullopt;
  ObserverSpec defaultWeight = presets::defaultWeightObserver();

  // default_per_channel_weight_observer does not work with fbgemm's
  // transposed convolutions (pytorch/pytorch#47535).
  QConfig transpose = *qconfig;
  if (backend == "fbgemm" || backend == "x86")
    transpose.weight = defaultWeight;
  // Layer norm keeps float weights.
  QConfig layerNorm(qconfig->activation, presets::defaultPlaceholderObserver());

  QConfigMapping mapping;
  mapping.setGlobal(*qconfig)
      .setObjectType("reshape", getQConfigPreset("default_reuse_input_qconfig"))
      .setObjectType("torch.nn.Conv1d", qconfig)
      .setObjectType("torch.nn.Conv2d", qconfig)
      .setObjectType("torch.nn.Conv3d", qconfig)
      .setObjectType("torch.nn.ConvTranspose1d", transpose)
      .setObjectType("torch.nn.ConvTranspose2d", transpose)
      .setObjectType("torch.nn.ConvTranspose3d", transpose)
      .setObjectType("torch.nn.Linear", qconfig)
      .setObjectType("torch.nn.functional.conv1d", qconfig)
      .setObjectType("torch.nn.functional.conv2d", qconfig)
      .setObjectType("torch.nn.functional.conv3d", qconfig)
      .setObjectType("torch.nn.functional.conv_transpose1d", transpose)
      .setObjectType("torch.nn.functional.conv_transpose2d", transpose)
      .setObjectType("torch.nn.functional.conv_transpose3d", transpose)
      .setObjectType("torch.nn.functional.linear", qconfig)
      .setObjectType("torch.nn.ReLU", qconfig)
      .setObjectType("torch.nn.functional.relu", qconfig)
      .setObjectType("torch.relu", qconfig)
      .setObjectType("torch.nn.BatchNorm1d", qconfig)
      .setObjectType("torch.nn.BatchNorm2d", qconfig)
      .setObjectType("torch.nn.BatchNorm3d", qconfig)
      .setObjectType("torch.nn.functional.layer_norm", layerNorm)
      .setObjectType("torch.nn.LayerNorm", layerNorm);

  // _FIXED_QPARAMS_OP_TO_OBSERVER, in its order.
  QConfig range0To1(presets::defaultFixedQParamsRange0To1Observer(),
                    defaultWeight);
  QConfig rangeNeg1To1(presets::defaultFixedQParamsRangeNeg1To1Observer(),
                       defaultWeight);
  for (llvm::StringRef op :
       {"torch.nn.Hardsigmoid", "torch.nn.functional.hardsigmoid",
        "hardsigmoid", "hardsigmoid_", "torch.nn.Sigmoid", "torch.sigmoid",
        "sigmoid", "sigmoid_", "torch.nn.Softmax"})
    mapping.setObjectType(op, range0To1);
  for (llvm::StringRef op : {"torch.nn.Tanh", "torch.tanh", "tanh", "tanh_"})
    mapping.setObjectType(op, rangeNeg1To1);
  return mapping;
}
