//===- ParallelLinalg.cpp - The ops between the kernels on threads --------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The linalg ops qfx-codegen leaves (elementwise ops, table lookups, average
// pools, the float islands' ops) split their outer parallel loops across
// the kernels' OpenMP threads. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "qfx/Codegen/Passes.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace qfx {
#define GEN_PASS_DEF_QFXPARALLELLINALG
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

namespace {

/// Below this much work (iterations times the ops of an iteration: a few
/// microseconds) an op stays on the calling thread: a fork and join of the
/// (spinning) OpenMP threads costs about a microsecond. Above it, splitting
/// pays even for ops bound by memory: the kernels before and after split
/// their rows the same way, and each core reads what it wrote
/// (docs/performance.md, "Measured decisions").
constexpr int64_t kParallelWork = int64_t{1} << 15;
/// The pieces an op is split into: at most kPieces, and the loops after
/// the outermost one split only while there are fewer than kMinPieces (7x7
/// activations: 7 pieces). The threads take contiguous runs of them
/// (OpenMP's static schedule), as the kernels split their rows.
constexpr int64_t kPieces = 32;
constexpr int64_t kMinPieces = 8;
/// The innermost loop (contiguous channels, which LLVM vectorizes) is split
/// only into multiples of this many iterations.
constexpr int64_t kInnermostQuantum = 16;

/// The tile sizes that split the parallel loops before `op`'s first
/// reduction, outermost first, into pieces of whole iterations (a size
/// divides its loop's range: the pieces keep static shapes); empty when no
/// split gives two. Reductions stay whole: a piece of a global pool (whose
/// channels are innermost) would read a few bytes of every pixel.
llvm::SmallVector<int64_t> getPieceSizes(mlir::linalg::LinalgOp op,
                                         llvm::ArrayRef<int64_t> ranges) {
  llvm::SmallVector<mlir::utils::IteratorType> iterators =
      op.getIteratorTypesArray();
  llvm::SmallVector<int64_t> sizes(ranges.size(), 0);
  int64_t pieces = 1;
  for (auto [loop, range] : llvm::enumerate(ranges)) {
    if (pieces >= kMinPieces ||
        iterators[loop] != mlir::utils::IteratorType::parallel)
      break;
    int64_t quantum = loop + 1 == ranges.size() ? kInnermostQuantum : 1;
    int64_t wanted = llvm::divideCeil(kPieces, pieces);
    for (int64_t size = llvm::alignTo(llvm::divideCeil(range, wanted), quantum);
         size < range; size += quantum) {
      if (range % size == 0) {
        sizes[loop] = size;
        pieces *= range / size;
        break;
      }
    }
  }
  if (pieces < 2)
    sizes.clear();
  return sizes;
}

/// Moves `loop` into a new private function of `module` called after
/// `caller`, and calls it in its place: LLVM then compiles each split op
/// apart from the function it was in (the program's one straight-line
/// function would otherwise take every op between the kernels, outlined
/// OpenMP regions included, to one compile thread). Constants the loop uses
/// are cloned into the function, other values passed as arguments.
void outline(mlir::scf::ParallelOp loop, mlir::func::FuncOp caller,
             mlir::SymbolTable &symbols, mlir::RewriterBase &rewriter) {
  llvm::SetVector<mlir::Value> used(loop->getOperands().begin(),
                                    loop->getOperands().end());
  mlir::getUsedValuesDefinedAbove(loop.getRegion(), used);
  llvm::SmallVector<mlir::Value> arguments, constants;
  for (mlir::Value value : used) {
    mlir::Operation *producer = value.getDefiningOp();
    if (producer && producer->hasTrait<mlir::OpTrait::ConstantLike>())
      constants.push_back(value);
    else
      arguments.push_back(value);
  }
  mlir::Location loc = loop.getLoc();
  rewriter.setInsertionPointAfter(caller);
  auto function = mlir::func::FuncOp::create(
      rewriter, loc, (caller.getSymName() + "_parallel").str(),
      rewriter.getFunctionType(mlir::ValueRange(arguments).getTypes(), {}));
  function.setPrivate();
  symbols.insert(function); // uniquing its name
  mlir::Block *body = function.addEntryBlock();
  mlir::IRMapping mapping;
  mapping.map(arguments, body->getArguments());
  rewriter.setInsertionPointToStart(body);
  for (mlir::Value value : constants)
    rewriter.clone(*value.getDefiningOp(), mapping);
  rewriter.clone(*loop, mapping);
  mlir::func::ReturnOp::create(rewriter, loc);
  rewriter.setInsertionPoint(loop);
  mlir::func::CallOp::create(rewriter, loc, function, arguments);
  rewriter.eraseOp(loop);
}

struct QFXParallelLinalgPass
    : qfx::impl::QFXParallelLinalgBase<QFXParallelLinalgPass> {
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    auto name = module->getAttrOfType<mlir::StringAttr>(
        qfx::QFXDialect::getTargetAttrName());
    if (!name) {
      module.emitError() << "qfx-parallel-linalg needs the module attribute '"
                         << qfx::QFXDialect::getTargetAttrName()
                         << "' (qfx-codegen sets it) to know whether the "
                            "target runs threads";
      return signalPassFailure();
    }
    const qfx::NativeTargetInfo *target = qfx::lookupNativeTarget(name);
    if (!target) {
      module.emitError() << "unknown target '" << name.getValue()
                         << "' in the module attribute '"
                         << qfx::QFXDialect::getTargetAttrName()
                         << "', expected " << qfx::listNativeTargets();
      return signalPassFailure();
    }
    const qfx::codegen::KernelTarget *kernels =
        qfx::codegen::getKernels(target->target);
    if (!kernels || !kernels->parallel)
      return;

    llvm::SmallVector<mlir::linalg::LinalgOp> ops;
    module.walk([&](mlir::linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() &&
          !op->getParentOfType<mlir::scf::ParallelOp>())
        ops.push_back(op);
    });
    mlir::SymbolTable symbols(module);
    mlir::IRRewriter rewriter(&getContext());
    for (mlir::linalg::LinalgOp op : ops) {
      llvm::SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      // The ops of an iteration, its yield aside.
      int64_t work = std::max<int64_t>(
          1, static_cast<int64_t>(op.getBlock()->getOperations().size()) - 1);
      for (int64_t range : ranges)
        work = mlir::ShapedType::isDynamic(range) ? 0 : work * range;
      if (work < kParallelWork)
        continue;
      llvm::SmallVector<int64_t> sizes = getPieceSizes(op, ranges);
      if (sizes.empty())
        continue;
      rewriter.setInsertionPoint(op);
      mlir::linalg::LinalgTilingOptions options;
      options.setTileSizes(sizes).setLoopType(
          mlir::linalg::LinalgTilingLoopType::ParallelLoops);
      mlir::FailureOr<mlir::linalg::TiledLinalgOp> tiled =
          mlir::linalg::tileLinalgOp(rewriter, op, options);
      // One scf.parallel (listed once per loop it splits).
      auto loop = mlir::succeeded(tiled) && !tiled->loops.empty()
                      ? llvm::dyn_cast<mlir::scf::ParallelOp>(tiled->loops[0])
                      : nullptr;
      if (!loop) {
        op.emitError() << "qfx-parallel-linalg could not split the op";
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
      outline(loop, loop->getParentOfType<mlir::func::FuncOp>(), symbols,
              rewriter);
    }
  }
};

} // namespace
