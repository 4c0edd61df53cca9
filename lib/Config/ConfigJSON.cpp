//===- ConfigJSON.cpp - Configuration files -------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Writers build llvm::json values shaped like PyTorch 1.13's to_dict(); the
// readers walk a parsed document, keep the JSON path of the value at hand and
// stop at the first problem with "<file>: <path>: <what was expected>".
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/ConfigJSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <limits>

using namespace qfx;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

//===----------------------------------------------------------------------===//
// Writers
//===----------------------------------------------------------------------===//

static Value observerArgToJSON(const ObserverSpec &spec, ObserverArg arg) {
  switch (arg) {
  case ObserverArg::DType:
    return stringifyDType(*spec.dtype);
  case ObserverArg::QScheme:
    return stringifyQScheme(*spec.qscheme);
  case ObserverArg::ReduceRange:
    return *spec.reduceRange;
  case ObserverArg::QuantMin:
    return *spec.quantMin;
  case ObserverArg::QuantMax:
    return *spec.quantMax;
  case ObserverArg::Eps:
    return *spec.eps;
  case ObserverArg::ChAxis:
    return *spec.chAxis;
  case ObserverArg::AveragingConstant:
    return *spec.averagingConstant;
  case ObserverArg::Bins:
    return *spec.bins;
  case ObserverArg::UpsampleRate:
    return *spec.upsampleRate;
  case ObserverArg::Scale:
    return *spec.scale;
  case ObserverArg::ZeroPoint:
    return *spec.zeroPoint;
  case ObserverArg::ComputeDType:
    return stringifyDType(*spec.computeDType);
  }
  return nullptr;
}

static constexpr unsigned kNumObserverArgs =
    static_cast<unsigned>(ObserverArg::ComputeDType) + 1;

Value qfx::observerSpecToJSON(const ObserverSpec &spec) {
  Object object;
  object["observer"] = getObserverClassName(spec.kind);
  for (unsigned a = 0; a < kNumObserverArgs; ++a) {
    auto arg = static_cast<ObserverArg>(a);
    if (spec.isSet(arg))
      object[stringifyObserverArg(arg)] = observerArgToJSON(spec, arg);
  }
  return object;
}

Value qfx::qconfigToJSON(const QConfig &qconfig) {
  return Object{{"activation", observerSpecToJSON(qconfig.activation)},
                {"weight", observerSpecToJSON(qconfig.weight)}};
}

Value qfx::qconfigToJSON(const OptionalQConfig &qconfig) {
  if (!qconfig)
    return nullptr;
  return qconfigToJSON(*qconfig);
}

Value qfx::qconfigMappingToJSON(const QConfigMapping &mapping) {
  Array objectTypes, regexes, names, orders;
  for (const auto &entry : mapping.getObjectTypeEntries())
    objectTypes.push_back(
        Array{entry.objectType, qconfigToJSON(entry.qconfig)});
  for (const auto &entry : mapping.getModuleNameRegexEntries())
    regexes.push_back(Array{entry.regex, qconfigToJSON(entry.qconfig)});
  for (const auto &entry : mapping.getModuleNameEntries())
    names.push_back(Array{entry.moduleName, qconfigToJSON(entry.qconfig)});
  for (const auto &entry : mapping.getModuleNameObjectTypeOrderEntries())
    orders.push_back(Array{entry.moduleName, entry.objectType, entry.index,
                           qconfigToJSON(entry.qconfig)});
  return Object{{"", qconfigToJSON(mapping.getGlobal())},
                {"object_type", std::move(objectTypes)},
                {"module_name_regex", std::move(regexes)},
                {"module_name", std::move(names)},
                {"module_name_object_type_order", std::move(orders)}};
}

Value qfx::dtypeWithConstraintsToJSON(const DTypeWithConstraints &d) {
  if (d.isUnconstrained())
    return stringifyDType(d.dtype);
  Object object{{"dtype", stringifyDType(d.dtype)}};
  if (d.quantMinLowerBound)
    object["quant_min_lower_bound"] = *d.quantMinLowerBound;
  if (d.quantMaxUpperBound)
    object["quant_max_upper_bound"] = *d.quantMaxUpperBound;
  if (d.scaleMinLowerBound)
    object["scale_min_lower_bound"] = *d.scaleMinLowerBound;
  if (d.scaleMaxUpperBound)
    object["scale_max_upper_bound"] = *d.scaleMaxUpperBound;
  return object;
}

Value qfx::dtypeConfigToJSON(const DTypeConfig &config) {
  Object object;
  if (config.inputDType)
    object["input_dtype"] = dtypeWithConstraintsToJSON(*config.inputDType);
  if (config.outputDType)
    object["output_dtype"] = dtypeWithConstraintsToJSON(*config.outputDType);
  if (config.weightDType)
    object["weight_dtype"] = dtypeWithConstraintsToJSON(*config.weightDType);
  if (config.biasDType)
    object["bias_dtype"] = stringifyDType(*config.biasDType);
  if (config.isDynamic)
    object["is_dynamic"] = *config.isDynamic;
  return object;
}

/// The TOSA-only fields of a pattern, as BackendPatternConfig's JSON names
/// them.
static void
addTOSAFields(Object &object, std::optional<llvm::StringRef> rootOp,
              std::optional<llvm::StringRef> fusedOp,
              std::optional<llvm::StringRef> fuser,
              std::optional<LoweringKind> referenceLowering,
              llvm::ArrayRef<std::pair<InputRole, OperandRef>> roles) {
  for (auto [key, value] :
       {std::pair{"root_op", rootOp}, std::pair{"fused_op", fusedOp},
        std::pair{"fuser", fuser}})
    if (value)
      object[key] = value->str(); // a copy: json::Value keeps StringRefs
  if (referenceLowering)
    object["reference_lowering"] =
        stringifyLoweringKind(*referenceLowering).str();
  if (roles.empty())
    return;
  Object rolesObject;
  for (const auto &[role, operand] : roles)
    rolesObject[stringifyInputRole(role)] =
        Array{operand.opIndex, operand.operandIndex};
  object["input_roles"] = std::move(rolesObject);
}

Value qfx::torchToTOSAPatternsToJSON() {
  auto optional = [](llvm::StringRef text) {
    return text.empty() ? std::nullopt : std::optional<llvm::StringRef>(text);
  };
  Array patterns;
  for (const TorchToTOSAPattern &pattern : getTorchToTOSAPatterns()) {
    Object object{{"torch_pattern", Array(pattern.torchPattern)},
                  {"tosa_pattern", Array(pattern.tosaPattern)}};
    llvm::SmallVector<std::pair<InputRole, OperandRef>, 2> roles;
    if (pattern.weight)
      roles.push_back({InputRole::Weight, *pattern.weight});
    if (pattern.bias)
      roles.push_back({InputRole::Bias, *pattern.bias});
    addTOSAFields(object, optional(pattern.rootOp), optional(pattern.fusedOp),
                  optional(pattern.fuser), pattern.referenceLowering, roles);
    patterns.push_back(std::move(object));
  }
  return patterns;
}

Value qfx::backendPatternConfigToJSON(const BackendPatternConfig &c) {
  Object object;
  llvm::ArrayRef<std::string> pattern = c.getPattern();
  if (pattern.size() == 1)
    object["pattern"] = pattern.front();
  else
    object["pattern"] = Array(pattern);
  object["observation_type"] = stringifyObservationType(c.getObservationType());
  Array dtypeConfigs;
  for (const DTypeConfig &config : c.getDTypeConfigs())
    dtypeConfigs.push_back(dtypeConfigToJSON(config));
  object["dtype_configs"] = std::move(dtypeConfigs);
  llvm::SmallVector<std::pair<InputRole, OperandRef>, 2> roles(
      c.getInputRoles().begin(), c.getInputRoles().end());
  addTOSAFields(object, c.getRootOp(), c.getFusedOp(), c.getFuser(),
                c.getReferenceLowering(), roles);
  if (!c.getNumTensorArgsToObservationType().empty()) {
    Object types;
    for (const auto &[count, type] : c.getNumTensorArgsToObservationType())
      types[std::to_string(count)] = stringifyObservationType(type);
    object["num_tensor_args_to_observation_type"] = std::move(types);
  }
  if (c.getOverwriteOutputObserver())
    object["overwrite_output_observer"] =
        observerSpecToJSON(*c.getOverwriteOutputObserver());
  return object;
}

Value qfx::backendConfigToJSON(const BackendConfig &config) {
  Array configs;
  for (const BackendPatternConfig &c : config.getConfigs())
    configs.push_back(backendPatternConfigToJSON(c));
  return Object{{"name", config.getName().str()},
                {"configs", std::move(configs)}};
}

//===----------------------------------------------------------------------===//
// Readers
//===----------------------------------------------------------------------===//

namespace {
/// Walks a document, keeping the JSON path of the value being read.
class Reader {
public:
  explicit Reader(llvm::StringRef fileName) : fileName(fileName) {}

  /// Enters a field or an element for the lifetime of the scope.
  class Scope {
  public:
    Scope(Reader &reader, llvm::StringRef field) : reader(reader) {
      reader.segments.push_back(reader.segments.empty() ? field.str()
                                                        : ("." + field).str());
    }
    Scope(Reader &reader, size_t index) : reader(reader) {
      reader.segments.push_back(llvm::formatv("[{0}]", index).str());
    }
    ~Scope() { reader.segments.pop_back(); }

  private:
    Reader &reader;
  };

  /// "<file>: <path>: <message>".
  llvm::Error error(const llvm::Twine &message) const {
    std::string where = fileName.str();
    std::string path = llvm::join(segments, "");
    if (!path.empty())
      where += (where.empty() ? "" : ": ") + path;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   (where.empty() ? "" : where + ": ") +
                                       message);
  }

  llvm::Expected<const Object *> getObject(const Value &value,
                                           llvm::StringRef what) {
    if (const Object *object = value.getAsObject())
      return object;
    return error("expected " + what + " (a JSON object), got " +
                 describe(value));
  }
  llvm::Expected<const Array *> getArray(const Value &value,
                                         llvm::StringRef what) {
    if (const Array *array = value.getAsArray())
      return array;
    return error("expected " + what + " (a JSON array), got " +
                 describe(value));
  }
  llvm::Expected<llvm::StringRef> getString(const Value &value,
                                            llvm::StringRef what) {
    if (std::optional<llvm::StringRef> s = value.getAsString())
      return *s;
    return error("expected " + what + " (a string), got " + describe(value));
  }
  llvm::Expected<int64_t> getInteger(const Value &value, llvm::StringRef what) {
    // llvm::json's getAsInteger converts the integral double 2^63 (as in
    // 9.3e18) to int64_t, which overflows; integers written without a
    // fraction or exponent it checks itself.
    std::optional<double> number = value.getAsNumber();
    if (number && std::abs(*number) >= 0x1p63 && !value.getAsUINT64() &&
        *number != -0x1p63)
      return error("expected " + what + " (an integer), got " +
                   describe(value) + ", which does not fit in 64 bits");
    if (std::optional<int64_t> i = value.getAsInteger())
      return *i;
    return error("expected " + what + " (an integer), got " + describe(value));
  }
  llvm::Expected<double> getNumber(const Value &value, llvm::StringRef what) {
    if (std::optional<double> d = value.getAsNumber())
      return *d;
    return error("expected " + what + " (a number), got " + describe(value));
  }
  llvm::Expected<bool> getBoolean(const Value &value, llvm::StringRef what) {
    if (std::optional<bool> b = value.getAsBoolean())
      return *b;
    return error("expected " + what + " (true or false), got " +
                 describe(value));
  }
  llvm::Expected<DType> getDType(const Value &value) {
    llvm::Expected<llvm::StringRef> name = getString(value, "a dtype");
    if (!name)
      return name.takeError();
    if (std::optional<DType> dtype = symbolizeDType(*name))
      return *dtype;
    return error("unknown dtype '" + *name + "'; expected one of " +
                 allDTypeNames());
  }

  /// Fails on a key not in `allowed`.
  llvm::Error checkKeys(const Object &object,
                        llvm::ArrayRef<llvm::StringRef> allowed,
                        llvm::StringRef what) {
    for (const auto &[key, value] : object)
      if (!llvm::is_contained(allowed, llvm::StringRef(key))) {
        std::vector<std::string> quoted;
        for (llvm::StringRef name : allowed)
          quoted.push_back(("\"" + name + "\"").str());
        return error("unknown key \"" + llvm::StringRef(key) + "\" in " + what +
                     "; expected " + llvm::join(quoted, ", "));
      }
    return llvm::Error::success();
  }

  static std::string describe(const Value &value) {
    switch (value.kind()) {
    case Value::Null:
      return "null";
    case Value::Boolean:
      return *value.getAsBoolean() ? "true" : "false";
    case Value::Number:
      return llvm::formatv("{0}", value).str();
    case Value::String:
      return ("\"" + *value.getAsString() + "\"").str();
    case Value::Array:
      return "an array";
    case Value::Object:
      return "an object";
    }
    return "a value";
  }

  llvm::Expected<ObserverSpec> parseObserver(const Value &value);
  llvm::Expected<QConfig> parseQConfig(const Value &value);
  llvm::Expected<OptionalQConfig> parseOptionalQConfig(const Value &value);
  llvm::Expected<QConfigMapping> parseQConfigMapping(const Value &value);
  llvm::Expected<DTypeWithConstraints> parseDTypeWithConstraints(const Value &);
  llvm::Expected<DTypeConfig> parseDTypeConfig(const Value &value);
  llvm::Expected<BackendPatternConfig> parsePatternConfig(const Value &value);
  llvm::Expected<BackendConfig> parseBackendConfig(const Value &value);

private:
  llvm::Expected<ObservationType> parseObservationType(const Value &value);

  llvm::StringRef fileName;
  llvm::SmallVector<std::string> segments;
};
} // namespace

llvm::Expected<ObserverSpec> Reader::parseObserver(const Value &value) {
  llvm::Expected<const Object *> object =
      getObject(value, "an observer {\"observer\": CLASS, ...}");
  if (!object)
    return object.takeError();
  const Value *className = (*object)->get("observer");
  if (!className)
    return error("missing key \"observer\" (the observer's class name, e.g. "
                 "\"MinMaxObserver\")");
  ObserverSpec spec;
  {
    Scope scope(*this, "observer");
    llvm::Expected<llvm::StringRef> name =
        getString(*className, "an observer class name");
    if (!name)
      return name.takeError();
    std::optional<ObserverKind> kind = symbolizeObserverClassName(*name);
    if (!kind) {
      std::vector<std::string> names;
      for (unsigned k = 0; k <= static_cast<unsigned>(ObserverKind::ReuseInput);
           ++k)
        names.push_back(
            getObserverClassName(static_cast<ObserverKind>(k)).str());
      return error("unknown observer '" + *name + "'; expected one of " +
                   llvm::join(names, ", "));
    }
    spec.kind = *kind;
  }
  for (const auto &member : **object) {
    // Named references: lambdas below capture them (structured bindings
    // cannot be captured before C++20).
    const llvm::json::ObjectKey &key = member.first;
    const llvm::json::Value &argValue = member.second;
    if (key == "observer")
      continue;
    std::optional<ObserverArg> arg = symbolizeObserverArg(key);
    if (!arg) {
      std::vector<std::string> names{"observer"};
      for (unsigned a = 0; a < kNumObserverArgs; ++a)
        names.push_back(
            stringifyObserverArg(static_cast<ObserverArg>(a)).str());
      return error("unknown key \"" + llvm::StringRef(key) +
                   "\" in an observer; expected " + llvm::join(names, ", "));
    }
    Scope scope(*this, key);
    if (!observerTakesArg(spec.kind, *arg))
      return error(getObserverClassName(spec.kind) + " takes no argument '" +
                   llvm::StringRef(key) + "'");
    auto setInteger = [&](std::optional<int64_t> &field) -> llvm::Error {
      llvm::Expected<int64_t> i = getInteger(argValue, key);
      if (!i)
        return i.takeError();
      field = *i;
      return llvm::Error::success();
    };
    auto setNumber = [&](std::optional<double> &field) -> llvm::Error {
      llvm::Expected<double> d = getNumber(argValue, key);
      if (!d)
        return d.takeError();
      field = *d;
      return llvm::Error::success();
    };
    auto setDType = [&](std::optional<DType> &field) -> llvm::Error {
      llvm::Expected<DType> d = getDType(argValue);
      if (!d)
        return d.takeError();
      field = *d;
      return llvm::Error::success();
    };
    llvm::Error err = llvm::Error::success();
    switch (*arg) {
    case ObserverArg::DType:
      err = setDType(spec.dtype);
      break;
    case ObserverArg::ComputeDType:
      err = setDType(spec.computeDType);
      break;
    case ObserverArg::QScheme: {
      llvm::Expected<llvm::StringRef> name = getString(argValue, "a qscheme");
      if (!name)
        return name.takeError();
      spec.qscheme = symbolizeQScheme(*name);
      if (!spec.qscheme)
        return error("unknown qscheme '" + *name + "'; expected one of " +
                     allQSchemeNames());
      break;
    }
    case ObserverArg::ReduceRange: {
      llvm::Expected<bool> b = getBoolean(argValue, key);
      if (!b)
        return b.takeError();
      spec.reduceRange = *b;
      break;
    }
    case ObserverArg::QuantMin:
      err = setInteger(spec.quantMin);
      break;
    case ObserverArg::QuantMax:
      err = setInteger(spec.quantMax);
      break;
    case ObserverArg::ChAxis:
      err = setInteger(spec.chAxis);
      break;
    case ObserverArg::Bins:
      err = setInteger(spec.bins);
      break;
    case ObserverArg::UpsampleRate:
      err = setInteger(spec.upsampleRate);
      break;
    case ObserverArg::ZeroPoint:
      err = setInteger(spec.zeroPoint);
      break;
    case ObserverArg::Eps:
      err = setNumber(spec.eps);
      break;
    case ObserverArg::AveragingConstant:
      err = setNumber(spec.averagingConstant);
      break;
    case ObserverArg::Scale:
      err = setNumber(spec.scale);
      break;
    }
    if (err)
      return std::move(err);
  }
  if (llvm::Error err = spec.validate())
    return error(llvm::toString(std::move(err)));
  return spec;
}

llvm::Expected<QConfig> Reader::parseQConfig(const Value &value) {
  if (std::optional<llvm::StringRef> name = value.getAsString()) {
    if (std::optional<QConfig> preset = getQConfigPreset(*name))
      return *preset;
    std::vector<std::string> names;
    for (llvm::StringRef preset : getQConfigPresetNames())
      names.push_back(preset.str());
    return error("unknown qconfig preset '" + *name + "'; expected one of " +
                 llvm::join(names, ", "));
  }
  llvm::Expected<const Object *> object = getObject(
      value, "a qconfig {\"activation\": OBSERVER, \"weight\": OBSERVER} or "
             "a qconfig preset name");
  if (!object)
    return object.takeError();
  if (llvm::Error err =
          checkKeys(**object, {"activation", "weight"}, "a qconfig"))
    return std::move(err);
  QConfig qconfig;
  for (auto [key, field] : {std::pair{"activation", &qconfig.activation},
                            std::pair{"weight", &qconfig.weight}}) {
    const Value *observer = (*object)->get(key);
    if (!observer)
      return error(llvm::Twine("missing key \"") + key + "\" in a qconfig");
    Scope scope(*this, key);
    llvm::Expected<ObserverSpec> spec = parseObserver(*observer);
    if (!spec)
      return spec.takeError();
    *field = std::move(*spec);
  }
  return qconfig;
}

llvm::Expected<OptionalQConfig>
Reader::parseOptionalQConfig(const Value &value) {
  if (value.kind() == Value::Null)
    return OptionalQConfig();
  llvm::Expected<QConfig> qconfig = parseQConfig(value);
  if (!qconfig)
    return qconfig.takeError();
  return OptionalQConfig(std::move(*qconfig));
}

static llvm::Expected<QConfigMapping> getPresetMapping(llvm::StringRef name) {
  llvm::StringRef backend = name;
  if (backend.consume_front("default:"))
    if (std::optional<QConfigMapping> mapping =
            getDefaultQConfigMapping(backend))
      return std::move(*mapping);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown qconfig mapping preset '" + name +
                                     "'; expected one of " +
                                     getQConfigMappingPresetList());
}

std::string qfx::getQConfigMappingPresetList() {
  std::vector<std::string> names;
  for (llvm::StringRef backend : getDefaultQConfigMappingBackendNames())
    names.push_back(("default:" + backend).str());
  return llvm::join(names, ", ");
}

llvm::Expected<QConfigMapping> Reader::parseQConfigMapping(const Value &value) {
  if (std::optional<llvm::StringRef> name = value.getAsString()) {
    llvm::Expected<QConfigMapping> mapping = getPresetMapping(*name);
    if (!mapping)
      return error(llvm::toString(mapping.takeError()));
    return mapping;
  }
  llvm::Expected<const Object *> objectOrErr =
      getObject(value, "a qconfig mapping or a preset name");
  if (!objectOrErr)
    return objectOrErr.takeError();
  const Object &object = **objectOrErr;
  if (llvm::Error err =
          checkKeys(object,
                    {"", "object_type", "module_name_regex", "module_name",
                     "module_name_object_type_order"},
                    "a qconfig mapping"))
    return std::move(err);
  QConfigMapping mapping;
  if (const Value *global = object.get("")) {
    Scope scope(*this, "\"\"");
    llvm::Expected<OptionalQConfig> qconfig = parseOptionalQConfig(*global);
    if (!qconfig)
      return qconfig.takeError();
    mapping.setGlobal(std::move(*qconfig));
  }

  // Each section is a list of [KEY..., QCONFIG|null] entries.
  auto forEachEntry =
      [&](llvm::StringRef section, size_t arity, llvm::StringRef shape,
          llvm::function_ref<llvm::Error(const Array &, OptionalQConfig)> add)
      -> llvm::Error {
    const Value *list = object.get(section);
    if (!list)
      return llvm::Error::success();
    Scope sectionScope(*this, section);
    llvm::Expected<const Array *> entries = getArray(*list, "a list");
    if (!entries)
      return entries.takeError();
    for (auto [index, entryValue] : llvm::enumerate(**entries)) {
      Scope entryScope(*this, index);
      llvm::Expected<const Array *> entry = getArray(entryValue, shape);
      if (!entry)
        return entry.takeError();
      if ((*entry)->size() != arity)
        return error(llvm::formatv("expected {0}, got {1} elements", shape,
                                   (*entry)->size()));
      Scope qconfigScope(*this, arity - 1);
      llvm::Expected<OptionalQConfig> qconfig =
          parseOptionalQConfig((**entry)[arity - 1]);
      if (!qconfig)
        return qconfig.takeError();
      if (llvm::Error err = add(**entry, std::move(*qconfig)))
        return err;
    }
    return llvm::Error::success();
  };
  auto stringAt = [&](const Array &entry, size_t i,
                      llvm::StringRef what) -> llvm::Expected<llvm::StringRef> {
    segments.back() = llvm::formatv("[{0}]", i).str();
    return getString(entry[i], what);
  };

  if (llvm::Error err = forEachEntry(
          "object_type", 2, "[TYPE, QCONFIG|null]",
          [&](const Array &entry, OptionalQConfig qconfig) -> llvm::Error {
            llvm::Expected<llvm::StringRef> type =
                stringAt(entry, 0, "an object type");
            if (!type)
              return type.takeError();
            mapping.setObjectType(*type, std::move(qconfig));
            return llvm::Error::success();
          }))
    return std::move(err);
  if (llvm::Error err = forEachEntry(
          "module_name_regex", 2, "[REGEX, QCONFIG|null]",
          [&](const Array &entry, OptionalQConfig qconfig) -> llvm::Error {
            llvm::Expected<llvm::StringRef> regex =
                stringAt(entry, 0, "a module name regex");
            if (!regex)
              return regex.takeError();
            llvm::Expected<std::string> translated =
                translatePythonRegex(*regex);
            if (!translated)
              return error(llvm::toString(translated.takeError()));
            std::string why;
            if (!llvm::Regex(*translated).isValid(why))
              return error("invalid regex '" + *regex + "': " + why);
            mapping.setModuleNameRegex(*regex, std::move(qconfig));
            return llvm::Error::success();
          }))
    return std::move(err);
  if (llvm::Error err = forEachEntry(
          "module_name", 2, "[NAME, QCONFIG|null]",
          [&](const Array &entry, OptionalQConfig qconfig) -> llvm::Error {
            llvm::Expected<llvm::StringRef> name =
                stringAt(entry, 0, "a module name");
            if (!name)
              return name.takeError();
            mapping.setModuleName(*name, std::move(qconfig));
            return llvm::Error::success();
          }))
    return std::move(err);
  if (llvm::Error err = forEachEntry(
          "module_name_object_type_order", 4,
          "[NAME, TYPE, INDEX, QCONFIG|null]",
          [&](const Array &entry, OptionalQConfig qconfig) -> llvm::Error {
            llvm::Expected<llvm::StringRef> name =
                stringAt(entry, 0, "a module name");
            if (!name)
              return name.takeError();
            llvm::Expected<llvm::StringRef> type =
                stringAt(entry, 1, "an object type");
            if (!type)
              return type.takeError();
            segments.back() = "[2]";
            llvm::Expected<int64_t> index =
                getInteger(entry[2], "an order index");
            if (!index)
              return index.takeError();
            if (*index < 0)
              return error(llvm::formatv(
                  "expected an order index >= 0, got {0}", *index));
            mapping.setModuleNameObjectTypeOrder(*name, *type, *index,
                                                 std::move(qconfig));
            return llvm::Error::success();
          }))
    return std::move(err);
  return mapping;
}

llvm::Expected<DTypeWithConstraints>
Reader::parseDTypeWithConstraints(const Value &value) {
  if (value.getAsString()) {
    llvm::Expected<DType> dtype = getDType(value);
    if (!dtype)
      return dtype.takeError();
    return DTypeWithConstraints(*dtype);
  }
  llvm::Expected<const Object *> object = getObject(
      value, "a dtype or {\"dtype\": DTYPE, \"quant_min_lower_bound\": ...}");
  if (!object)
    return object.takeError();
  if (llvm::Error err =
          checkKeys(**object,
                    {"dtype", "quant_min_lower_bound", "quant_max_upper_bound",
                     "scale_min_lower_bound", "scale_max_upper_bound"},
                    "a dtype with constraints"))
    return std::move(err);
  const Value *dtypeValue = (*object)->get("dtype");
  if (!dtypeValue)
    return error("missing key \"dtype\" in a dtype with constraints");
  DTypeWithConstraints result;
  {
    Scope scope(*this, "dtype");
    llvm::Expected<DType> dtype = getDType(*dtypeValue);
    if (!dtype)
      return dtype.takeError();
    result.dtype = *dtype;
  }
  for (auto [key, field] :
       {std::pair{"quant_min_lower_bound", &result.quantMinLowerBound},
        std::pair{"quant_max_upper_bound", &result.quantMaxUpperBound}})
    if (const Value *bound = (*object)->get(key)) {
      Scope scope(*this, key);
      llvm::Expected<int64_t> i = getInteger(*bound, key);
      if (!i)
        return i.takeError();
      *field = *i;
    }
  for (auto [key, field] :
       {std::pair{"scale_min_lower_bound", &result.scaleMinLowerBound},
        std::pair{"scale_max_upper_bound", &result.scaleMaxUpperBound}})
    if (const Value *bound = (*object)->get(key)) {
      Scope scope(*this, key);
      llvm::Expected<double> d = getNumber(*bound, key);
      if (!d)
        return d.takeError();
      *field = *d;
    }
  if (llvm::Error err = result.validate())
    return error(llvm::toString(std::move(err)));
  return result;
}

llvm::Expected<DTypeConfig> Reader::parseDTypeConfig(const Value &value) {
  llvm::Expected<const Object *> object = getObject(value, "a dtype config");
  if (!object)
    return object.takeError();
  if (llvm::Error err = checkKeys(**object,
                                  {"input_dtype", "output_dtype",
                                   "weight_dtype", "bias_dtype", "is_dynamic"},
                                  "a dtype config"))
    return std::move(err);
  DTypeConfig config;
  for (auto [key, field] : {std::pair{"input_dtype", &config.inputDType},
                            std::pair{"output_dtype", &config.outputDType},
                            std::pair{"weight_dtype", &config.weightDType}})
    if (const Value *dtype = (*object)->get(key)) {
      Scope scope(*this, key);
      llvm::Expected<DTypeWithConstraints> parsed =
          parseDTypeWithConstraints(*dtype);
      if (!parsed)
        return parsed.takeError();
      *field = *parsed;
    }
  if (const Value *bias = (*object)->get("bias_dtype")) {
    Scope scope(*this, "bias_dtype");
    llvm::Expected<DType> dtype = getDType(*bias);
    if (!dtype)
      return dtype.takeError();
    config.biasDType = *dtype;
  }
  if (const Value *dynamic = (*object)->get("is_dynamic")) {
    Scope scope(*this, "is_dynamic");
    llvm::Expected<bool> b = getBoolean(*dynamic, "is_dynamic");
    if (!b)
      return b.takeError();
    config.isDynamic = *b;
  }
  return config;
}

llvm::Expected<ObservationType>
Reader::parseObservationType(const Value &value) {
  llvm::Expected<llvm::StringRef> name =
      getString(value, "an observation type");
  if (!name)
    return name.takeError();
  if (std::optional<ObservationType> type = symbolizeObservationType(*name))
    return *type;
  return error("unknown observation type '" + *name +
               "'; expected output_use_different_observer_as_input or "
               "output_share_observer_with_input");
}

llvm::Expected<BackendPatternConfig>
Reader::parsePatternConfig(const Value &value) {
  llvm::Expected<const Object *> objectOrErr =
      getObject(value, "a backend pattern config");
  if (!objectOrErr)
    return objectOrErr.takeError();
  const Object &object = **objectOrErr;
  if (llvm::Error err = checkKeys(
          object,
          {"pattern", "observation_type", "dtype_configs", "root_op",
           "fused_op", "fuser", "reference_lowering", "input_roles",
           "num_tensor_args_to_observation_type", "overwrite_output_observer"},
          "a backend pattern config"))
    return std::move(err);

  const Value *patternValue = object.get("pattern");
  if (!patternValue)
    return error("missing key \"pattern\" in a backend pattern config");
  llvm::SmallVector<llvm::StringRef, kMaxPatternLength> ops;
  {
    Scope scope(*this, "pattern");
    if (std::optional<llvm::StringRef> op = patternValue->getAsString()) {
      ops.push_back(*op);
    } else {
      llvm::Expected<const Array *> array =
          getArray(*patternValue, "an op name or a list of 1 to 3 op names");
      if (!array)
        return array.takeError();
      if ((*array)->empty() || (*array)->size() > kMaxPatternLength)
        return error(llvm::formatv("expected 1 to {0} ops, got {1}",
                                   kMaxPatternLength, (*array)->size()));
      for (auto [index, op] : llvm::enumerate(**array)) {
        Scope opScope(*this, index);
        llvm::Expected<llvm::StringRef> name = getString(op, "an op name");
        if (!name)
          return name.takeError();
        ops.push_back(*name);
      }
    }
    for (llvm::StringRef op : ops)
      if (op.empty())
        return error("expected op names, got an empty name");
  }
  BackendPatternConfig config(ops);

  if (const Value *type = object.get("observation_type")) {
    Scope scope(*this, "observation_type");
    llvm::Expected<ObservationType> parsed = parseObservationType(*type);
    if (!parsed)
      return parsed.takeError();
    config.setObservationType(*parsed);
  }
  if (const Value *list = object.get("dtype_configs")) {
    Scope scope(*this, "dtype_configs");
    llvm::Expected<const Array *> array =
        getArray(*list, "a list of dtype configs");
    if (!array)
      return array.takeError();
    for (auto [index, element] : llvm::enumerate(**array)) {
      Scope elementScope(*this, index);
      llvm::Expected<DTypeConfig> dtypeConfig = parseDTypeConfig(element);
      if (!dtypeConfig)
        return dtypeConfig.takeError();
      config.addDTypeConfig(std::move(*dtypeConfig));
    }
  }
  for (llvm::StringRef key :
       {"root_op", "fused_op", "fuser", "reference_lowering"}) {
    const Value *field = object.get(key);
    if (!field)
      continue;
    Scope scope(*this, key);
    llvm::Expected<llvm::StringRef> name = getString(*field, key);
    if (!name)
      return name.takeError();
    if (key == "root_op") {
      if (!llvm::is_contained(ops, *name))
        return error("'" + *name + "' is not an op of the pattern");
      config.setRootOp(*name);
    } else if (key == "fused_op") {
      config.setFusedOp(*name);
    } else if (key == "fuser") {
      config.setFuser(*name);
    } else if (std::optional<LoweringKind> kind =
                   symbolizeLoweringKind(*name)) {
      config.setReferenceLowering(*kind);
    } else {
      return error("unknown lowering kind '" + *name + "'; expected one of " +
                   getLoweringKindNames());
    }
  }
  if (const Value *roles = object.get("input_roles")) {
    Scope scope(*this, "input_roles");
    llvm::Expected<const Object *> rolesObject = getObject(
        *roles, "input roles {\"weight\": [OP, OPERAND], \"bias\": ...}");
    if (!rolesObject)
      return rolesObject.takeError();
    if (llvm::Error err =
            checkKeys(**rolesObject, {"weight", "bias"}, "input_roles"))
      return std::move(err);
    for (const auto &[key, operandValue] : **rolesObject) {
      Scope roleScope(*this, key);
      llvm::Expected<const Array *> pair =
          getArray(operandValue, "[OP INDEX, OPERAND INDEX]");
      if (!pair)
        return pair.takeError();
      if ((*pair)->size() != 2)
        return error(llvm::formatv("expected [OP INDEX, OPERAND INDEX], got "
                                   "{0} elements",
                                   (*pair)->size()));
      int64_t indices[2];
      for (unsigned i = 0; i < 2; ++i) {
        Scope indexScope(*this, i);
        llvm::Expected<int64_t> index = getInteger(
            (**pair)[i], i == 0 ? "an op index" : "an operand index");
        if (!index)
          return index.takeError();
        if (*index < 0 || *index > std::numeric_limits<unsigned>::max())
          return error(
              llvm::formatv("expected an index in [0, 2^32), got {0}", *index));
        indices[i] = *index;
      }
      if (static_cast<size_t>(indices[0]) >= ops.size())
        return error(
            llvm::formatv("op index {0} is outside the pattern of {1} ops",
                          indices[0], ops.size()));
      config.setInputRole(*symbolizeInputRole(key),
                          OperandRef{static_cast<unsigned>(indices[0]),
                                     static_cast<unsigned>(indices[1])});
    }
  }
  if (const Value *types = object.get("num_tensor_args_to_observation_type")) {
    Scope scope(*this, "num_tensor_args_to_observation_type");
    llvm::Expected<const Object *> typesObject =
        getObject(*types, "{\"NUMBER OF TENSOR ARGS\": OBSERVATION TYPE, ...}");
    if (!typesObject)
      return typesObject.takeError();
    for (const auto &[key, typeValue] : **typesObject) {
      Scope keyScope(*this, key);
      unsigned count;
      if (llvm::StringRef(key).getAsInteger(10, count))
        return error("expected a number of tensor arguments as key, got \"" +
                     llvm::StringRef(key) + "\"");
      llvm::Expected<ObservationType> type = parseObservationType(typeValue);
      if (!type)
        return type.takeError();
      config.setNumTensorArgsToObservationType(count, *type);
    }
  }
  if (const Value *observer = object.get("overwrite_output_observer")) {
    Scope scope(*this, "overwrite_output_observer");
    llvm::Expected<ObserverSpec> spec = parseObserver(*observer);
    if (!spec)
      return spec.takeError();
    config.setOverwriteOutputObserver(std::move(*spec));
  }
  if (llvm::Error err = config.validate())
    return error(llvm::toString(std::move(err)));
  return config;
}

llvm::Expected<BackendConfig> Reader::parseBackendConfig(const Value &value) {
  if (std::optional<llvm::StringRef> name = value.getAsString()) {
    if (std::optional<BackendConfig> table = getBackendConfig(*name))
      return std::move(*table);
    return error("unknown backend config '" + *name + "'; expected one of " +
                 llvm::join(getBackendConfigNames(), ", "));
  }
  llvm::Expected<const Object *> object =
      getObject(value, "a backend config {\"name\": ..., \"configs\": [...]}");
  if (!object)
    return object.takeError();
  if (llvm::Error err =
          checkKeys(**object, {"name", "configs"}, "a backend config"))
    return std::move(err);
  BackendConfig config;
  if (const Value *name = (*object)->get("name")) {
    Scope scope(*this, "name");
    llvm::Expected<llvm::StringRef> s = getString(*name, "a backend name");
    if (!s)
      return s.takeError();
    config.setName(*s);
  }
  if (const Value *configs = (*object)->get("configs")) {
    Scope scope(*this, "configs");
    llvm::Expected<const Array *> array =
        getArray(*configs, "a list of backend pattern configs");
    if (!array)
      return array.takeError();
    for (auto [index, element] : llvm::enumerate(**array)) {
      Scope elementScope(*this, index);
      llvm::Expected<BackendPatternConfig> pattern =
          parsePatternConfig(element);
      if (!pattern)
        return pattern.takeError();
      config.setBackendPatternConfig(std::move(*pattern));
    }
  }
  return config;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

llvm::Expected<ObserverSpec> qfx::parseObserverSpec(const Value &value,
                                                    llvm::StringRef fileName) {
  return Reader(fileName).parseObserver(value);
}

llvm::Expected<QConfig> qfx::parseQConfig(const Value &value,
                                          llvm::StringRef fileName) {
  return Reader(fileName).parseQConfig(value);
}

llvm::Expected<QConfigMapping>
qfx::parseQConfigMapping(const Value &value, llvm::StringRef fileName) {
  return Reader(fileName).parseQConfigMapping(value);
}

llvm::Expected<BackendConfig>
qfx::parseBackendConfig(const Value &value, llvm::StringRef fileName) {
  return Reader(fileName).parseBackendConfig(value);
}

static llvm::Expected<Value> parseJSONText(llvm::StringRef text,
                                           llvm::StringRef fileName) {
  llvm::Expected<Value> value = llvm::json::parse(text);
  if (!value)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        (fileName.empty() ? "" : fileName + ": ") +
            "invalid JSON: " + llvm::toString(value.takeError()));
  return value;
}

llvm::Expected<QConfigMapping>
qfx::parseQConfigMappingText(llvm::StringRef text, llvm::StringRef fileName) {
  llvm::Expected<Value> value = parseJSONText(text, fileName);
  if (!value)
    return value.takeError();
  return parseQConfigMapping(*value, fileName);
}

llvm::Expected<BackendConfig>
qfx::parseBackendConfigText(llvm::StringRef text, llvm::StringRef fileName) {
  llvm::Expected<Value> value = parseJSONText(text, fileName);
  if (!value)
    return value.takeError();
  return parseBackendConfig(*value, fileName);
}

static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(llvm::StringRef path, llvm::StringRef what) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   path + ": cannot read " + what + ": " +
                                       buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<QConfigMapping>
qfx::loadQConfigMapping(llvm::StringRef pathOrPreset) {
  if (pathOrPreset.starts_with("default:"))
    return getPresetMapping(pathOrPreset);
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readFile(pathOrPreset, "the qconfig mapping (a JSON file or one of " +
                                 getQConfigMappingPresetList() + ")");
  if (!buffer)
    return buffer.takeError();
  return parseQConfigMappingText((*buffer)->getBuffer(), pathOrPreset);
}

llvm::Expected<BackendConfig>
qfx::loadBackendConfig(llvm::StringRef nameOrPath) {
  if (std::optional<BackendConfig> table = getBackendConfig(nameOrPath))
    return std::move(*table);
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readFile(nameOrPath, "the backend config (a JSON file or one of " +
                               llvm::join(getBackendConfigNames(), ", ") + ")");
  if (!buffer)
    return buffer.takeError();
  return parseBackendConfigText((*buffer)->getBuffer(), nameOrPath);
}
