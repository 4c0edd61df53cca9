//===- Prepare.cpp - Insert observers as PyTorch's prepare_fx does --------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-prepare: PyTorch 1.13's insert_observers_for_model over TOSA. Each op
// (a qfx.fused op as one) is resolved to a QConfig and a backend pattern;
// the first op of a quantized pattern gets observers on the activation
// inputs that are not already observed in the dtype it expects and on its
// weight, the last op on its output; ops that share their input's observer
// take its id. See docs/qfx-passes.md.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/QConfigSupport.h"
#include "qfx/Dialect/QFX/IR/QFXAttrs.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/ConfigResolution.h"
#include "qfx/Transforms/MaterializeResources.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/ConversionUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringExtras.h"

#include <map>
#include <tuple>

namespace qfx {
#define GEN_PASS_DEF_QFXPREPARE
#include "qfx/Transforms/Passes.h.inc"

namespace {

bool isFloatTensor(Value value) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  return type && llvm::isa<mlir::FloatType>(type.getElementType());
}

/// True for constants, and for weights prepared before (a constant seen
/// through observers and the reshapes around a depthwise weight's observer).
bool isConstant(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return false;
  if (producer->hasTrait<mlir::OpTrait::ConstantLike>() ||
      llvm::isa<mlir::tosa::ConstOp>(producer))
    return true;
  if (llvm::isa<ObserveOp, mlir::tosa::ReshapeOp>(producer))
    return isConstant(producer->getOperand(0));
  return false;
}

/// True for an op that computes on constants only (the reshapes qfx-prepare
/// puts around a depthwise weight): not an op of the model to quantize. A
/// composite is a PyTorch op even on constants (an embedding of constant
/// position ids).
bool computesOnConstantsOnly(Operation *op) {
  if (llvm::isa<CompositeOp>(op))
    return false;
  bool any = false;
  for (Value operand : op->getOperands()) {
    if (!isFloatTensor(operand))
      continue;
    if (!isConstant(operand))
      return false;
    any = true;
  }
  return any;
}

/// True for a constant PyTorch passes as a tensor (qfx.tensor_operand),
/// also once observed.
bool isTensorOperand(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto observe = llvm::dyn_cast_or_null<ObserveOp>(def))
    return isTensorOperand(observe.getInput());
  return def && def->hasAttr(QFXDialect::getTensorOperandAttrName());
}

/// The operands of `op` that are activations: float tensors computed by the
/// model, and constants PyTorch passes as tensors (a module attribute; other
/// constants such as scalars and batch norm parameters stay float), leaving
/// out the pattern's weight and bias.
SmallVector<mlir::OpOperand *> getActivationOperands(Operation *op,
                                                     mlir::OpOperand *weight,
                                                     mlir::OpOperand *bias) {
  SmallVector<mlir::OpOperand *> operands;
  for (mlir::OpOperand &operand : op->getOpOperands())
    if (&operand != weight && &operand != bias &&
        isFloatTensor(operand.get()) &&
        (!isConstant(operand.get()) || isTensorOperand(operand.get())))
      operands.push_back(&operand);
  return operands;
}

/// Where PyTorch's per-channel weight axis lands in a TOSA weight.
struct WeightAxis {
  int64_t axis;
  /// Depthwise weights with a channel multiplier: PyTorch's output channel is
  /// C*M, so the weight is observed reshaped to [KH, KW, C*M].
  bool combineDepthwiseChannels = false;
};

/// Translates PyTorch's weight axis `torchAxis` for the weight of `root`
/// (QuantizableOpInterface::getTorchWeightAxes), or none if the axis has no
/// TOSA counterpart. An op the interface does not describe keeps the axis.
std::optional<WeightAxis> translateWeightAxis(Operation *root,
                                              int64_t torchAxis,
                                              mlir::ShapedType weightType) {
  auto quantizable = llvm::dyn_cast<QuantizableOpInterface>(root);
  SmallVector<int64_t> torchToTOSA;
  if (quantizable)
    torchToTOSA = quantizable.getTorchWeightAxes();
  if (torchToTOSA.empty())
    return WeightAxis{torchAxis};
  if (torchAxis < 0 || torchAxis >= (int64_t)torchToTOSA.size() ||
      torchToTOSA[torchAxis] < 0)
    return std::nullopt;
  int64_t axis = torchToTOSA[torchAxis];
  // An output channel spread over two axes (depthwise HWCM: c * M + m).
  SmallVector<int64_t> channelAxes = quantizable.getWeightChannelAxes();
  if (channelAxes.size() == 2 && axis == channelAxes[0])
    return WeightAxis{axis, weightType.getRank() > channelAxes[1] &&
                                weightType.getDimSize(channelAxes[1]) != 1};
  return WeightAxis{axis};
}

/// One op that stays float and why, for remarks and the summary.
struct NotQuantized {
  Operation *op;
  std::string reason;
};

class Preparer {
public:
  Preparer(ModuleOp module, const QConfigMapping &mapping,
           const BackendConfig &backend)
      : context(module.getContext()), mapping(mapping), backend(backend) {
    module.walk([&](ObserveOp observe) {
      nextId = std::max<uint64_t>(nextId, observe.getId() + 1);
    });
    firstNewId = nextId;
  }

  /// Inserts the observers of one function.
  LogicalResult prepare(mlir::FunctionOpInterface function);

  ArrayRef<NotQuantized> getNotQuantized() const { return notQuantized; }

  /// Numbers the new observers' ids densely in program order (ids given to
  /// output observers that ended up sharing their input's id leave gaps).
  void renumber(ModuleOp module);

private:
  /// The dtype `value` has as produced: the observed dtype of an observer's
  /// result, the output dtype of a quantized op, float32 otherwise.
  DType getProducedDType(Value value) const;
  /// A new qfx.observe of `input` with the next id.
  ObserveOp createObserver(OpBuilder &builder, Location loc, Value input,
                           const ObserverSpec &spec);
  /// The observer of `value` for `spec` and `dtype`, created after the value's
  /// definition if there is none yet (PyTorch reuses an observer of the same
  /// class and dtype among the value's users).
  ObserveOp getOrCreateInputObserver(Value value, const ObserverSpec &spec);
  /// Observes the weight `operand` of the pattern whose weight is carried by
  /// `root` with qconfig.weight, its per-channel axis in TOSA's layout.
  LogicalResult observeWeight(mlir::OpOperand &operand, Operation *root,
                              const QConfig &qconfig);
  /// Layout ops an importer inserted: in a function whose ops carry
  /// qfx.origin, a transpose, reshape or slice without one stands for no
  /// PyTorch op. It is transparent: not observed, its result has its input's
  /// dtype (observing it would count the same tensor twice in a histogram).
  bool isImporterGlue(Operation *op) const {
    return blockHasOrigins && isLayoutGlue(op);
  }
  /// PyTorch's maybe_insert_input_observers_for_node for the first op of
  /// `match`: activations and weight.
  LogicalResult insertInputObservers(const PatternMatchResult &match,
                                     const QConfig &qconfig);
  /// A recurrent composite under a dynamic qconfig: PyTorch's quantized
  /// LSTM quantizes each projection, so each matmul of the body with a
  /// constant weight observes its weight and, dynamically, its input.
  LogicalResult observeRecurrentBody(CompositeOp composite,
                                     const QConfig &qconfig);
  /// PyTorch's maybe_insert_output_observer_for_node for the last op of
  /// `match`, then the sharing of output_share_observer_with_input.
  void insertOutputObserver(const PatternMatchResult &match,
                            const QConfig &qconfig);
  /// The QConfig PyTorch observes a pattern's output with: its last node's
  /// (its inputs take the root node's, `resolution`); for a qfx.fused op,
  /// the last op of its body's pattern (getLastQuery).
  OptionalQConfig getOutputQConfig(Operation *op,
                                   const OpResolution &resolution,
                                   const QConfigQueries &queries) const {
    const QConfigQuery *last = getLastQuery(op, queries);
    return last ? mapping.resolve(*last) : resolution.qconfig;
  }
  /// A matched pattern that is not quantized (its root's QConfig null, or
  /// refused by the dtype configs): PyTorch 1.13 still gives its last node
  /// the output dtype of that node's own QConfig
  /// (get_target_activation_dtype_for_node), without an observer, and a
  /// user that expects that dtype inserts no input observer of its own (its
  /// input stays float, as in PyTorch's model).
  void claimOutputDType(Operation *op, const OpResolution &resolution,
                        const QConfigQueries &queries) {
    const PatternMatchResult *match = resolution.match;
    if (!match || op != match->getLastOp() || op->getNumResults() != 1 ||
        !isFloatTensor(op->getResult(0)))
      return;
    OptionalQConfig output = getOutputQConfig(op, resolution, queries);
    if (!output)
      return;
    QConfigDTypes dtypes = getQConfigDTypes(*output);
    if (!dtypes.isDynamic && dtypes.outputActivation != DType::Float32)
      quantizedOutputs[op->getResult(0)] = dtypes.outputActivation;
  }
  /// PyTorch's maybe_make_input_output_share_observers: gives `output` (and
  /// a concat's inputs) the id and spec of the first input's observer;
  /// false if there is none.
  bool shareInputObserver(Operation *inputOp, ObserveOp output);

  MLIRContext *context;
  const QConfigMapping &mapping;
  const BackendConfig &backend;
  uint64_t firstNewId = 0;
  uint64_t nextId = 0;
  /// Whether the block being prepared has ops with qfx.origin (an importer's).
  bool blockHasOrigins = false;
  std::map<std::tuple<void *, ObserverKind, DType>, ObserveOp> inputObservers;
  llvm::DenseMap<Value, DType> quantizedOutputs;
  std::vector<NotQuantized> notQuantized;
};

DType Preparer::getProducedDType(Value value) const {
  if (auto observe = value.getDefiningOp<ObserveOp>())
    return observe.getSpec().getSpec().getDType();
  auto it = quantizedOutputs.find(value);
  return it == quantizedOutputs.end() ? DType::Float32 : it->second;
}

ObserveOp Preparer::createObserver(OpBuilder &builder, Location loc,
                                   Value input, const ObserverSpec &spec) {
  return ObserveOp::create(
      builder, loc, input,
      builder.getIntegerAttr(builder.getIntegerType(64), nextId++),
      ObserverSpecAttr::get(context, spec), /*stats=*/Attribute());
}

/// Sets the insertion point right after the definition of `value` (for a
/// block argument, after the observers already inserted at the block start).
void setInsertionPointAfterValue(OpBuilder &builder, Value value) {
  if (Operation *producer = value.getDefiningOp()) {
    builder.setInsertionPointAfter(producer);
    return;
  }
  Block *block = llvm::cast<mlir::BlockArgument>(value).getOwner();
  auto it = block->begin();
  while (it != block->end() && llvm::isa<ObserveOp>(*it) &&
         llvm::isa<mlir::BlockArgument>(it->getOperand(0)))
    ++it;
  builder.setInsertionPoint(block, it);
}

ObserveOp Preparer::getOrCreateInputObserver(Value value,
                                             const ObserverSpec &spec) {
  auto key =
      std::make_tuple(value.getAsOpaquePointer(), spec.kind, spec.getDType());
  auto it = inputObservers.find(key);
  if (it != inputObservers.end())
    return it->second;
  OpBuilder builder(context);
  setInsertionPointAfterValue(builder, value);
  ObserveOp observe = createObserver(builder, value.getLoc(), value, spec);
  inputObservers[key] = observe;
  return observe;
}

LogicalResult Preparer::observeWeight(mlir::OpOperand &operand, Operation *root,
                                      const QConfig &qconfig) {
  Value weight = operand.get();
  // Already observed (the model was prepared before).
  if (weight.getDefiningOp<ObserveOp>() ||
      (weight.getDefiningOp<mlir::tosa::ReshapeOp>() && isConstant(weight)))
    return success();
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(weight.getType());
  if (!type || !isFloatTensor(weight))
    return success();
  ObserverSpec spec = qconfig.weight;
  bool combine = false;
  if (isPerChannelObserver(spec.kind)) {
    std::optional<WeightAxis> axis =
        translateWeightAxis(root, spec.getChAxis(), type);
    if (!axis)
      return root->emitError()
             << "cannot observe the weight per channel along PyTorch's axis "
             << spec.getChAxis() << ": it has no counterpart in the layout of "
             << root->getName() << "'s weight";
    spec.chAxis = axis->axis;
    combine = axis->combineDepthwiseChannels;
  }
  Operation *user = operand.getOwner();
  OpBuilder builder(user);
  Location loc = weight.getLoc();
  if (!combine) {
    operand.set(createObserver(builder, loc, weight, spec));
    return success();
  }
  // [KH, KW, C, M] -> [KH, KW, C*M] -> observe along 2 -> [KH, KW, C, M].
  mlir::ImplicitLocOpBuilder b(loc, builder);
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> combined = {shape[0], shape[1], shape[2] * shape[3]};
  auto combinedType =
      mlir::RankedTensorType::get(combined, type.getElementType());
  Value flat = mlir::tosa::ReshapeOp::create(
      b, combinedType, weight, mlir::tosa::getTosaConstShape(b, combined));
  Value observed = createObserver(builder, loc, flat, spec);
  operand.set(mlir::tosa::ReshapeOp::create(
      b, type, observed, mlir::tosa::getTosaConstShape(b, shape)));
  return success();
}

LogicalResult Preparer::observeRecurrentBody(CompositeOp composite,
                                             const QConfig &qconfig) {
  if (!getQConfigDTypes(qconfig).isDynamic)
    return composite.emitError()
           << "'" << composite.getName()
           << "' is quantized dynamically only (a dynamic qconfig), as in "
              "PyTorch";
  SmallVector<mlir::tosa::MatMulOp> matmuls;
  composite.getBody().walk(
      [&](mlir::tosa::MatMulOp matmul) { matmuls.push_back(matmul); });
  for (mlir::tosa::MatMulOp matmul : matmuls) {
    if (!isConstant(matmul.getB()))
      continue;
    if (failed(observeWeight(matmul->getOpOperand(1), matmul, qconfig)))
      return failure();
    matmul->getOpOperand(0).set(
        getOrCreateInputObserver(matmul.getA(), qconfig.activation));
  }
  return success();
}

LogicalResult Preparer::insertInputObservers(const PatternMatchResult &match,
                                             const QConfig &qconfig) {
  Operation *inputOp = match.ops.front();
  if (auto composite = llvm::dyn_cast<CompositeOp>(inputOp);
      composite && composite.isRecurrent())
    return observeRecurrentBody(composite, qconfig);
  mlir::OpOperand *weight = match.getRoleOperand(InputRole::Weight);
  mlir::OpOperand *bias = match.getRoleOperand(InputRole::Bias);
  QConfigDTypes dtypes = getQConfigDTypes(qconfig);

  if (weight && weight->getOwner() == inputOp &&
      dtypes.weight != DType::Float32 &&
      failed(observeWeight(*weight, match.getRootOp(), qconfig)))
    return failure();
  // Biases stay float: they become int32 at conversion.

  SmallVector<mlir::OpOperand *> activations =
      getActivationOperands(inputOp, weight, bias);
  for (auto [index, operand] : llvm::enumerate(activations)) {
    if (dtypes.isDynamic) {
      // PyTorch observes only the first input of a dynamic pattern.
      if (index == 0)
        operand->set(
            getOrCreateInputObserver(operand->get(), qconfig.activation));
      continue;
    }
    if (dtypes.inputActivation == DType::Float32 ||
        qconfig.activation.kind == ObserverKind::ReuseInput)
      continue;
    if (getProducedDType(operand->get()) == dtypes.inputActivation)
      continue;
    // PyTorch observes the tensor the op takes: not the part of it an
    // importer's slice keeps (the rows a strided window never reads), nor
    // the importer's layout of it (an NHWC transpose), so that users of one
    // PyTorch value share its observer (a conv's and a mean's input).
    mlir::OpOperand *observed = operand;
    SmallVector<Operation *> glue;
    bool sharedGlue = false;
    while (Operation *producer = observed->get().getDefiningOp()) {
      if (!isImporterGlue(producer))
        break;
      sharedGlue |= !producer->hasOneUse();
      glue.push_back(producer);
      observed = &producer->getOpOperand(0);
    }
    // Observed already, for another user of the value behind the glue.
    if (auto existing = observed->get().getDefiningOp<ObserveOp>()) {
      const ObserverSpec &spec = existing.getSpec().getSpec();
      if (spec.kind == qconfig.activation.kind &&
          spec.getDType() == qconfig.activation.getDType())
        continue;
    }
    ObserveOp observer =
        getOrCreateInputObserver(observed->get(), qconfig.activation);
    if (!sharedGlue) {
      observed->set(observer);
      continue;
    }
    // PyTorch observes one edge: where another op uses the glue (a float
    // op reading the same NHWC transpose), this op reads a copy of the glue
    // on the observer and the other users keep the unobserved value.
    OpBuilder builder(operand->getOwner());
    Value copy = observer;
    for (Operation *op : llvm::reverse(glue)) {
      Operation *clone = builder.clone(*op);
      clone->setOperand(0, copy);
      copy = clone->getResult(0);
    }
    operand->set(copy);
  }
  return success();
}

bool Preparer::shareInputObserver(Operation *inputOp, ObserveOp output) {
  // PyTorch's maybe_make_input_output_share_observers: trace the first input
  // back through operand 0 to an observer.
  auto traceToObserver = [](Value value) -> ObserveOp {
    for (unsigned guard = 0; guard < 10000; ++guard) {
      if (auto observe = value.getDefiningOp<ObserveOp>())
        return observe;
      Operation *producer = value.getDefiningOp();
      if (!producer || producer->getNumOperands() == 0)
        return nullptr;
      value = producer->getOperand(0);
    }
    return nullptr;
  };
  SmallVector<mlir::OpOperand *> activations =
      getActivationOperands(inputOp, nullptr, nullptr);
  if (activations.empty())
    return false;
  ObserveOp first = traceToObserver(activations.front()->get());
  if (!first)
    return false;
  auto share = [&](ObserveOp observe) {
    observe.setIdAttr(first.getIdAttr());
    observe.setSpecAttr(first.getSpecAttr());
  };
  // Concat takes a list: all of it shares the first input's observer.
  if (llvm::isa<mlir::tosa::ConcatOp>(inputOp)) {
    for (mlir::OpOperand *operand : llvm::drop_begin(activations)) {
      ObserveOp observe = traceToObserver(operand->get());
      if (!observe)
        return false;
      share(observe);
    }
  }
  share(output);
  return true;
}

void Preparer::insertOutputObserver(const PatternMatchResult &match,
                                    const QConfig &qconfig) {
  Operation *last = match.getLastOp();
  if (last->getNumResults() != 1 || !isFloatTensor(last->getResult(0)))
    return;
  Value result = last->getResult(0);
  QConfigDTypes dtypes = getQConfigDTypes(qconfig);
  quantizedOutputs[result] = dtypes.outputActivation;
  // Already observed (the model was prepared before).
  if (result.hasOneUse() && llvm::isa<ObserveOp>(*result.getUsers().begin()))
    return;
  if (dtypes.outputActivation == DType::Float32 || dtypes.isDynamic)
    return;

  ObserverSpec spec = qconfig.activation;
  const BackendPatternConfig &config = *match.config;
  // PyTorch's get_activation_ctr: the fixed qparams of sigmoid and tanh
  // replace an activation observer of their dtype (quint8 in PyTorch's
  // tables).
  if (const std::optional<ObserverSpec> &fixed =
          config.getOverwriteOutputObserver())
    if (dtypes.inputActivation == fixed->getDType())
      spec = *fixed;

  OpBuilder builder(context);
  builder.setInsertionPointAfter(last);
  ObserveOp output = createObserver(builder, last->getLoc(), result, spec);
  result.replaceAllUsesExcept(output, output);

  Operation *inputOp = match.ops.front();
  // PyTorch counts the root node's tensor arguments: two for x + x, which a
  // qfx.fused op takes as one operand.
  ObservationType type = config.getObservationType(
      getActivationOperands(match.getRootOp(), nullptr, nullptr).size());
  if (type != ObservationType::OutputShareObserverWithInput &&
      qconfig.activation.kind != ObserverKind::ReuseInput)
    return;
  if (!shareInputObserver(inputOp, output)) {
    // PyTorch's remove_output_observer: the output stays "quantized" but
    // unobserved.
    output.getOutput().replaceAllUsesWith(result);
    output.erase();
  }
}

LogicalResult Preparer::prepare(mlir::FunctionOpInterface function) {
  QConfigQueries queries(function);
  for (Block &block : function.getFunctionBody()) {
    PatternMatches matches = matchBackendPatterns(block, backend);
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      if (llvm::isa<FusedOp>(op) ||
          (isQuantizationCandidate(&op) && !computesOnConstantsOnly(&op)))
        ops.push_back(&op);
    blockHasOrigins = false;
    block.walk([&](Operation *op) {
      blockHasOrigins |= op->hasAttr(QFXDialect::getOriginAttrName());
    });
    for (Operation *op : ops) {
      if (isImporterGlue(op)) {
        DType dtype = getProducedDType(op->getOperand(0));
        if (dtype != DType::Float32)
          quantizedOutputs[op->getResult(0)] = dtype;
        continue;
      }
      OpResolution resolution =
          resolveOp(op, mapping, backend, queries, matches);
      if (!resolution.isQuantized()) {
        notQuantized.push_back({op, resolution.whyNotQuantized});
        claimOutputDType(op, resolution, queries);
        continue;
      }
      const PatternMatchResult &match = *resolution.match;
      if (op == match.ops.front() &&
          failed(insertInputObservers(match, *resolution.qconfig)))
        return failure();
      if (op != match.getLastOp())
        continue;
      if (OptionalQConfig output = getOutputQConfig(op, resolution, queries))
        insertOutputObserver(match, *output);
    }
  }
  return success();
}

void Preparer::renumber(ModuleOp module) {
  llvm::DenseMap<uint64_t, uint64_t> newIds;
  OpBuilder builder(context);
  module.walk([&](ObserveOp observe) {
    uint64_t id = observe.getId();
    if (id < firstNewId)
      return;
    auto [it, inserted] = newIds.try_emplace(id, firstNewId + newIds.size());
    (void)inserted;
    observe.setIdAttr(
        builder.getIntegerAttr(builder.getIntegerType(64), it->second));
  });
}

std::string describeScope(Operation *op) {
  std::optional<OpScope> scope = getOpScope(op);
  if (!scope)
    return "?";
  if (scope->isFunctional())
    return scope->moduleName + "(" + scope->nodeName + ")";
  return scope->moduleName;
}

struct QFXPreparePass : impl::QFXPrepareBase<QFXPreparePass> {
  using Base::Base;

  PassConfig config;

  LogicalResult initialize(MLIRContext *context) override {
    if (!engine.empty() && !isEngineName(engine))
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "qfx-prepare: engine '" << engine
             << "' is none of x86, fbgemm, qnnpack, onednn";
    return config.load(context, backend, StringRef(qconfigMapping));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Weight observers and qfx's later passes read the weights.
    if (mlir::failed(materializeResources(module)))
      return signalPassFailure();
    // The backend the model is prepared for: qfx-lower checks its own
    // against it.
    module->setAttr(
        QFXDialect::getBackendAttrName(),
        mlir::StringAttr::get(&getContext(), config.backend->getName()));
    // The engine whose numerics qfx-convert and qfx-lower follow, where it
    // is not the backend's (PyTorch's engine setting).
    if (!engine.empty())
      module->setAttr(QFXDialect::getEngineAttrName(),
                      mlir::StringAttr::get(&getContext(), engine));
    mlir::FailureOr<QConfigMapping> mapping =
        updateQConfigsForFusion(*config.mapping, module);
    if (mlir::failed(mapping))
      return signalPassFailure();
    Preparer preparer(module, *mapping, *config.backend);
    bool failedAny = false;
    module.walk([&](mlir::FunctionOpInterface function) {
      if (!function.isExternal() && failed(preparer.prepare(function)))
        failedAny = true;
    });
    if (failedAny)
      return signalPassFailure();
    preparer.renumber(module);

    ArrayRef<NotQuantized> skipped = preparer.getNotQuantized();
    if (!summary) {
      for (const NotQuantized &entry : skipped)
        entry.op->emitRemark() << "not quantized: " << entry.reason;
      return;
    }
    std::string table;
    llvm::raw_string_ostream os(table);
    os << skipped.size() << (skipped.size() == 1 ? " op" : " ops")
       << " not quantized (backend '" << config.backend->getName()
       << "', qconfig-mapping '" << qconfigMapping << "')";
    if (!skipped.empty())
      os << ":\n  op | module | reason";
    for (const NotQuantized &entry : skipped)
      os << "\n  " << describeOp(entry.op) << " | " << describeScope(entry.op)
         << " | " << entry.reason;
    // Not module.emitRemark: its note would print the whole module.
    mlir::emitRemark(module.getLoc()) << table;
  }
};

} // namespace
} // namespace qfx
