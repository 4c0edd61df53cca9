//===- Fuse.cpp - Fold batch norm and fuse backend patterns ---------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-fuse: PyTorch 1.13's fuse_fx over TOSA. Per-channel affine constants
// after a conv2d / depthwise_conv2d / matmul (the exported batch norm) are
// folded into the weights and bias, then every BackendPatternConfig with a
// fused op is matched and its ops are wrapped in a qfx.fused region. See
// docs/qfx-passes.md.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/ConfigResolution.h"
#include "qfx/Transforms/MaterializeResources.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>

namespace qfx {
#define GEN_PASS_DEF_QFXFUSE
#include "qfx/Transforms/Passes.h.inc"

namespace {

//===----------------------------------------------------------------------===//
// Batch norm folding
//===----------------------------------------------------------------------===//

/// The float32 values of a constant, or none.
std::optional<std::vector<float>> getConstantValues(Value value) {
  mlir::DenseElementsAttr attr;
  if (!mlir::matchPattern(value, mlir::m_Constant(&attr)) ||
      !attr.getElementType().isF32())
    return std::nullopt;
  std::vector<float> values(attr.getValues<float>().begin(),
                            attr.getValues<float>().end());
  return values;
}

/// The per-channel values of a constant that broadcasts along the last axis
/// of a rank-`rank` result with `channels` channels: all dims 1 except the
/// last, which is 1 or `channels`. Expanded to `channels` values.
std::optional<std::vector<float>>
getPerChannelConstant(Value value, int64_t rank, int64_t channels) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || type.getRank() != rank)
    return std::nullopt;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (type.getDimSize(d) != 1)
      return std::nullopt;
  int64_t last = type.getDimSize(rank - 1);
  if (last != 1 && last != channels)
    return std::nullopt;
  std::optional<std::vector<float>> values = getConstantValues(value);
  if (!values)
    return std::nullopt;
  if (last == 1)
    values->assign(channels, values->front());
  return values;
}

/// True if `shift` is tosa.mul's zero shift.
bool isZeroShift(Value shift) {
  mlir::DenseElementsAttr attr;
  if (!mlir::matchPattern(shift, mlir::m_Constant(&attr)))
    return false;
  return llvm::all_of(attr.getValues<llvm::APInt>(),
                      [](const llvm::APInt &v) { return v.isZero(); });
}

Value createF32Constant(OpBuilder &builder, Location loc,
                        mlir::RankedTensorType type, ArrayRef<float> values) {
  auto attr = mlir::DenseElementsAttr::get(type, values);
  return mlir::tosa::ConstOp::create(builder, loc, type,
                                     llvm::cast<mlir::ElementsAttr>(attr));
}

/// The per-channel values of `value` if it is computed from constants only:
/// a constant (see getPerChannelConstant), or tosa.rsqrt, tosa.reciprocal,
/// tosa.add, tosa.sub, tosa.mul (shift 0) of such values, evaluated in
/// float32 (batch norm's `(x - mean) * rsqrt(var + eps) * gamma + beta` with
/// its parameters as constants).
std::optional<std::vector<float>> evaluatePerChannel(Value value, int64_t rank,
                                                     int64_t channels) {
  if (std::optional<std::vector<float>> values =
          getPerChannelConstant(value, rank, channels))
    return values;
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumResults() != 1)
    return std::nullopt;
  auto unary = [&](float (*fn)(float)) -> std::optional<std::vector<float>> {
    std::optional<std::vector<float>> x =
        evaluatePerChannel(op->getOperand(0), rank, channels);
    if (x)
      for (float &v : *x)
        v = fn(v);
    return x;
  };
  auto binary =
      [&](float (*fn)(float, float)) -> std::optional<std::vector<float>> {
    std::optional<std::vector<float>> x =
        evaluatePerChannel(op->getOperand(0), rank, channels);
    std::optional<std::vector<float>> y =
        evaluatePerChannel(op->getOperand(1), rank, channels);
    if (!x || !y)
      return std::nullopt;
    for (int64_t c = 0; c < channels; ++c)
      (*x)[c] = fn((*x)[c], (*y)[c]);
    return x;
  };
  if (llvm::isa<mlir::tosa::RsqrtOp>(op))
    return unary([](float v) { return 1.0f / std::sqrt(v); });
  if (llvm::isa<mlir::tosa::ReciprocalOp>(op))
    return unary([](float v) { return 1.0f / v; });
  if (llvm::isa<mlir::tosa::AddOp>(op))
    return binary([](float x, float y) { return x + y; });
  if (llvm::isa<mlir::tosa::SubOp>(op))
    return binary([](float x, float y) { return x - y; });
  if (auto mul = llvm::dyn_cast<mlir::tosa::MulOp>(op))
    if (isZeroShift(mul.getShift()))
      return binary([](float x, float y) { return x * y; });
  return std::nullopt;
}

/// A per-channel affine map y = x * scale + shift.
struct PerChannelAffine {
  std::vector<float> scale, shift;
  /// The ops it was read from, in order, and the values they used.
  SmallVector<Operation *> ops;
};

/// Reads the longest chain of tosa.add / tosa.sub / tosa.mul (shift 0) by
/// per-channel values computed from constants, and of one batch norm
/// composite whose body is such a chain, that follows `output`, each op the
/// only user of the previous result and taking it as operand 0. PyTorch's
/// fuser folds one batch norm into a conv: a second one stays, and its
/// prepare matches the folded conv and that batch norm as its conv + batch
/// norm pattern.
PerChannelAffine readAffineChain(Value output, int64_t rank, int64_t channels) {
  PerChannelAffine affine{std::vector<float>(channels, 1.0f),
                          std::vector<float>(channels, 0.0f),
                          {}};
  Value current = output;
  bool batchNormRead = false;
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (user->getNumOperands() == 0 || user->getOperand(0) != current)
      break;
    if (auto batchNorm = llvm::dyn_cast<CompositeOp>(user)) {
      if (batchNormRead || !batchNorm.isBatchNorm() ||
          batchNorm->getNumResults() != 1)
        break;
      batchNormRead = true;
      Block &body = batchNorm.getBody().front();
      PerChannelAffine inner =
          readAffineChain(body.getArgument(0), rank, channels);
      auto yield = llvm::cast<YieldOp>(body.getTerminator());
      if (inner.ops.empty() ||
          yield.getValues() != inner.ops.back()->getResults())
        break;
      for (int64_t i = 0; i < channels; ++i) {
        affine.scale[i] *= inner.scale[i];
        affine.shift[i] = affine.shift[i] * inner.scale[i] + inner.shift[i];
      }
      affine.ops.push_back(user);
      current = user->getResult(0);
      continue;
    }
    if (!llvm::isa<mlir::tosa::AddOp, mlir::tosa::SubOp, mlir::tosa::MulOp>(
            user))
      break;
    if (auto mul = llvm::dyn_cast<mlir::tosa::MulOp>(user))
      if (!isZeroShift(mul.getShift()))
        break;
    std::optional<std::vector<float>> c =
        evaluatePerChannel(user->getOperand(1), rank, channels);
    if (!c)
      break;
    for (int64_t i = 0; i < channels; ++i) {
      if (llvm::isa<mlir::tosa::AddOp>(user)) {
        affine.shift[i] += (*c)[i];
      } else if (llvm::isa<mlir::tosa::SubOp>(user)) {
        affine.shift[i] -= (*c)[i];
      } else {
        affine.scale[i] *= (*c)[i];
        affine.shift[i] *= (*c)[i];
      }
    }
    affine.ops.push_back(user);
    current = user->getResult(0);
  }
  return affine;
}

/// Erases the ops of `roots` that have no use, then the ops that computed
/// their operands and are left without use (the constants and rsqrt of a
/// folded batch norm). One worklist: an op is erased only once, and only
/// after everything that used it.
void eraseDeadTrees(ArrayRef<Operation *> roots) {
  llvm::SetVector<Operation *> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!op || !op->use_empty() ||
        (op->getNumRegions() != 0 && !llvm::isa<CompositeOp>(op)) ||
        !mlir::isMemoryEffectFree(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.insert(def);
    op->erase();
  }
}

/// Folds the per-channel affine ops that follow the conv/matmul `producer`
/// (after its bias tosa.add `biasAdd` for a matmul, if any) into its weight
/// and bias: w' = w * scale along the output channel, b' = b * scale + shift.
LogicalResult foldAffine(Operation *producer, mlir::tosa::AddOp biasAdd) {
  Value output = biasAdd ? Value(biasAdd.getResult()) : producer->getResult(0);
  auto outputType = llvm::cast<mlir::RankedTensorType>(output.getType());
  int64_t rank = outputType.getRank();
  int64_t channels = outputType.getDimSize(rank - 1);
  if (mlir::ShapedType::isDynamic(channels))
    return failure();
  // The exporter reshapes a Linear's result on a rank-2 input, and a
  // Conv1d's, back to the input's rank; the batch norm follows that reshape,
  // which keeps the channels last.
  mlir::tosa::ReshapeOp reshape;
  Value chainStart = output;
  if (output.hasOneUse())
    if (auto user =
            llvm::dyn_cast<mlir::tosa::ReshapeOp>(*output.getUsers().begin())) {
      auto type = llvm::cast<mlir::RankedTensorType>(user.getType());
      if (type.getRank() > 0 &&
          type.getDimSize(type.getRank() - 1) == channels) {
        reshape = user;
        chainStart = user.getResult();
      }
    }
  PerChannelAffine affine = readAffineChain(
      chainStart,
      llvm::cast<mlir::RankedTensorType>(chainStart.getType()).getRank(),
      channels);
  // A batch norm scales each channel: the chain must hold a tosa.mul by a
  // tensor with one value per channel (a lone add, or a multiplication by
  // a scalar, is an op of the model, as in PyTorch).
  bool scalesChannels = llvm::any_of(affine.ops, [&](Operation *op) {
    if (llvm::isa<CompositeOp>(op))
      return true;
    auto type =
        llvm::dyn_cast<mlir::RankedTensorType>(op->getOperand(1).getType());
    return llvm::isa<mlir::tosa::MulOp>(op) && type &&
           type.getDimSize(type.getRank() - 1) == channels;
  });
  if (affine.ops.empty() || !scalesChannels)
    return failure();
  const std::vector<float> &scale = affine.scale;
  const std::vector<float> &shift = affine.shift;
  bool hasShift = llvm::any_of(shift, [](float v) { return v != 0.0f; });

  // The weight, scaled along its output channel (QuantizableOpInterface).
  auto quantizable = llvm::cast<QuantizableOpInterface>(producer);
  Value weight = producer->getOperand(*quantizable.getWeightOperandIndex());
  std::optional<std::vector<float>> weightValues = getConstantValues(weight);
  std::optional<std::function<int64_t(int64_t)>> channelOf =
      getWeightChannelOf(quantizable);
  if (!weightValues || !channelOf)
    return failure();
  auto weightType = llvm::cast<mlir::RankedTensorType>(weight.getType());
  int64_t size = weightType.getNumElements();
  if ((int64_t)weightValues->size() != size)
    return failure();
  for (int64_t i = 0; i < size; ++i)
    (*weightValues)[i] *= scale[(*channelOf)(i)];

  // The bias: the op's bias operand, the bias add that follows it, or none.
  std::optional<unsigned> biasIndex = quantizable.getBiasOperandIndex();
  Value bias;
  if (biasAdd)
    bias = biasAdd.getInput2();
  else if (biasIndex)
    bias = producer->getOperand(*biasIndex);
  std::vector<float> biasValues(channels, 0.0f);
  if (bias) {
    auto biasType = llvm::cast<mlir::RankedTensorType>(bias.getType());
    std::optional<std::vector<float>> values =
        biasType.getRank() == 1
            ? getConstantValues(bias)
            : getPerChannelConstant(bias, biasType.getRank(), channels);
    if (!values || (int64_t)values->size() != channels)
      return failure();
    biasValues = *values;
  }
  for (int64_t c = 0; c < channels; ++c)
    biasValues[c] = biasValues[c] * scale[c] + shift[c];

  OpBuilder builder(producer);
  producer->setOperand(
      *quantizable.getWeightOperandIndex(),
      createF32Constant(builder, weight.getLoc(), weightType, *weightValues));
  Operation *last = affine.ops.back();
  Value folded = chainStart;
  if (bias) {
    auto biasType = llvm::cast<mlir::RankedTensorType>(bias.getType());
    Value newBias =
        createF32Constant(builder, bias.getLoc(), biasType, biasValues);
    if (biasAdd)
      biasAdd.setOperand(1, newBias);
    else
      producer->setOperand(*biasIndex, newBias);
  } else if (hasShift) {
    // An op without bias (a matmul) gets one: the linear pattern's bias add.
    builder.setInsertionPointAfter(producer);
    SmallVector<int64_t> biasShape(rank - 1, 1);
    biasShape.push_back(channels);
    auto biasType =
        mlir::RankedTensorType::get(biasShape, outputType.getElementType());
    Value newBias =
        createF32Constant(builder, last->getLoc(), biasType, biasValues);
    auto add = mlir::tosa::AddOp::create(builder, producer->getLoc(),
                                         outputType, output, newBias);
    if (Attribute origin = producer->getAttr(QFXDialect::getOriginAttrName()))
      add->setAttr(QFXDialect::getOriginAttrName(), origin);
    if (reshape)
      reshape->setOperand(0, add.getResult());
    else
      folded = add.getResult();
  }
  last->getResult(0).replaceAllUsesWith(folded);
  // The ops from the producer to the folded value now compute the batch
  // norm's value: located at both (a fused location, the batch norm last).
  llvm::SmallSetVector<Operation *, 4> computing;
  for (Operation *op :
       {producer, static_cast<Operation *>(biasAdd),
        static_cast<Operation *>(reshape), folded.getDefiningOp()})
    if (op)
      computing.insert(op);
  for (Operation *op : computing)
    op->setLoc(
        mlir::FusedLoc::get(op->getContext(), {op->getLoc(), last->getLoc()}));
  // The affine ops, then what only they used (old weight and bias, the batch
  // norm's constants and their computation).
  SmallVector<Operation *> dead(affine.ops.begin(), affine.ops.end());
  dead.push_back(weight.getDefiningOp());
  if (bias)
    dead.push_back(bias.getDefiningOp());
  eraseDeadTrees(dead);
  return success();
}

/// True if PyTorch 1.13 fuses the batch norm after `producer` with the ReLU
/// after it instead (bn_relu2d): where its fusion patterns take the producer
/// only with the batch norm, the longer batch norm + ReLU match wins
/// (QuantizableOpInterface::foldsBatchNormBeforeReLU).
bool batchNormFusesWithReLU(QuantizableOpInterface producer) {
  Value output = producer->getResult(0);
  if (producer.foldsBatchNormBeforeReLU() || !output.hasOneUse())
    return false;
  auto batchNorm = llvm::dyn_cast<CompositeOp>(*output.getUsers().begin());
  if (!batchNorm || !batchNorm.isBatchNorm() ||
      !batchNorm->getResult(0).hasOneUse())
    return false;
  auto relu = llvm::dyn_cast<mlir::tosa::ClampOp>(
      *batchNorm->getResult(0).getUsers().begin());
  auto low =
      relu ? llvm::dyn_cast<mlir::FloatAttr>(relu.getMinValAttr()) : nullptr;
  auto high =
      relu ? llvm::dyn_cast<mlir::FloatAttr>(relu.getMaxValAttr()) : nullptr;
  return low && high && low.getValueAsDouble() == 0 &&
         high.getValueAsDouble() >= std::numeric_limits<float>::max();
}

/// Folds every batch norm the function holds into the ops with a weight
/// whose output channels QuantizableOpInterface knows, unless PyTorch fuses
/// it with a ReLU instead.
void foldBatchNorms(mlir::FunctionOpInterface function) {
  SmallVector<QuantizableOpInterface> producers;
  function.walk([&](QuantizableOpInterface op) {
    if (op.getWeightOperandIndex() && !op.getWeightChannelAxes().empty() &&
        !batchNormFusesWithReLU(op))
      producers.push_back(op);
  });
  for (QuantizableOpInterface producer : producers) {
    Value output = producer->getResult(0);
    mlir::tosa::AddOp biasAdd;
    if (!producer.getBiasOperandIndex() && output.hasOneUse()) {
      auto add = llvm::dyn_cast<mlir::tosa::AddOp>(*output.getUsers().begin());
      if (add && add.getInput1() == output &&
          getConstantValues(add.getInput2()))
        biasAdd = add;
    }
    (void)foldAffine(producer, biasAdd);
  }
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

/// The exporter reshapes a Linear's rank-3 result (and a Conv1d's rank-4
/// one) back to the input's rank before the ReLU that follows it; PyTorch
/// fuses Linear + ReLU and Conv1d + ReLU. Moves such a clamp above the
/// reshape after a contraction (or its bias add) (an elementwise op
/// commutes with a reshape), so that matmul, add and clamp form a chain.
void sinkReshapesBelowClamps(mlir::FunctionOpInterface function) {
  SmallVector<mlir::tosa::ClampOp> clamps;
  function.walk([&](mlir::tosa::ClampOp clamp) { clamps.push_back(clamp); });
  for (mlir::tosa::ClampOp clamp : clamps) {
    // Only the exporter's own reshape back (no qfx.origin): a flatten or view
    // of the model between the op and the clamp is an op of PyTorch's graph,
    // which fuses nothing across it.
    auto reshape = clamp.getInput().getDefiningOp<mlir::tosa::ReshapeOp>();
    if (!reshape || !reshape.getResult().hasOneUse() ||
        reshape->hasAttr(QFXDialect::getOriginAttrName()))
      continue;
    auto producer = reshape.getInput1().getDefiningOp<QuantizableOpInterface>();
    if (!producer || !(llvm::isa<mlir::tosa::AddOp>(producer) ||
                       producer.getInt8Lowering() == LoweringKind::Contraction))
      continue;
    OpBuilder builder(clamp);
    Operation *moved = builder.clone(*clamp);
    moved->setOperand(0, reshape.getInput1());
    moved->getResult(0).setType(reshape.getInput1().getType());
    Operation *newReshape = builder.clone(*reshape);
    newReshape->setOperand(0, moved->getResult(0));
    // PyTorch's observer recorded on the reshape observes the producer's
    // values, not the clamp's: it stays with them (qfx-import-statistics).
    llvm::StringLiteral torchObserver = QFXDialect::getTorchObserverAttrName();
    if (Attribute tag = newReshape->getAttr(torchObserver)) {
      newReshape->removeAttr(torchObserver);
      if (!producer->hasAttr(torchObserver))
        producer->setAttr(torchObserver, tag);
    }
    clamp.getResult().replaceAllUsesWith(newReshape->getResult(0));
    clamp.erase();
    reshape.erase();
  }
}

bool isConstantOp(Operation *op) {
  return op && (op->hasTrait<mlir::OpTrait::ConstantLike>() ||
                llvm::isa<mlir::tosa::ConstOp, mlir::tosa::ConstShapeOp>(op));
}

/// Wraps the ops of `match` in a qfx.fused op named after its fused op.
void fuse(const PatternMatchResult &match) {
  const BackendPatternConfig &config = *match.config;
  llvm::SmallPtrSet<Operation *, 3> inPattern(match.ops.begin(),
                                              match.ops.end());
  llvm::SmallPtrSet<mlir::OpOperand *, 2> roles;
  for (InputRole role : {InputRole::Weight, InputRole::Bias})
    if (mlir::OpOperand *operand = match.getRoleOperand(role))
      roles.insert(operand);

  // The region's operands: what the pattern uses from outside, weights and
  // bias included; other constants (zero points, shifts) are cloned in.
  SmallVector<Value> inputs;
  SmallVector<Operation *> clonedConstants;
  for (Operation *op : match.ops)
    for (mlir::OpOperand &operand : op->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      if (inPattern.contains(producer))
        continue;
      if (isConstantOp(producer) && !roles.contains(&operand)) {
        if (!llvm::is_contained(clonedConstants, producer))
          clonedConstants.push_back(producer);
        continue;
      }
      if (!llvm::is_contained(inputs, operand.get()))
        inputs.push_back(operand.get());
    }

  Operation *last = match.getLastOp();
  SmallVector<Location> locs;
  for (Operation *op : match.ops)
    locs.push_back(op->getLoc());
  MLIRContext *context = last->getContext();
  OpBuilder builder(last);
  auto fused =
      FusedOp::create(builder, mlir::FusedLoc::get(context, locs),
                      last->getResultTypes(), *config.getFusedOp(), inputs);
  Block *body = new Block();
  fused.getBody().push_back(body);
  mlir::IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  OpBuilder inner = OpBuilder::atBlockBegin(body);
  for (Operation *constant : clonedConstants)
    inner.clone(*constant, mapping);
  for (Operation *op : match.ops)
    inner.clone(*op, mapping);
  SmallVector<Value> results;
  for (Value result : last->getResults())
    results.push_back(mapping.lookup(result));
  YieldOp::create(inner, last->getLoc(), results);

  last->replaceAllUsesWith(fused.getResults());
  for (Operation *op : llvm::reverse(match.ops))
    op->erase();
  for (Operation *constant : clonedConstants)
    if (constant->use_empty())
      constant->erase();
}

struct QFXFusePass : impl::QFXFuseBase<QFXFusePass> {
  using Base::Base;

  PassConfig config;

  LogicalResult initialize(MLIRContext *context) override {
    return config.load(context, backend);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Batch norm folding reads the weights.
    if (mlir::failed(materializeResources(module)))
      return signalPassFailure();
    // PyTorch's fuse_fx only matches the fusion patterns.
    BackendConfig fusions(config.backend->getName());
    for (const BackendPatternConfig &config : config.backend->getConfigs())
      if (config.getFusedOp())
        fusions.setBackendPatternConfig(config);

    module.walk([&](mlir::FunctionOpInterface function) {
      if (function.isExternal())
        return;
      if (foldBatchNorm)
        foldBatchNorms(function);
      sinkReshapesBelowClamps(function);
      for (Block &block : function.getFunctionBody()) {
        PatternMatches matches = matchBackendPatterns(block, fusions);
        for (const PatternMatchResult &match : matches.getMatches())
          if (!llvm::isa<FusedOp>(match.ops.front()))
            fuse(match);
      }
    });
  }
};

} // namespace
} // namespace qfx
