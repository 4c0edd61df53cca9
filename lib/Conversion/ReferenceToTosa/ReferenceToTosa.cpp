//===- ReferenceToTosa.cpp - Reference patterns to int8 TOSA --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-lower: every `dq -> op -> q` pattern of the reference model that the
// backend supports becomes integer TOSA on the stored integers. All integer
// ops work in the "int8 domain": a u8 value q with zero point z is carried as
// the int8 q - 128 with zero point z - 128, so TOSA's signed int8 ops apply.
//
// This file holds the rewrite patterns (one per lowering kind; the
// lowerings themselves are in the other files of this folder),
// populateQFXLowerPatterns, and the pass, which applies them in one walk
// and turns each pattern's reason for not lowering an op into a remark.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "qfx/Conversion/ContractToTosa/ContractToTosa.h"
#include "qfx/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "llvm/ADT/StringSwitch.h"

namespace qfx {
#define GEN_PASS_DEF_QFXREFERENCETOTOSA
#include "qfx/Conversion/Passes.h.inc"
} // namespace qfx

namespace qfx::lowering {

Lowered<Value> Lowering::lowerDataMovement(OpBuilder &b, PatternBody &body,
                                           const ActQuant &out) {
  if (body.ops.size() != 1)
    return unsupported("a fused data-movement op is not supported");
  Lowered<Act> moved = getAct(body.ops.front()->getResult(0));
  if (!moved)
    return moved.takeError();
  // Into other qparams PyTorch ran the op in float between a dequantize and
  // the next observer's quantize.
  return requantizeAsTorch(b, body.root->getLoc(), *moved, out);
}

//===----------------------------------------------------------------------===//
// Roots
//===----------------------------------------------------------------------===//

/// The single 8-bit per-tensor quantization all users of `value` apply.
Lowered<ActQuant> getOutputQuant(Value value) {
  if (value.use_empty())
    return unsupported("its result is unused");
  std::optional<Type> type;
  for (Operation *user : value.getUsers()) {
    auto qcast = llvm::dyn_cast<quant::QuantizeCastOp>(user);
    if (!qcast)
      return unsupported("its result is used as a float");
    if (type && *type != qcast.getType())
      return unsupported("its result is quantized to different types");
    type = qcast.getType();
  }
  std::optional<ActQuant> quant = getActQuant(*type);
  if (!quant)
    return unsupported("its output is not quantized per tensor to 8 bits");
  return *quant;
}

/// The int8 lowering `op` names itself (QuantizableOpInterface).
std::optional<LoweringKind> getOwnLowering(Operation *op) {
  auto quantizable = llvm::dyn_cast<QuantizableOpInterface>(op);
  return quantizable ? quantizable.getInt8Lowering() : std::nullopt;
}

/// True if `value` is dequantized (statically or at run time), through data
/// movement.
bool isDequantized(Value value) {
  Operation *def = value.getDefiningOp();
  while (def && isDataMovement(def))
    def = getMovedOperand(def).getDefiningOp();
  return llvm::isa_and_nonnull<quant::DequantizeCastOp, DequantizeOp>(def);
}

/// True for a weight-only pattern: a conv or matmul whose weight is
/// dequantized and whose input is float, or an embedding. It stays float
/// with its weights stored quantized (packed when narrower than 8 bits;
/// embeddings: lowerWeightOnlyEmbedding).
bool isWeightOnly(Operation *root) {
  if (auto composite = llvm::dyn_cast<CompositeOp>(root))
    return composite.isEmbedding();
  PatternBody body(root);
  if (body.ops.empty() ||
      !llvm::isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp, tosa::MatMulOp>(
          body.ops.front()))
    return false;
  Operation *main = body.ops.front();
  return !isDequantized(body.external(main->getOperand(0))) &&
         isDequantized(body.external(main->getOperand(1)));
}

void eraseDeadOps(mlir::RewriterBase &rewriter, Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() &&
        (mlir::isOpTriviallyDead(&op) || llvm::isa<FusedOp>(op)))
      rewriter.eraseOp(&op);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Records the ops a lowering creates, so that a lowering that fails leaves
/// the IR as it found it, and one that succeeds announces them to the
/// pattern driver.
class CreatedOps : public OpBuilder::Listener {
public:
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  /// Erases the created ops, latest first (nothing else uses them); ops
  /// created inside another go with it.
  void discard() {
    llvm::SmallPtrSet<Operation *, 16> created(ops.begin(), ops.end());
    auto isNested = [&](Operation *op) {
      for (Operation *parent = op->getParentOp(); parent;
           parent = parent->getParentOp())
        if (created.contains(parent))
          return true;
      return false;
    };
    SmallVector<Operation *> outermost;
    for (Operation *op : ops)
      if (!isNested(op))
        outermost.push_back(op);
    for (Operation *op : llvm::reverse(outermost))
      op->erase();
    ops.clear();
  }
  void commit(mlir::RewriterBase &rewriter) {
    if (OpBuilder::Listener *driver = rewriter.getListener())
      for (Operation *op : ops)
        driver->notifyOperationInserted(op, {});
    ops.clear();
  }

private:
  SmallVector<Operation *> ops;
};

/// Reports why `op` stays float (qfx-lower: the remark "runs in float:
/// <reason>", with the op).
LogicalResult runsInFloat(PatternRewriter &rewriter, Operation *op,
                          llvm::Error error) {
  std::string reason = llvm::toString(std::move(error));
  return rewriter.notifyMatchFailure(op, [&](mlir::Diagnostic &diag) {
    diag << reason;
    if (op->getContext()->shouldPrintOpOnDiagnostic())
      diag.attachNote(op->getLoc()) << "see current operation: " << *op;
  });
}

/// True for an op that roots a pattern to lower: it computes on a
/// dequantized operand, outside a qfx.fused or qfx.composite body; data
/// movement only where its result is quantized (elsewhere it is replayed on
/// the integers by the pattern that consumes it), weight-only ops never.
bool isLoweringRoot(Operation *op) {
  if (op->hasTrait<mlir::OpTrait::ConstantLike>() ||
      op->hasTrait<mlir::OpTrait::IsTerminator>() ||
      llvm::isa<quant::QuantizeCastOp, quant::DequantizeCastOp,
                quant::StorageCastOp, tosa::ConstShapeOp>(op) ||
      llvm::isa_and_nonnull<FusedOp, CompositeOp>(op->getParentOp()))
    return false;
  if (!llvm::any_of(op->getOperands(), isDequantized) || isWeightOnly(op))
    return false;
  return !isDataMovement(op) || llvm::any_of(op->getUsers(), [](Operation *u) {
    return llvm::isa<quant::QuantizeCastOp>(u);
  });
}

/// The run-time quantization of the main op's input, if the pattern is
/// dynamically quantized.
DequantizeOp getDynamicInput(const PatternBody &body) {
  return body.ops.empty() ? DequantizeOp()
                          : body.external(body.ops.front()->getOperand(0))
                                .getDefiningOp<DequantizeOp>();
}

/// How the pattern rooted at `root` is lowered: by the lowering the backend
/// table names for it, else by the one its main op names
/// (QuantizableOpInterface); none for a dynamic matmul. An error says why
/// it cannot be lowered.
Lowered<std::optional<LoweringKind>>
resolveLowering(Operation *root, const LowerOptions &options) {
  const PatternMatchResult *match = options.matches->lookup(root);
  if (!isDataMovement(root) && !match)
    return unsupported("backend '" + options.backend->getName() +
                       "' has no pattern for it");
  if (root->getNumResults() != 1)
    return unsupported("the pattern has more than one result");
  PatternBody body(root);
  if (body.ops.empty())
    return unsupported("the pattern is empty");
  Operation *main = body.ops.front();
  if (getDynamicInput(body)) {
    if (!llvm::isa<tosa::MatMulOp>(main))
      return unsupported("dynamic quantization is lowered for matmul only");
    return std::optional<LoweringKind>();
  }
  if (Lowered<ActQuant> out = getOutputQuant(root->getResult(0)); !out)
    return out.takeError();
  std::optional<LoweringKind> kind;
  if (match)
    kind = match->config->getReferenceLowering();
  if (!kind)
    kind = getOwnLowering(main);
  if (!kind)
    return unsupported("'" + describeOp(main) + "' has no int8 lowering");
  return kind;
}

/// What qfx-lower's patterns share: the options, and the application of a
/// lowering that either succeeds or leaves no trace.
class LowerPattern : public mlir::RewritePattern {
public:
  LowerPattern(MLIRContext *context, const LowerOptions &options,
               mlir::PatternBenefit benefit = 1)
      : RewritePattern(MatchAnyOpTypeTag(), benefit, context),
        options(options) {}

protected:
  /// How `root` is lowered (resolveLowering: a kind, or none for a dynamic
  /// matmul), or nothing if it is no root or cannot be lowered (RunsInFloat
  /// says why).
  std::optional<std::optional<LoweringKind>> matchRoot(Operation *root) const {
    if (!isLoweringRoot(root))
      return std::nullopt;
    Lowered<std::optional<LoweringKind>> resolved =
        resolveLowering(root, options);
    if (!resolved) {
      llvm::consumeError(resolved.takeError());
      return std::nullopt;
    }
    return *resolved;
  }

  /// Replaces `op` with the float value `lower` builds before it (apply).
  LogicalResult replaceWith(
      PatternRewriter &rewriter, Operation *op,
      llvm::function_ref<Lowered<Value>(Lowering &, OpBuilder &)> lower) const {
    return apply(rewriter, op, [&](Lowering &lowering) -> llvm::Error {
      OpBuilder b(op, lowering.listener);
      Lowered<Value> result = lower(lowering, b);
      if (!result)
        return result.takeError();
      rewriter.replaceOp(op, *result);
      return llvm::Error::success();
    });
  }

  /// Runs `lower` on `op`: the ops it creates (through the Lowering's
  /// listener) are erased if it fails, and the reason reported.
  LogicalResult apply(PatternRewriter &rewriter, Operation *op,
                      llvm::function_ref<llvm::Error(Lowering &)> lower) const {
    CreatedOps created;
    Lowering lowering(options.requantization, &created);
    if (llvm::Error error = lower(lowering)) {
      created.discard();
      return runsInFloat(rewriter, op, std::move(error));
    }
    created.commit(rewriter);
    return success();
  }

  LowerOptions options;
};

/// Replaces the quantize casts of `root`'s float result with `result` (its
/// int8-domain value, of qparams `quant`) and `root` with the result's
/// dequantization. Fails, the IR unchanged, if the result's qparams are the
/// kernel's own and a quantize cast is used by more than dequantize casts.
llvm::Error replaceQuantizeCasts(PatternRewriter &rewriter, Lowering &lowering,
                                 Operation *root, Value result,
                                 const ActQuant &quant, const ActQuant &out) {
  auto qcast =
      llvm::cast<quant::QuantizeCastOp>(*root->getResult(0).getUsers().begin());
  Type quantizedType = qcast.getType();
  if (!quant.sameAs(out)) {
    // Only dequantize casts may see the new type (a function result, say,
    // keeps its declared type).
    for (Operation *user : qcast->getUsers())
      if (!llvm::isa<quant::DequantizeCastOp>(user))
        return unsupported("its output qparams are the kernel's own, and '" +
                           user->getName().getStringRef() +
                           "' uses the quantized result");
    auto observed = llvm::cast<quant::UniformQuantizedType>(
        llvm::cast<RankedTensorType>(quantizedType).getElementType());
    int64_t offset = quant.isUnsigned ? 128 : 0;
    quantizedType = withElement(
        quantizedType,
        quant::UniformQuantizedType::get(
            observed.getFlags(), observed.getStorageType(),
            observed.getExpressedType(), quant.scale, quant.zeroPoint + offset,
            observed.getStorageTypeMin(), observed.getStorageTypeMax()));
  }

  OpBuilder b(root, lowering.listener);
  Location loc = root->getLoc();
  markQuantized(result, quant);
  Value stored = result;
  if (quant.isUnsigned) {
    Lowered<Value> unsignedValue = lowering.rescale(
        b, loc, stored, {1.0}, quant.zeroPoint, quant.zeroPoint + 128,
        b.getIntegerType(8), /*inputUnsigned=*/false,
        /*outputUnsigned=*/true);
    if (!unsignedValue)
      return unsignedValue.takeError();
    stored = *unsignedValue;
  }
  Value quantized = quant::StorageCastOp::create(b, loc, quantizedType, stored);
  // The casts after the visited root are left dead, not erased (a walk may
  // visit them next).
  for (Operation *user : root->getResult(0).getUsers())
    rewriter.replaceAllUsesWith(user->getResult(0), quantized);
  rewriter.setInsertionPoint(root);
  rewriter.replaceOpWithNewOp<quant::DequantizeCastOp>(
      root, root->getResult(0).getType(), quantized);
  return llvm::Error::success();
}

/// The qparams the pattern's kernel gives its output: the observer's,
/// except where PyTorch 1.13's lowering to its native ops
/// (_lower_to_native_backend.py, special_pattern_replacement) drops the
/// quantize after an op whose kernel is not given output qparams
/// (QuantizableOpInterface::takesOutputQParams) and runs that kernel on the
/// quantized input: the output keeps its first input's qparams where the
/// pattern's table row shares the input's observer (the copy and shape ops,
/// cat), has the fixed ones where the row fixes its observer (sigmoid,
/// tanh). They differ from the observer's only where the op is not quantized
/// itself (a None entry: the next pattern's input observer quantizes its
/// output) or where its input's qparams are a kernel's own (an add of a
/// scalar). The storage type stays the observer's: PyTorch's output has its
/// input's dtype, the same integers in the int8 domain. `inFloat` is set
/// where PyTorch does not replace the op (it reads another float op of
/// PyTorch's, not a dequantize): PyTorch computes it in float and quantizes
/// the result to the observer's qparams.
static Lowered<ActQuant> getKernelOutputQuant(Lowering &lowering,
                                              const PatternBody &body,
                                              const PatternMatchResult *match,
                                              const ActQuant &out,
                                              bool &inFloat) {
  inFloat = false;
  Operation *main = body.ops.front();
  auto quantizable = llvm::dyn_cast<QuantizableOpInterface>(main);
  if (!match || !quantizable || quantizable.takesOutputQParams())
    return out;
  // PyTorch counts the tensor arguments: the quantized ones, here. It
  // replaces only an op that reads dequantize nodes themselves: after
  // another of its ops (a reshape before a transpose) the quantize stays.
  // qfx's own layout changes (without `qfx.origin`) are not PyTorch's ops,
  // and the data movement one PyTorch op became (a nearest interpolate's
  // reshapes and tiles) is that op.
  std::optional<OpScope> scope = getOpScope(main);
  auto origin = main->getAttr(QFXDialect::getOriginAttrName());
  auto isPartOfMain = [&](Operation *def) {
    if (!def->hasAttr(QFXDialect::getOriginAttrName()))
      return true;
    std::optional<OpScope> defScope = getOpScope(def);
    return origin && def->getAttr(QFXDialect::getOriginAttrName()) == origin &&
           scope && defScope && defScope->moduleName == scope->moduleName &&
           defScope->nodeName == scope->nodeName;
  };
  SmallVector<Value> inputs;
  for (Value operand : main->getOperands()) {
    Value input = body.external(operand);
    if (!isDequantized(input))
      continue;
    Value read = input;
    for (Operation *def = read.getDefiningOp();
         def && isDataMovement(def) && isPartOfMain(def);
         def = read.getDefiningOp())
      read = getMovedOperand(def);
    if (!read.getDefiningOp<quant::DequantizeCastOp>()) {
      inFloat = true;
      return out;
    }
    inputs.push_back(input);
  }
  if (inputs.empty())
    return out;
  const BackendPatternConfig &config = *match->config;
  const std::optional<ObserverSpec> &fixed =
      config.getOverwriteOutputObserver();
  if (fixed && fixed->kind == ObserverKind::FixedQParams) {
    // (Its validation requires the scale and zero point.)
    int64_t offset = fixed->getDType() == DType::QUInt8 ? 128 : 0;
    return ActQuant{*fixed->scale, *fixed->zeroPoint - offset, out.isUnsigned};
  }
  if (config.getObservationType(inputs.size()) !=
      ObservationType::OutputShareObserverWithInput)
    return out;
  Lowered<Act> input = lowering.getAct(inputs.front());
  if (!input)
    return input.takeError();
  return ActQuant{input->quant.scale, input->quant.zeroPoint, out.isUnsigned};
}

/// The int8 lowering of one kind: a pattern whose lowering resolves to
/// `kind` (resolveLowering), and whose main op the lowering applies to.
class LowerKind : public LowerPattern {
public:
  LowerKind(MLIRContext *context, const LowerOptions &options,
            LoweringKind kind, LowerFn lower,
            bool (*appliesTo)(Operation *main))
      : LowerPattern(context, options), kind(kind), lower(lower),
        appliesTo(appliesTo) {}

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    std::optional<std::optional<LoweringKind>> match = matchRoot(root);
    if (!match || *match != kind)
      return failure();
    return apply(rewriter, root, [&](Lowering &lowering) -> llvm::Error {
      PatternBody body(root);
      Operation *main = body.ops.front();
      if (!lower || !appliesTo(main))
        return unsupported("the int8 lowering '" +
                           stringifyLoweringKind(kind).str() +
                           "' does not apply to '" + describeOp(main) + "'");
      ActQuant out = cantFail(getOutputQuant(root->getResult(0)));
      bool inFloat = false;
      Lowered<ActQuant> target = getKernelOutputQuant(
          lowering, body, options.matches->lookup(root), out, inFloat);
      if (!target)
        return target.takeError();
      OpBuilder b(root, lowering.listener);
      // What PyTorch computes in float, in float (its dequantize, the
      // pattern's ops, its quantize), unless the requantization is integer.
      Lowered<Value> result =
          inFloat && lowering.requantization != Requantization::Integer
              ? lowering.lowerInFloat(b, body, out)
              : (lowering.*lower)(b, body, *target);
      if (!result)
        return result.takeError();
      return replaceQuantizeCasts(rewriter, lowering, root, *result,
                                  lowering.resultQuant.value_or(*target), out);
    });
  }

private:
  LoweringKind kind;
  LowerFn lower;
  bool (*appliesTo)(Operation *main);
};

/// A dynamically quantized matmul: its input quantized at run time, its
/// output float.
struct LowerDynamicMatmul : LowerPattern {
  using LowerPattern::LowerPattern;

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    std::optional<std::optional<LoweringKind>> match = matchRoot(root);
    if (!match || *match)
      return failure();
    return replaceWith(rewriter, root, [&](Lowering &lowering, OpBuilder &b) {
      PatternBody body(root);
      return lowering.lowerDynamicMatmul(b, body, getDynamicInput(body));
    });
  }
};

/// A weight-only embedding (lowerWeightOnlyEmbedding): its weight stored
/// quantized, its output float.
struct LowerWeightOnlyEmbedding : LowerPattern {
  using LowerPattern::LowerPattern;

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto composite = llvm::dyn_cast<CompositeOp>(op);
    if (!composite || !composite.isEmbedding() ||
        (!matchFloatQParamsDequantize(composite.getOperand(1)) &&
         !isDequantized(composite.getOperand(1))))
      return failure();
    return replaceWith(rewriter, op, [&](Lowering &, OpBuilder &b) {
      return lowerWeightOnlyEmbedding(b, composite);
    });
  }
};

/// The dynamic matmuls of a recurrent composite's body
/// (Lowering::lowerRecurrentBody); its outputs stay float.
struct LowerRecurrentBody : LowerPattern {
  using LowerPattern::LowerPattern;

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto composite = llvm::dyn_cast<CompositeOp>(op);
    if (!composite || !composite.isRecurrent())
      return failure();
    bool changed = false;
    LogicalResult result =
        apply(rewriter, op, [&](Lowering &lowering) -> llvm::Error {
          auto replacements = lowering.lowerRecurrentBody(composite);
          if (!replacements)
            return replacements.takeError();
          for (auto [from, to] : *replacements)
            rewriter.replaceAllUsesWith(from, to);
          changed = !replacements->empty();
          return llvm::Error::success();
        });
    if (failed(result) || !changed)
      return failure();
    eraseDeadOps(rewriter, composite.getBody().front());
    return success();
  }
};

/// The last pattern tried on a root: says why no lowering applies to it.
struct RunsInFloat : LowerPattern {
  RunsInFloat(MLIRContext *context, const LowerOptions &options)
      : LowerPattern(context, options, /*benefit=*/0) {}

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    if (!isLoweringRoot(root))
      return failure();
    Lowered<std::optional<LoweringKind>> resolved =
        resolveLowering(root, options);
    if (resolved)
      return failure();
    return runsInFloat(rewriter, root, resolved.takeError());
  }
};

/// Whether `op` is lowered by `Kind` when no table row says otherwise.
template <LoweringKind Kind> bool namesLowering(Operation *op) {
  return getOwnLowering(op) == Kind;
}

template <bool (CompositeOp::*Predicate)()> bool isCompositeOf(Operation *op) {
  auto composite = llvm::dyn_cast<CompositeOp>(op);
  return composite && (composite.*Predicate)();
}

bool anyOp(Operation *) { return true; }
bool noOp(Operation *) { return false; }

} // namespace qfx::lowering

std::optional<qfx::Requantization> qfx::parseRequantization(StringRef name) {
  return llvm::StringSwitch<std::optional<Requantization>>(name)
      .Case("onednn", Requantization::OneDnn)
      .Case("qnnpack", Requantization::Qnnpack)
      .Case("integer", Requantization::Integer)
      .Default(std::nullopt);
}

qfx::Requantization
qfx::getDefaultRequantization(const BackendConfig &backend) {
  return parseRequantization(getEngineTraits(backend.getName()).requantization)
      .value_or(Requantization::Integer);
}

void qfx::populateQFXLowerPatterns(RewritePatternSet &patterns,
                                   const LowerOptions &options) {
  using namespace qfx::lowering;
  using K = LoweringKind;
  MLIRContext *context = patterns.getContext();
  auto add = [&](K kind, LowerFn lower, bool (*appliesTo)(Operation *)) {
    patterns.add<LowerKind>(context, options, kind, lower, appliesTo);
  };
  add(K::Contraction, &Lowering::lowerConvOrMatmul,
      namesLowering<K::Contraction>);
  add(K::Binary, &Lowering::lowerAddOrMul, namesLowering<K::Binary>);
  add(K::Pool, &Lowering::lowerPool, namesLowering<K::Pool>);
  add(K::Concat, &Lowering::lowerConcat, namesLowering<K::Concat>);
  add(K::Mean, &Lowering::lowerMean, isCompositeOf<&CompositeOp::isMean>);
  // Any elementwise op: lowerTable says which it cannot evaluate.
  add(K::Table, &Lowering::lowerTable, anyOp);
  add(K::FloatKernel, &Lowering::lowerInFloat, anyOp);
  add(K::CenteredFloat, &Lowering::lowerCenteredInFloat, anyOp);
  add(K::BatchNorm, &Lowering::lowerBatchNorm,
      isCompositeOf<&CompositeOp::isBatchNorm>);
  add(K::Normalization, &Lowering::lowerNormalization,
      isCompositeOf<&CompositeOp::isNormalization>);
  add(K::WeightedBody, &Lowering::lowerWeightedBody,
      [](Operation *op) { return llvm::isa<CompositeOp>(op); });
  add(K::DataMovement, &Lowering::lowerDataMovement, isDataMovement);
  // Lowered on their own (their outputs stay float), never as a pattern.
  add(K::Embedding, nullptr, noOp);
  add(K::Recurrent, nullptr, noOp);
  patterns.add<LowerDynamicMatmul, LowerWeightOnlyEmbedding, LowerRecurrentBody,
               RunsInFloat>(context, options);
}

namespace qfx::lowering {
namespace {

/// Turns each reason a pattern gives for not lowering an op into the remark
/// "runs in float: <reason>".
struct RunsInFloatRemarks : mlir::RewriterBase::Listener {
  void notifyMatchFailure(
      Location loc,
      llvm::function_ref<void(mlir::Diagnostic &)> reason) override {
    mlir::InFlightDiagnostic remark = mlir::emitRemark(loc, "runs in float: ");
    reason(*remark.getUnderlyingDiagnostic());
  }
};

struct QFXReferenceToTosaPass
    : qfx::impl::QFXReferenceToTosaBase<QFXReferenceToTosaPass> {
  using Base::Base;

  PassConfig config;
  Requantization requantization = Requantization::Integer;

  LogicalResult initialize(MLIRContext *context) override {
    if (failed(config.load(context, backend)))
      return failure();
    if (requantizationOption.empty()) {
      requantization = getDefaultRequantization(*config.backend);
    } else if (std::optional<Requantization> mode =
                   parseRequantization(requantizationOption)) {
      requantization = *mode;
    } else {
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "qfx-lower: requantization '" << requantizationOption
             << "' is none of onednn, qnnpack, integer";
    }
    return success();
  }

  void runOnOperation() override {
    mlir::func::FuncOp func = getOperation();
    // A model prepared for another backend: its observers follow that
    // backend's patterns and constraints, not these.
    if (auto module = func->getParentOfType<mlir::ModuleOp>())
      if (auto prepared = module->getAttrOfType<mlir::StringAttr>(
              QFXDialect::getBackendAttrName());
          prepared && prepared.getValue() != config.backend->getName())
        mlir::emitWarning(func.getLoc())
            << "qfx-lower: the model was prepared for backend '"
            << prepared.getValue() << "', it is lowered with backend '"
            << config.backend->getName() << "'";
    // Without the option, the module's engine's requantization (where it
    // has one other than the backend's).
    Requantization mode = requantization;
    if (auto module = func->getParentOfType<mlir::ModuleOp>();
        module && requantizationOption.empty())
      if (auto engine = module->getAttrOfType<mlir::StringAttr>(
              QFXDialect::getEngineAttrName()))
        mode = parseRequantization(
                   getEngineTraits(engine.getValue()).requantization)
                   .value_or(requantization);
    PatternMatches matches = matchBackendPatterns(func, *config.backend);
    RunsInFloatRemarks remarks;
    RewritePatternSet lowering(&getContext());
    populateQFXLowerPatterns(lowering, {config.backend.get(), &matches, mode});
    mlir::walkAndApplyPatterns(func, std::move(lowering), &remarks);
    RewritePatternSet storage(&getContext());
    populateQFXWeightStoragePatterns(storage);
    mlir::walkAndApplyPatterns(func, std::move(storage));
    mlir::IRRewriter rewriter(&getContext());
    func.walk<mlir::WalkOrder::PostOrder>([&](Block *block) {
      if (!llvm::isa<FusedOp, CompositeOp>(block->getParentOp()))
        eraseDeadOps(rewriter, *block);
    });
    if (emitTosa) {
      RewritePatternSet patterns(&getContext());
      populateQFXContractToTosaPatterns(patterns);
      mlir::walkAndApplyPatterns(func, std::move(patterns));
    }
  }
};

} // namespace
} // namespace qfx::lowering
