//===- Pipelines.cpp - qfx's named pass pipelines -------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Pipelines.h"

#include "qfx/Conversion/Passes.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

void qfx::buildPreparePipeline(mlir::OpPassManager &pm,
                               const PreparePipelineOptions &options) {
  QFXFuseOptions fuse;
  fuse.backend = options.backend;
  fuse.foldBatchNorm = options.foldBatchNorm;
  pm.addPass(createQFXFuse(fuse));
  QFXPrepareOptions prepare;
  prepare.qconfigMapping = options.qconfigMapping;
  prepare.backend = options.backend;
  prepare.engine = options.engine;
  pm.addPass(createQFXPrepare(prepare));
}

void qfx::buildQuantizePipeline(mlir::OpPassManager &pm,
                                const QuantizePipelineOptions &options) {
  QFXConvertOptions convert;
  convert.dynamicReduceRange = options.dynamicReduceRange;
  pm.addPass(createQFXConvert(convert));
  QFXReferenceToTosaOptions lower;
  lower.backend = options.backend;
  pm.addNestedPass<mlir::func::FuncOp>(createQFXReferenceToTosa(lower));
}

std::string qfx::getLowerToNativePasses(const LowerToNativeOptions &options) {
  // Observers are lowered first: their runtime slots count every
  // qfx.observe of the module, before symbol-dce drops unused functions.
  return std::string(options.calibrate ? "qfx-lower-observers{calibrate=true}"
                                       : "qfx-lower-observers") +
         // GELU, softmax, division, mean and layer norm become PyTorch's
         // kernels, not their bodies (erff, expf, a multiply by the
         // reciprocal, sums in another order), after a float island's table
         // has taken an elementwise one onto the 256 int8 values.
         ",symbol-dce,qfx-inline-fused,func.func(qfx-float-island-tables),"
         "qfx-lower-gelu,qfx-lower-softmax,qfx-lower-division,qfx-lower-mean,"
         "qfx-lower-layer-norm,"
         "qfx-inline-composites,"
         "func.func(qfx-int8-clamps,qfx-sink-concats),"
         // Every contraction as qfx.contract for the kernels; what they do
         // not take back to TOSA for the generic lowering.
         "qfx-tosa-to-contract,qfx-codegen{target=" +
         getNativeTargetInfo(options.target).name.str() + "}" +
         (options.emulateAmx ? ",qfx-emulate-amx" : "") +
         ",qfx-contract-to-tosa" +
         // tosa.transpose_conv2d has no linalg form: a conv2d of the
         // reversed weight on the zero-inserted input (after the quant casts
         // are lowered: the pass's greedy driver folds ops).
         ",func.func(qfx-lower-quant-to-linalg,tosa-optional-decompositions,"
         "tosa-to-linalg-named,"
         "tosa-to-linalg,tosa-to-arith{include-apply-rescale},tosa-to-tensor,"
         "tosa-to-scf),"
         "convert-elementwise-to-linalg,"
         "func.func(qfx-fuse-elementwise,qfx-interchange-reductions),"
         "canonicalize,"
         // The ops that write a concatenation's operands (qfx-sink-concats'
         // pieces) write into its buffer; the copies that leaves of a part
         // onto itself go (cse, canonicalize).
         "eliminate-empty-tensors,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "func.func(cse,canonicalize),"
         "buffer-results-to-out-params{hoist-static-allocs "
         "modify-public-functions},"
         "func.func(buffer-deallocation-pipeline,qfx-early-dealloc),"
         // After deallocation: the buffers a host call reads and writes are
         // live until it (its pointers are not uses).
         "qfx-lower-host-calls,"
         "qfx-strided-copies-to-loops,qfx-parallel-linalg,"
         "qfx-lower-intrinsic-calls,"
         "convert-linalg-to-loops,"
         "expand-strided-metadata,lower-affine,convert-scf-to-openmp,"
         "finalize-memref-to-llvm" +
         (options.bufferCache ? "{use-generic-functions=true}," : ",") +
         // libm has no rsqrtf (tosa.rsqrt of a layer norm): 1 / sqrt.
         // convert-math-to-libm rejects math.ctlz (an int8 tosa.avg_pool2d
         // with padding divides with it): shifts and compares.
         "func.func(math-expand-ops{ops=rsqrt,ctlz}),"
         "convert-scf-to-cf,convert-math-to-libm,convert-to-llvm,"
         "reconcile-unrealized-casts" +
         (options.byteConstants ? ",qfx-byte-constants" : "");
}

llvm::LogicalResult
qfx::buildLowerToNativePipeline(mlir::OpPassManager &pm,
                                const LowerToNativeOptions &options,
                                llvm::raw_ostream &errors) {
  return mlir::parsePassPipeline(getLowerToNativePasses(options), pm, errors);
}

void qfx::registerQFXPipelines() {
  static const bool registered = [] {
    mlir::PassPipelineRegistration<PreparePipelineOptions>(
        "qfx-prepare-pipeline",
        "Float model to observed model: qfx-fuse, then qfx-prepare",
        buildPreparePipeline);
    mlir::PassPipelineRegistration<QuantizePipelineOptions>(
        "qfx-quantize-pipeline",
        "Calibrated model to int8 TOSA: qfx-convert, then qfx-lower",
        buildQuantizePipeline);
    mlir::registerPassPipeline(
        "qfx-lower-to-native",
        "Any stage to the LLVM dialect, int8 patterns through qfx-codegen's "
        "kernels for a target",
        [](mlir::OpPassManager &pm, llvm::StringRef text,
           llvm::function_ref<llvm::LogicalResult(const llvm::Twine &)>
               errorHandler) -> llvm::LogicalResult {
          LowerToNativeOptions options;
          if (mlir::failed(options.parseFromString(text)))
            return mlir::failure();
          std::string message;
          llvm::raw_string_ostream errors(message);
          if (mlir::failed(buildLowerToNativePipeline(pm, options, errors)))
            return errorHandler("qfx-lower-to-native: " + message);
          return mlir::success();
        },
        [](llvm::function_ref<void(const mlir::detail::PassOptions &)>
               handler) { handler(LowerToNativeOptions()); });
    return true;
  }();
  (void)registered;
}
