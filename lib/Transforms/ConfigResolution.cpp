//===- ConfigResolution.cpp - Apply the configuration to IR ---------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Transforms/ConfigResolution.h"

#include "qfx/Config/ConfigJSON.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <map>

using namespace qfx;

//===----------------------------------------------------------------------===//
// Scopes and object types
//===----------------------------------------------------------------------===//

std::optional<OpScope> qfx::getOpScope(Operation *op) {
  auto module =
      op->getAttrOfType<mlir::StringAttr>(QFXDialect::getModuleNameAttrName());
  if (!module)
    return std::nullopt;
  OpScope scope;
  scope.moduleName = module.getValue().str();
  if (auto node = op->getAttrOfType<mlir::StringAttr>(
          QFXDialect::getNodeNameAttrName()))
    scope.nodeName = node.getValue().str();
  return scope;
}

void qfx::setOpScope(Operation *op, const OpScope &scope) {
  mlir::MLIRContext *context = op->getContext();
  op->setAttr(QFXDialect::getModuleNameAttrName(),
              mlir::StringAttr::get(context, scope.moduleName));
  if (scope.isFunctional())
    op->setAttr(QFXDialect::getNodeNameAttrName(),
                mlir::StringAttr::get(context, scope.nodeName));
}

std::optional<OpScope> qfx::getLocationScope(mlir::Location loc) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc)) {
    OpScope scope;
    scope.moduleName = name.getName().str();
    if (auto child = llvm::dyn_cast<mlir::NameLoc>(name.getChildLoc()))
      scope.nodeName = child.getName().str();
    return scope;
  }
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location inner : fused.getLocations())
      if (std::optional<OpScope> scope = getLocationScope(inner))
        return scope;
    return std::nullopt;
  }
  if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(loc))
    return getLocationScope(callSite.getCallee());
  return std::nullopt;
}

StringRef qfx::getPatternName(Operation *op) {
  if (auto composite = llvm::dyn_cast<CompositeOp>(op))
    return composite.getName();
  return op->getName().getStringRef();
}

std::string qfx::describeOp(Operation *op) {
  if (auto fused = llvm::dyn_cast<FusedOp>(op))
    return "qfx.fused \"" + fused.getName().str() + "\"";
  if (auto composite = llvm::dyn_cast<CompositeOp>(op))
    return "qfx.composite \"" + composite.getName().str() + "\"";
  return op->getName().getStringRef().str();
}

SmallVector<std::string, 2> qfx::getObjectTypes(Operation *op) {
  SmallVector<std::string, 2> types;
  auto origin =
      op->getAttrOfType<mlir::StringAttr>(QFXDialect::getOriginAttrName());
  if (!origin)
    origin =
        op->getAttrOfType<mlir::StringAttr>(QFXDialect::getPartOfAttrName());
  // A composite is named after a PyTorch op; with an origin, PyTorch keys
  // the op by that alone (F.hardswish is no nn.Hardswish to its mapping).
  if (!origin || !llvm::isa<CompositeOp>(op))
    types.push_back(getPatternName(op).str());
  if (origin) {
    StringRef type = origin.getValue();
    // PyTorch keys tensor methods by their bare name ("reshape").
    type.consume_front("torch.Tensor.");
    types.push_back(type.str());
  }
  return types;
}

bool qfx::isQuantizationCandidate(Operation *op) {
  if (op->hasTrait<mlir::OpTrait::IsTerminator>() ||
      op->hasTrait<mlir::OpTrait::ConstantLike>())
    return false;
  if (llvm::isa<mlir::tosa::ConstOp, mlir::tosa::ConstShapeOp,
                mlir::arith::ConstantOp, ObserveOp, FusedOp>(op))
    return false;
  if (op->getParentOfType<CompositeOp>())
    return false;
  if (llvm::isa<CompositeOp>(op))
    return true;
  // Functions and modules are containers, not ops of the model.
  return op->getNumRegions() == 0;
}

bool qfx::isLayoutGlue(Operation *op) {
  return !op->hasAttr(QFXDialect::getOriginAttrName()) &&
         llvm::isa<mlir::tosa::TransposeOp, mlir::tosa::ReshapeOp,
                   mlir::tosa::SliceOp>(op);
}

//===----------------------------------------------------------------------===//
// QConfigQueries
//===----------------------------------------------------------------------===//

/// The parent of a dotted module name, as PyTorch's _parent_name: "a.b" for
/// "a.b.c", "" for "a".
static StringRef getParentModuleName(StringRef moduleName) {
  size_t dot = moduleName.rfind('.');
  return dot == StringRef::npos ? StringRef() : moduleName.take_front(dot);
}

QConfigQueries::QConfigQueries(Operation *root) {
  // (counting module, object type) -> call site or node -> its index.
  std::map<std::pair<std::string, std::string>, llvm::StringMap<int64_t>>
      indices;
  auto indexOf = [&](const std::string &countingModule, StringRef type,
                     StringRef identity) {
    llvm::StringMap<int64_t> &seen = indices[{countingModule, type.str()}];
    return seen.try_emplace(identity, seen.size()).first->second;
  };
  unsigned anonymous = 0;
  root->walk<mlir::WalkOrder::PreOrder>([&](Operation *op) {
    if (std::optional<TorchFusedModule> fused = getFusedModule(op)) {
      // getFusedModule found a module call with a scope first.
      std::string moduleName =
          getOpScope(getFusedPatternOps(op).front())->moduleName;
      std::string countingModule = getParentModuleName(moduleName).str();
      QConfigQuery query(moduleName);
      query.addObjectType(fused->type);
      query.addOrderOnlyType(
          fused->parts.front(),
          indexOf(countingModule, fused->parts.front(), moduleName),
          countingModule);
      queries.try_emplace(op, std::move(query));
      return mlir::WalkResult::skip();
    }
    if (!isQuantizationCandidate(op))
      return mlir::WalkResult::advance();
    std::optional<OpScope> scope = getOpScope(op);
    // An op without a module name is at the top level and is its own call
    // site.
    OpScope resolved = scope.value_or(OpScope());
    std::string identity;
    std::string countingModule;
    if (!scope) {
      identity = "#" + std::to_string(anonymous++);
    } else if (resolved.isFunctional()) {
      identity = resolved.nodeName;
      countingModule = resolved.moduleName;
    } else {
      identity = resolved.moduleName;
      countingModule = getParentModuleName(resolved.moduleName).str();
    }
    QConfigQuery query(resolved.moduleName);
    for (const std::string &type : getObjectTypes(op))
      query.addObjectType(type, indexOf(countingModule, type, identity),
                          countingModule);
    queries.try_emplace(op, std::move(query));
    return mlir::WalkResult::advance();
  });
}

const QConfigQuery *QConfigQueries::lookup(Operation *op) const {
  auto it = queries.find(op);
  return it == queries.end() ? nullptr : &it->second;
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

LogicalResult qfx::PassConfig::load(mlir::MLIRContext *context,
                                    StringRef backendOption,
                                    std::optional<StringRef> mappingOption) {
  bool ok = true;
  if (llvm::Expected<BackendConfig> loaded = loadBackendConfig(backendOption)) {
    backend = std::make_shared<const BackendConfig>(std::move(*loaded));
  } else {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "backend: " << llvm::toString(loaded.takeError());
    ok = false;
  }
  if (!mappingOption)
    return success(ok);
  if (llvm::Expected<QConfigMapping> loaded =
          loadQConfigMapping(*mappingOption)) {
    mapping = std::make_shared<const QConfigMapping>(std::move(*loaded));
  } else {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "qconfig-mapping: " << llvm::toString(loaded.takeError());
    ok = false;
  }
  return success(ok);
}

//===----------------------------------------------------------------------===//
// Pattern matching
//===----------------------------------------------------------------------===//

SmallVector<Operation *, 3> qfx::getFusedPatternOps(Operation *fusedOp) {
  SmallVector<Operation *, 3> ops;
  for (Region &region : fusedOp->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (isQuantizationCandidate(&op))
          ops.push_back(&op);
  return ops;
}

const BackendPatternConfig *qfx::lookupFusedConfig(const BackendConfig &backend,
                                                   Operation *fusedOp) {
  auto fused = llvm::dyn_cast<FusedOp>(fusedOp);
  if (!fused)
    return nullptr;
  SmallVector<Operation *, 3> ops = getFusedPatternOps(fusedOp);
  for (const BackendPatternConfig &config : backend.getConfigs()) {
    if (config.getFusedOp() != fused.getName().str())
      continue;
    ArrayRef<std::string> pattern = config.getPattern();
    if (pattern.size() != ops.size())
      continue;
    if (llvm::all_of(llvm::zip(pattern, ops), [](auto pair) {
          return getPatternName(std::get<1>(pair)) == std::get<0>(pair);
        }))
      return &config;
  }
  return nullptr;
}

Operation *PatternMatchResult::getRootOp() const {
  SmallVector<Operation *, 3> patternOps(ops.begin(), ops.end());
  if (ops.size() == 1 && llvm::isa<FusedOp>(ops.front()))
    patternOps = getFusedPatternOps(ops.front());
  if (patternOps.empty())
    return ops.front();
  if (const std::optional<std::string> &root = config->getRootOp())
    for (Operation *op : patternOps)
      if (getPatternName(op) == *root)
        return op;
  return patternOps.front();
}

mlir::OpOperand *PatternMatchResult::getRoleOperand(InputRole role) const {
  std::optional<OperandRef> ref = config->getInputRole(role);
  if (!ref)
    return nullptr;
  bool isFused = ops.size() == 1 && llvm::isa<FusedOp>(ops.front());
  SmallVector<Operation *, 3> patternOps(ops.begin(), ops.end());
  if (isFused)
    patternOps = getFusedPatternOps(ops.front());
  if (ref->opIndex >= patternOps.size())
    return nullptr;
  Operation *op = patternOps[ref->opIndex];
  if (ref->operandIndex >= op->getNumOperands())
    return nullptr;
  mlir::OpOperand &operand = op->getOpOperand(ref->operandIndex);
  if (!isFused)
    return &operand;
  auto arg = llvm::dyn_cast<mlir::BlockArgument>(operand.get());
  if (!arg || arg.getOwner()->getParentOp() != ops.front())
    return nullptr;
  return &ops.front()->getOpOperand(arg.getArgNumber());
}

void PatternMatches::add(PatternMatchResult match) {
  unsigned position = matches.size();
  for (Operation *op : match.ops)
    index[op] = position;
  matches.push_back(std::move(match));
}

bool qfx::isReLUClamp(Operation *op) {
  auto clamp = llvm::dyn_cast<mlir::tosa::ClampOp>(op);
  if (!clamp)
    return false;
  auto min = llvm::dyn_cast<mlir::FloatAttr>(clamp.getMinValAttr());
  auto max = llvm::dyn_cast<mlir::FloatAttr>(clamp.getMaxValAttr());
  return min && max && min.getValueAsDouble() == 0.0 &&
         max.getValueAsDouble() >= 3.4028234e38;
}

/// The PyTorch type of an op by the public names of getTorchToTOSAPatterns
/// ("torch.Tensor.view" is "Tensor.view"), or "" without origin.
static std::string getTorchName(Operation *op) {
  auto origin =
      op->getAttrOfType<mlir::StringAttr>(QFXDialect::getOriginAttrName());
  if (!origin)
    return "";
  StringRef name = origin.getValue();
  if (name.consume_front("torch.Tensor."))
    return ("Tensor." + name).str();
  return name.str();
}

std::optional<TorchFusedModule> qfx::getFusedModule(Operation *op) {
  if (!llvm::isa<FusedOp>(op))
    return std::nullopt;
  SmallVector<std::string, 2> names;
  std::optional<OpScope> previous;
  for (Operation *inner : getFusedPatternOps(op)) {
    std::string name = getTorchName(inner);
    std::optional<OpScope> scope = getOpScope(inner);
    if (name.empty() || !scope)
      return std::nullopt;
    if (!names.empty() && names.back() == name &&
        previous->moduleName == scope->moduleName &&
        previous->nodeName == scope->nodeName)
      continue;
    names.push_back(name);
    previous = scope;
  }
  SmallVector<StringRef, 2> pattern(names.begin(), names.end());
  return getTorchFusedModule(pattern);
}

/// True if the origins of `chain` are a PyTorch pattern that becomes
/// `pattern` (getTorchToTOSAPatterns), or if there is nothing to check: no
/// origins, or a TOSA pattern no PyTorch pattern becomes. PyTorch only
/// matches its own patterns: nn.Flatten, for one, is a reshape of no
/// pattern, while torch.flatten shares its input's observer.
static bool originsFitPattern(ArrayRef<Operation *> chain,
                              ArrayRef<std::string> pattern) {
  SmallVector<std::string, 3> origins;
  for (Operation *op : chain)
    if (std::string name = getTorchName(op); !name.empty())
      origins.push_back(name);
  if (origins.empty())
    return true;
  bool known = false;
  for (const TorchToTOSAPattern &correspondence : getTorchToTOSAPatterns()) {
    if (!llvm::equal(correspondence.tosaPattern, pattern))
      continue;
    known = true;
    if (llvm::all_of(origins, [&](const std::string &origin) {
          return llvm::is_contained(correspondence.torchPattern, origin);
        }))
      return true;
  }
  return !known;
}

/// PyTorch's sorted_patterns_dict: longer patterns first, stable.
static SmallVector<const BackendPatternConfig *>
sortPatterns(const BackendConfig &backend) {
  SmallVector<const BackendPatternConfig *> configs;
  for (const BackendPatternConfig &config : backend.getConfigs())
    configs.push_back(&config);
  std::stable_sort(
      configs.begin(), configs.end(),
      [](const BackendPatternConfig *a, const BackendPatternConfig *b) {
        return a->getPattern().size() > b->getPattern().size();
      });
  return configs;
}

/// Adds the matches of `block` to `matches`.
static void matchBlock(Block &block, const BackendConfig &backend,
                       ArrayRef<const BackendPatternConfig *> configs,
                       PatternMatches &matches) {
  for (Operation &last : llvm::reverse(block)) {
    if (matches.lookup(&last))
      continue;
    if (llvm::isa<FusedOp>(last)) {
      if (const BackendPatternConfig *config =
              lookupFusedConfig(backend, &last))
        matches.add({{&last}, config});
      continue;
    }
    if (!isQuantizationCandidate(&last))
      continue;
    for (const BackendPatternConfig *config : configs) {
      ArrayRef<std::string> pattern = config->getPattern();
      if (getPatternName(&last) != pattern.back())
        continue;
      // PyTorch's multi-op patterns end in a ReLU, not in any clamp (ReLU6
      // or Hardtanh after a conv are separate ops).
      if (pattern.size() > 1 && pattern.back() == "tosa.clamp" &&
          !isReLUClamp(&last))
        continue;
      SmallVector<Operation *, 3> chain = {&last};
      bool matched = true;
      for (size_t k = pattern.size() - 1; matched && k > 0; --k) {
        Operation *next = chain.front();
        if (next->getNumOperands() == 0) {
          matched = false;
          break;
        }
        Value input = next->getOperand(0);
        Operation *producer = input.getDefiningOp();
        matched = producer && producer->getBlock() == &block &&
                  producer->getNumResults() == 1 &&
                  getPatternName(producer) == pattern[k - 1] &&
                  input.hasOneUse() && !matches.lookup(producer);
        if (matched)
          chain.insert(chain.begin(), producer);
      }
      if (!matched || !originsFitPattern(chain, pattern))
        continue;
      matches.add({chain, config});
      break;
    }
  }
}

PatternMatches qfx::matchBackendPatterns(Block &block,
                                         const BackendConfig &backend) {
  PatternMatches matches;
  matchBlock(block, backend, sortPatterns(backend), matches);
  return matches;
}

PatternMatches qfx::matchBackendPatterns(Operation *scope,
                                         const BackendConfig &backend) {
  SmallVector<const BackendPatternConfig *> configs = sortPatterns(backend);
  PatternMatches matches;
  scope->walk([&](Block *block) {
    Operation *parent = block->getParentOp();
    if (parent != scope && llvm::isa<FusedOp, CompositeOp>(parent))
      return;
    matchBlock(*block, backend, configs, matches);
  });
  return matches;
}

//===----------------------------------------------------------------------===//
// Resolution of one op
//===----------------------------------------------------------------------===//

std::string qfx::describeQuery(const QConfigQuery &query) {
  std::string text = "module '" + query.moduleName + "', object types ";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(query.objectTypes, os,
                        [&](const QConfigQuery::ObjectType &type) {
                          os << type.type;
                          if (type.orderIndex)
                            os << " #" << *type.orderIndex << " in '"
                               << type.orderModuleName << "'";
                        });
  return text;
}

/// The op whose query stands for `op`: itself (a candidate, or a fused op
/// that is one of PyTorch's fused modules), or for another fused op the root
/// op of its pattern.
static Operation *getQueryOp(Operation *op, const PatternMatchResult *match,
                             const QConfigQueries &queries) {
  if (!llvm::isa<FusedOp>(op) || queries.lookup(op))
    return op;
  if (match)
    return match->getRootOp();
  SmallVector<Operation *, 3> ops = getFusedPatternOps(op);
  return ops.empty() ? op : ops.front();
}

const QConfigQuery *qfx::getLastQuery(Operation *op,
                                      const QConfigQueries &queries) {
  // One of PyTorch's fused modules is one node, its own last.
  if (!llvm::isa<FusedOp>(op) || queries.lookup(op))
    return nullptr;
  SmallVector<Operation *, 3> ops = getFusedPatternOps(op);
  return ops.empty() ? nullptr : queries.lookup(ops.back());
}

/// "[tosa.conv2d, tosa.clamp]".
static std::string describePattern(const BackendPatternConfig &config) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(config.getPattern(), os);
  os << "]";
  return text;
}

OpResolution qfx::resolveOp(Operation *op, const QConfigMapping &mapping,
                            const BackendConfig &backend,
                            const QConfigQueries &queries,
                            const PatternMatches &matches) {
  OpResolution result;
  result.match = matches.lookup(op);
  result.query = queries.lookup(getQueryOp(op, result.match, queries));
  if (result.query)
    result.qconfig = mapping.resolve(*result.query);
  else
    result.qconfig = mapping.getGlobal();
  if (!result.qconfig) {
    result.whyNotQuantized = "its QConfig is null";
    if (result.query)
      result.whyNotQuantized += " (" + describeQuery(*result.query) + ")";
    return result;
  }
  if (!result.match) {
    std::string name = describeOp(op);
    if (std::string torchName = getTorchName(op); !torchName.empty())
      name += " (" + torchName + ")";
    result.whyNotQuantized = "no pattern of backend '" +
                             backend.getName().str() + "' matches " + name;
    return result;
  }
  result.support = checkQConfigSupport(*result.qconfig, *result.match->config);
  if (!result.support.isSupported()) {
    result.whyNotQuantized =
        "backend '" + backend.getName().str() + "' pattern " +
        describePattern(*result.match->config) +
        " does not support its QConfig: " + result.support.reason;
    return result;
  }
  // PyTorch checks the dtype of a pattern's output, its last node's, before
  // it observes the pattern: with that node configured None the output is
  // float, which a pattern that quantizes its output does not accept (a
  // fused add + ReLU whose ReLU is None stays float, inputs included; a
  // weight-only or dynamic Linear + ReLU outputs float anyway).
  const QConfigQuery *last = getLastQuery(op, queries);
  if (!last || mapping.resolve(*last))
    return result;
  QConfigDTypes dtypes = getQConfigDTypes(*result.qconfig);
  if (dtypes.outputActivation != DType::Float32 && !dtypes.isDynamic)
    result.whyNotQuantized = "the QConfig of its pattern's last op is null (" +
                             describeQuery(*last) + ")";
  return result;
}

//===----------------------------------------------------------------------===//
// Fused modules
//===----------------------------------------------------------------------===//

mlir::FailureOr<QConfigMapping>
qfx::updateQConfigsForFusion(const QConfigMapping &mapping, Operation *root) {
  QConfigMapping updated = mapping;
  if (mapping.getObjectTypeEntries().empty())
    return updated;
  bool failed = false;
  root->walk([&](FusedOp op) {
    std::optional<TorchFusedModule> fused = getFusedModule(op);
    if (!fused || failed)
      return;
    StringRef first = fused->parts.front();
    OptionalQConfig qconfig = updated.getObjectTypeQConfig(first, std::nullopt);
    for (StringRef part : llvm::drop_begin(fused->parts)) {
      OptionalQConfig other = updated.getObjectTypeQConfig(part, std::nullopt);
      if (other == qconfig)
        continue;
      auto describe = [](const OptionalQConfig &q) {
        return q ? "a QConfig" : "none";
      };
      op.emitError() << "the modules fused into " << fused->type
                     << " need the same object type QConfig, but " << first
                     << " has " << describe(qconfig) << " and " << part
                     << " has "
                     << (qconfig && other ? "another" : describe(other))
                     << " (PyTorch 1.13's prepare_fx raises LookupError)";
      failed = true;
      return;
    }
    if (qconfig)
      updated.setObjectType(fused->type, qconfig);
  });
  if (failed)
    return mlir::failure();
  return updated;
}
