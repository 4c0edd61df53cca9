//===- CompiledModel.cpp - JIT-compiled pipeline stages -------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/CompiledModel.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Pipelines.h"
#include "qfx/Runtime/BufferCache.h"

#include "Jit.h"
#include "Support.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstring>

using namespace qfx;
using runtime::makeError;

ObservationSink::~ObservationSink() = default;

//===----------------------------------------------------------------------===//
// The calibration runtime's entry point
//===----------------------------------------------------------------------===//

/// The sink of the model running on this thread.
static thread_local ObservationSink *currentSink = nullptr;

/// Called by every qfx.observe of a calibrating model (see
/// qfx-lower-observers): hands the observed tensor to the current sink, as a
/// contiguous C-order copy if its layout is strided.
extern "C" void _mlir_ciface_qfxObserve(int64_t slot,
                                        UnrankedMemRefType<float> *tensor) {
  if (!currentSink)
    return;
  DynamicMemRefType<float> view(*tensor);
  llvm::SmallVector<int64_t> shape(view.sizes, view.sizes + view.rank);
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  bool contiguous = true;
  for (int64_t dim = view.rank - 1, stride = 1; dim >= 0; --dim) {
    if (shape[dim] != 1 && view.strides[dim] != stride)
      contiguous = false;
    stride *= shape[dim];
  }
  const float *base = view.data + view.offset;
  if (contiguous) {
    currentSink->observe(slot, shape, llvm::ArrayRef(base, count));
    return;
  }
  std::vector<float> copy;
  copy.reserve(count);
  for (float value : view)
    copy.push_back(value);
  currentSink->observe(slot, shape, copy);
}

//===----------------------------------------------------------------------===//
// The host-call runtime's entry point
//===----------------------------------------------------------------------===//

namespace {
/// The calling thread's host callback, and the first host call of the
/// running program that failed (-1: none).
struct HostCalls {
  HostCallback callback = nullptr;
  void *userData = nullptr;
  int64_t failed = -1;
  bool missing = false;
};
} // namespace

static thread_local HostCalls hostCalls;

void qfx::setHostCallback(HostCallback callback, void *userData) {
  hostCalls.callback = callback;
  hostCalls.userData = userData;
}

/// Called by every qfx.host_call (see qfx-lower-host-calls) with the
/// addresses of its buffers: runs the thread's host callback, unless an
/// earlier host call of the program failed.
extern "C" void
_mlir_ciface_qfxHostCall(int64_t id, StridedMemRefType<int64_t, 1> *pointers) {
  if (hostCalls.failed >= 0)
    return;
  if (!hostCalls.callback) {
    hostCalls.failed = id;
    hostCalls.missing = true;
    return;
  }
  llvm::SmallVector<void *> buffers;
  for (int64_t index = 0; index < pointers->sizes[0]; ++index)
    buffers.push_back(reinterpret_cast<void *>(
        pointers->data[pointers->offset + index * pointers->strides[0]]));
  if (hostCalls.callback(hostCalls.userData, id, buffers.data(),
                         buffers.size()) != 0)
    hostCalls.failed = id;
}

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

std::string TensorSignature::describe() const {
  std::string text = getNpyDTypeName(dtype).str() + "[";
  text += llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }),
      ", ");
  return text + "]";
}

static std::optional<NpyDType> getNpyDType(mlir::Type element) {
  if (element.isF32())
    return NpyDType::Float32;
  if (element.isF16())
    return NpyDType::Float16;
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(element)) {
    if (integer.isUnsigned())
      return integer.getWidth() == 8 ? std::optional(NpyDType::UInt8)
                                     : std::nullopt;
    switch (integer.getWidth()) {
    case 8:
      return NpyDType::Int8;
    case 32:
      return NpyDType::Int32;
    case 64:
      return NpyDType::Int64;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

static llvm::Expected<TensorSignature> getSignature(mlir::Type type,
                                                    llvm::StringRef what) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  std::optional<NpyDType> dtype;
  if (tensor)
    dtype = getNpyDType(tensor.getElementType());
  llvm::StringRef problem;
  if (!tensor || !tensor.hasStaticShape() || !dtype)
    problem = "expected a statically shaped tensor of f32, f16, i8, ui8, i32 "
              "or i64";
  else if (!getNpyByteCount(*dtype, tensor.getShape()))
    problem = "more than 2^63 bytes of data";
  if (!problem.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return makeError(what + " has type " + text + ": " + problem);
  }
  return TensorSignature{*dtype, llvm::SmallVector<int64_t>(tensor.getShape())};
}

llvm::Error CompiledModel::checkInputs(llvm::ArrayRef<NpyArray> given) const {
  if (given.size() != inputs.size())
    return makeError(llvm::formatv("@{0} takes {1} inputs, {2} given", entry,
                                   inputs.size(), given.size()));
  for (auto [index, expected, array] : llvm::enumerate(inputs, given)) {
    if (array.dtype == expected.dtype &&
        llvm::ArrayRef(array.shape) == llvm::ArrayRef(expected.shape))
      continue;
    TensorSignature got{array.dtype, array.shape};
    return makeError(llvm::formatv("input {0} of @{1}: expected {2}, got {3}",
                                   index, entry, expected.describe(),
                                   got.describe()));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// The passes of the lowering pipeline, for a pass manager on the module.
/// qfx-lower-to-native's passes for `options`.
static std::string getLoweringPasses(const CompileOptions &options) {
  LowerToNativeOptions lowering;
  lowering.target = options.codegenTarget;
  lowering.calibrate = options.calibrate;
  lowering.emulateAmx = options.emulateAmx;
  lowering.bufferCache = options.bufferCache;
  lowering.byteConstants = options.byteConstants;
  return getLowerToNativePasses(lowering);
}

/// `options` as the JIT compiles: with the buffer cache, large constants
/// left as they are (runtime::Jit binds them to buffers).
static CompileOptions getJitOptions(const CompileOptions &options) {
  CompileOptions jit = options;
  jit.bufferCache = true;
  jit.byteConstants = false;
  return jit;
}

std::string CompiledModel::getLoweringPipeline(const CompileOptions &options) {
  return "builtin.module(" + getLoweringPasses(getJitOptions(options)) + ")";
}

/// Collects the diagnostics the pipeline emits, with their locations.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *context)
      : handler(context, [this](mlir::Diagnostic &diagnostic) {
          append(diagnostic);
          for (mlir::Diagnostic &note : diagnostic.getNotes())
            append(note);
          return mlir::success();
        }) {}

  std::string take() { return std::move(text); }

private:
  void append(mlir::Diagnostic &diagnostic) {
    llvm::raw_string_ostream os(text);
    os << runtime::formatLocation(diagnostic.getLocation()) << ": ";
    switch (diagnostic.getSeverity()) {
    case mlir::DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case mlir::DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case mlir::DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case mlir::DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diagnostic << "\n";
  }

  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

CompiledModel::~CompiledModel() = default;
CompiledModel::CompiledModel(CompiledModel &&) noexcept = default;

bool qfx::isJitTarget(const NativeTargetInfo &target) {
  if (target.triple.empty())
    return true;
  return llvm::Triple(target.triple).getArch() ==
         llvm::Triple(llvm::sys::getProcessTriple()).getArch();
}

llvm::Expected<std::string> qfx::findEntry(mlir::ModuleOp module,
                                           llvm::StringRef name) {
  llvm::SmallVector<mlir::func::FuncOp> defined, candidates;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    if (function.isExternal())
      continue;
    defined.push_back(function);
    if (function.isPublic())
      candidates.push_back(function);
  }
  if (!name.empty()) {
    if (llvm::any_of(defined, [&](mlir::func::FuncOp function) {
          return function.getName() == name;
        }))
      return name.str();
    candidates = defined;
  } else if (candidates.size() == 1) {
    return candidates.front().getName().str();
  }
  std::string names =
      llvm::join(llvm::map_range(candidates,
                                 [](mlir::func::FuncOp function) {
                                   return "@" + function.getName().str();
                                 }),
                 ", ");
  if (!name.empty())
    return makeError("no function @" + name + " in the module; it defines " +
                     (names.empty() ? std::string("none") : names));
  if (candidates.empty())
    return makeError("the module has no public function to run");
  return makeError("the module has several public functions (" + names +
                   "): choose one with --entry");
}

llvm::Expected<LoweredModel>
qfx::lowerToLLVMDialect(mlir::ModuleOp module, const CompileOptions &options) {
  llvm::Expected<std::string> entry = findEntry(module, options.entry);
  if (!entry)
    return entry.takeError();
  auto function = module.lookupSymbol<mlir::func::FuncOp>(*entry);

  LoweredModel model;
  model.entry = *entry;
  mlir::FunctionType type = function.getFunctionType();
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    auto signature = getSignature(
        input, llvm::formatv("input {0} of @{1}", index, *entry).str());
    if (!signature)
      return signature.takeError();
    model.inputs.push_back(std::move(*signature));
  }
  for (auto [index, result] : llvm::enumerate(type.getResults())) {
    auto signature = getSignature(
        result, llvm::formatv("result {0} of @{1}", index, *entry).str());
    if (!signature)
      return signature.takeError();
    model.results.push_back(std::move(*signature));
  }

  model.module = module.clone();
  mlir::MLIRContext *context = model.module->getContext();
  auto clonedEntry = model.module->lookupSymbol<mlir::func::FuncOp>(*entry);
  clonedEntry->setAttr(mlir::LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                       mlir::UnitAttr::get(context));
  // Only the entry and what it calls are compiled: symbol-dce drops the
  // other functions once they are private.
  for (auto other : model.module->getOps<mlir::func::FuncOp>())
    if (other != clonedEntry)
      other.setPrivate();
  // The caller's arrays are inputs only: never bufferize in place into them.
  for (unsigned i = 0, e = clonedEntry.getNumArguments(); i < e; ++i)
    clonedEntry.setArgAttr(
        i, mlir::bufferization::BufferizationDialect::kWritableAttrName,
        mlir::BoolAttr::get(context, false));

  DiagnosticCollector diagnostics(context);
  mlir::PassManager pm(context);
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (mlir::failed(
          mlir::parsePassPipeline(getLoweringPasses(options), pm, errors)))
    return makeError("the lowering pipeline does not parse (are upstream's "
                     "passes registered? qfx::registerQFXPasses does it): " +
                     message);
  if (mlir::failed(pm.run(*model.module)))
    return makeError("cannot lower the model to LLVM:\n" + diagnostics.take());

  // One descriptor per input, then one per result: the C wrapper must take
  // exactly those and return nothing.
  auto wrapper = model.module->lookupSymbol<mlir::LLVM::LLVMFuncOp>(
      "_mlir_ciface_" + *entry);
  size_t expectedParams = model.inputs.size() + model.results.size();
  if (!wrapper || wrapper.getNumArguments() != expectedParams ||
      !llvm::isa<mlir::LLVM::LLVMVoidType>(
          wrapper.getFunctionType().getReturnType()))
    return makeError(llvm::formatv(
        "internal error: @{0} did not lower to a C interface taking {1} "
        "buffers and returning nothing",
        *entry, expectedParams));
  mlir::registerBuiltinDialectTranslation(*context);
  mlir::registerLLVMDialectTranslation(*context);
  mlir::registerOpenMPDialectTranslation(*context);
  return model;
}

/// True if `module` is a float or observed stage: it computes a convolution
/// or matmul in float and no int8 contraction (qfx.contract). Its
/// contractions become qfx-codegen's float kernels, or plain loops where it
/// has none for the target, which LLVM's -O3 runs faster than -O2 (not
/// vectorized: see compile()). An int8 stage's contractions are
/// qfx-codegen's kernels, already vector code: -O2 runs them as fast and
/// compiles them faster (docs/performance.md, "Measured decisions"); its
/// float islands (attention left float) are vectorized with it.
static bool isFloatStage(mlir::ModuleOp module) {
  bool floatContraction = false;
  mlir::WalkResult int8 = module.walk([&](mlir::Operation *op) {
    if (llvm::isa<qfx::ContractOp>(op))
      return mlir::WalkResult::interrupt();
    auto quantizable = llvm::dyn_cast<qfx::QuantizableOpInterface>(op);
    if (quantizable && quantizable.getWeightOperandIndex() &&
        llvm::isa<mlir::FloatType>(
            mlir::getElementTypeOrSelf(op->getResult(0).getType())))
      floatContraction = true;
    return mlir::WalkResult::advance();
  });
  return floatContraction && !int8.wasInterrupted();
}

/// finalize-memref-to-llvm's generic allocation functions, on the buffer
/// cache: malloc's alignment, and aligned_alloc's argument order.
static void *allocateDefault(uint64_t size) {
  return allocateBuffer(size, alignof(std::max_align_t));
}
static void *allocateAligned(uint64_t alignment, uint64_t size) {
  return allocateBuffer(size, alignment);
}

llvm::Expected<CompiledModel>
CompiledModel::compile(mlir::ModuleOp module, const CompileOptions &options) {
  llvm::Expected<LoweredModel> lowered =
      lowerToLLVMDialect(module, getJitOptions(options));
  if (!lowered)
    return lowered.takeError();
  CompiledModel model;
  model.entry = lowered->entry;
  model.inputs = lowered->inputs;
  model.results = lowered->results;
  module.walk([&](HostCallOp call) {
    model.hostCallees[call.getId()] = call.getCallee().str();
  });
  mlir::MLIRContext *context = module.getContext();
  DiagnosticCollector diagnostics(context);

  static const bool nativeTargetReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // Inline assembly (qfx-codegen's AMX permission request) is parsed.
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)nativeTargetReady;
  // The int8 programs are optimized for the host: without a target machine,
  // the loop vectorizer's cost model knows no vector registers and leaves
  // every LLVM-compiled loop scalar (elementwise ops, pooling, per-channel
  // chains, float islands). Float stages (a model being calibrated) are
  // not: vectorizing their loops doubled the compile time and did not make a
  // calibration sample faster (docs/performance.md, "Measured decisions").
  runtime::JitOptions jitOptions;
  jitOptions.entry = "_mlir_ciface_" + model.entry;
  jitOptions.hostCostModel = !isFloatStage(module);
  // A float stage's convolutions and matmuls are qfx-codegen's float kernels
  // where it had kernels for the target (the lowered module names it): -O1
  // then compiles faster than -O3 and runs a calibration sample as fast or
  // faster (docs/performance.md, "Measured decisions"). Else they are loops,
  // for -O3.
  auto target = (*lowered->module)
                    ->getAttrOfType<mlir::StringAttr>(
                        qfx::QFXDialect::getTargetAttrName());
  bool floatKernels = target && target.getValue() != "none";
  jitOptions.optLevel = jitOptions.hostCostModel ? 2 : floatKernels ? 1 : 3;
  jitOptions.llvmIRPath = options.llvmIRPath;
  jitOptions.copyConstants = !options.borrowConstants;
  // The code calls MLIR's C runner utilities (memref copies) and the OpenMP
  // runtime (the kernels' parallel loops). They are looked up in these
  // libraries, not in the process's global symbols: a host that loaded qfx
  // with RTLD_LOCAL (Python's ctypes) works too.
  jitOptions.libraries = {QFX_C_RUNNER_UTILS_LIBRARY, QFX_OPENMP_LIBRARY};
  jitOptions.symbols["_mlir_ciface_qfxObserve"] =
      reinterpret_cast<void *>(&_mlir_ciface_qfxObserve);
  jitOptions.symbols["_mlir_ciface_qfxHostCall"] =
      reinterpret_cast<void *>(&_mlir_ciface_qfxHostCall);
  // The program's buffers (finalize-memref-to-llvm's generic functions).
  jitOptions.symbols["_mlir_memref_to_llvm_alloc"] =
      reinterpret_cast<void *>(&allocateDefault);
  jitOptions.symbols["_mlir_memref_to_llvm_aligned_alloc"] =
      reinterpret_cast<void *>(&allocateAligned);
  jitOptions.symbols["_mlir_memref_to_llvm_free"] =
      reinterpret_cast<void *>(&releaseBuffer);
  llvm::Expected<runtime::Jit> jit =
      runtime::Jit::compile(*lowered->module, jitOptions);
  if (!jit)
    return makeError(llvm::toString(jit.takeError()) + "\n" +
                     diagnostics.take());
  model.jit = std::make_unique<runtime::Jit>(std::move(*jit));
  return model;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// A ranked memref descriptor over C-order data of `shape`: {allocated,
/// aligned, offset, sizes[rank], strides[rank]}, all 64-bit on the hosts qfx
/// targets.
static std::vector<int64_t> makeDescriptor(const void *data,
                                           llvm::ArrayRef<int64_t> shape) {
  size_t rank = shape.size();
  std::vector<int64_t> descriptor(3 + 2 * rank);
  auto address = reinterpret_cast<int64_t>(data);
  descriptor[0] = address;
  descriptor[1] = address;
  descriptor[2] = 0;
  int64_t stride = 1;
  for (size_t dim = rank; dim-- > 0;) {
    descriptor[3 + dim] = shape[dim];
    descriptor[3 + rank + dim] = stride;
    stride *= shape[dim];
  }
  return descriptor;
}

llvm::Error CompiledModel::run(llvm::ArrayRef<const void *> inputData,
                               llvm::ArrayRef<void *> resultData,
                               ObservationSink *sink) {
  if (inputData.size() != inputs.size() || resultData.size() != results.size())
    return makeError(llvm::formatv("@{0} takes {1} inputs and has {2} results; "
                                   "{3} inputs and {4} results given",
                                   entry, inputs.size(), results.size(),
                                   inputData.size(), resultData.size()));
  // The code reads the inputs where they are: lowerToLLVMDialect marks the
  // entry's arguments not writable, so bufferization never writes into them
  // (a copy per call cost a memcpy of the input on the calling thread and
  // slowed two-thread kernels).
  std::vector<std::vector<int64_t>> descriptors;
  for (auto [data, signature] : llvm::zip_equal(inputData, inputs))
    descriptors.push_back(makeDescriptor(data, signature.shape));
  for (auto [data, signature] : llvm::zip_equal(resultData, results))
    descriptors.push_back(makeDescriptor(data, signature.shape));
  // The C interface takes a pointer to each descriptor.
  llvm::SmallVector<void *> descriptorPointers;
  for (std::vector<int64_t> &descriptor : descriptors)
    descriptorPointers.push_back(descriptor.data());
  currentSink = sink;
  hostCalls.failed = -1;
  hostCalls.missing = false;
  jit->call(descriptorPointers.data());
  currentSink = nullptr;
  if (hostCalls.failed < 0)
    return llvm::Error::success();
  auto callee = hostCallees.find(hostCalls.failed);
  std::string call = llvm::formatv(
      "qfx.host_call \"{0}\" (id {1})",
      callee == hostCallees.end() ? "" : callee->second, hostCalls.failed);
  if (hostCalls.missing)
    return makeError("@" + entry + " reached " + call +
                     ", but no host callback is set on this thread: only a "
                     "host that runs it (Python's qfx) can run this model");
  return makeError(call + " failed in the host; @" + entry +
                   "'s results are not valid");
}

llvm::Expected<llvm::SmallVector<NpyArray>>
CompiledModel::run(llvm::ArrayRef<NpyArray> given, ObservationSink *sink) {
  llvm::SmallVector<NpyArray> outputs;
  for (const TensorSignature &result : results)
    outputs.emplace_back(result.dtype, result.shape);
  llvm::SmallVector<const void *> inputData;
  for (const NpyArray &array : given)
    inputData.push_back(array.data.data());
  llvm::SmallVector<void *> resultData;
  for (NpyArray &array : outputs)
    resultData.push_back(array.data.data());
  if (llvm::Error error = run(inputData, resultData, sink))
    return std::move(error);
  return outputs;
}
