//===- QFX.cpp - qfx's C API ----------------------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx-c/QFX.h"

#include "qfx/Config/BackendConfig.h"
#include "qfx/Config/ConfigJSON.h"
#include "qfx/InitQFX.h"
#include "qfx/Runtime/AheadOfTime.h"
#include "qfx/Runtime/BufferCache.h"
#include "qfx/Runtime/Calibration.h"
#include "qfx/Runtime/Compare.h"
#include "qfx/Runtime/CompiledModel.h"
#include "qfx/Transforms/MaterializeResources.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace {
struct Record {
  QfxSeverity severity;
  std::string location;
  std::string message;
  long parent;
};

QfxSeverity getSeverity(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return QfxSeverityError;
  case mlir::DiagnosticSeverity::Warning:
    return QfxSeverityWarning;
  case mlir::DiagnosticSeverity::Note:
    return QfxSeverityNote;
  case mlir::DiagnosticSeverity::Remark:
    return QfxSeverityRemark;
  }
  return QfxSeverityError;
}

std::string printLocation(mlir::Location location) {
  std::string text;
  llvm::raw_string_ostream os(text);
  location.print(os);
  llvm::StringRef inner(text);
  if (inner.consume_front("loc(") && inner.consume_back(")"))
    return inner.str();
  return text;
}

char *copyString(llvm::StringRef text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (!copy)
    return nullptr;
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}
} // namespace

struct QfxSessionImpl {
  QfxSessionImpl() {
    // Pass and pipeline registration is process-wide.
    static std::once_flag registered;
    std::call_once(registered, [] { qfx::registerQFXPasses(); });
    qfx::registerQFXDialects(registry);
    newContext();
  }
  ~QfxSessionImpl() { context->getDiagEngine().eraseHandler(handler); }

  /// Replaces the context by a new one on the session's threads. An MLIR
  /// context keeps every attribute it has made (a model's weights, in
  /// each form a pipeline gives them) until it is destroyed: each call
  /// parses into a new one, so that a session holds one call's IR at a
  /// time.
  void newContext() {
    printed.reset();
    context.reset();
    context = makeContext();
    handler = context->getDiagEngine().registerHandler(
        [this](mlir::Diagnostic &diagnostic) {
          record(diagnostic, -1);
          return mlir::success();
        });
  }

  /// A context with qfx's dialects on the session's threads.
  std::unique_ptr<mlir::MLIRContext> makeContext() {
    auto made = std::make_unique<mlir::MLIRContext>(
        registry, mlir::MLIRContext::Threading::DISABLED);
    made->setThreadPool(threads);
    return made;
  }

  /// Gives the caller the context, without the session's diagnostic
  /// handler; the session goes on in a new one.
  std::unique_ptr<mlir::MLIRContext> releaseContext() {
    printed.reset();
    context->getDiagEngine().eraseHandler(handler);
    std::unique_ptr<mlir::MLIRContext> released = std::move(context);
    newContext();
    return released;
  }

  /// Gives the memory earlier calls freed back to the system. glibc keeps
  /// freed blocks in its heaps, where the large blocks a call maps (a
  /// stage's bytecode, a model's weights) cannot reuse them.
  static void releaseFreedMemory() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
  }

  /// Starts a call: forgets the previous call's diagnostics; the resources
  /// given since the previous call are this call's.
  void begin() {
    records.clear();
    parsedThisCall = false;
    callResources = std::move(resources);
    resources.clear();
    callSourceFile = std::exchange(sourceFile, {});
    callOutputFile = std::exchange(outputFile, {});
  }

  void record(mlir::Diagnostic &diagnostic, long parent) {
    records.push_back({getSeverity(diagnostic.getSeverity()),
                       printLocation(diagnostic.getLocation()),
                       diagnostic.str(), parent});
    long index = static_cast<long>(records.size()) - 1;
    for (mlir::Diagnostic &note : diagnostic.getNotes())
      record(note, index);
  }

  void error(const llvm::Twine &message) {
    records.push_back({QfxSeverityError, "unknown", message.str(), -1});
  }

  /// Records `error`'s message, prefixed with `sourceName`; returns 1.
  int fail(const char *sourceName, llvm::Error error) {
    std::string message = llvm::toString(std::move(error));
    this->error(sourceName ? llvm::Twine(sourceName) + ": " + message
                           : llvm::Twine(message));
    return 1;
  }

  /// Parses MLIR source text; errors are recorded. A call's first parse
  /// is into a new context (newContext). The text this session printed last
  /// (with locations) is not parsed again: its module moves to the new
  /// context as bytecode, which is far cheaper than parsing text (see
  /// `printed`).
  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef function,
                                          const char *source, size_t length,
                                          const char *sourceName) {
    // A NULL source is read from the file offered (qfxSessionSetSourceFile).
    std::string path;
    std::optional<FileIdentity> identity;
    if (!source) {
      if (callSourceFile.empty()) {
        error(function + ": the source must not be NULL");
        return nullptr;
      }
      path = std::exchange(callSourceFile, {});
      identity = getFileIdentity(path);
      if (!identity) {
        error(function + ": cannot read '" + path + "'");
        return nullptr;
      }
      if (!sourceName)
        sourceName = path.c_str();
    }
    llvm::StringRef text(source, source ? length : 0);
    if (!parsedThisCall) {
      parsedThisCall = true;
      releaseFreedMemory();
      std::string bytecode;
      bool reuse =
          printed && (identity ? printed->file == identity
                               : !printed->file && printed->length == length &&
                                     printed->hash == llvm::xxh3_64bits(text));
      if (reuse) {
        llvm::raw_string_ostream os(bytecode);
        reuse =
            mlir::succeeded(mlir::writeBytecodeToFile(*printed->module, os));
      }
      newContext();
      if (reuse)
        return mlir::parseSourceString<mlir::ModuleOp>(
            bytecode, mlir::ParserConfig(context.get()),
            sourceName ? sourceName : "<source>");
    }
    // The parser gives a key this context has seen before (an earlier source
    // of this call) another name, and the given bytes would not find it.
    mlir::DialectResourceBlobManager &blobs =
        mlir::DenseResourceElementsHandle::getManagerInterface(context.get())
            .getBlobManager();
    for (const auto &[key, bytes] : callResources)
      if (blobs.lookup(key)) {
        error(llvm::Twine(function) + ": resource key '" + key +
              "' was parsed before in this call; keys given by reference "
              "must be new to the call");
        return nullptr;
      }
    std::unique_ptr<llvm::MemoryBuffer> file;
    if (identity) {
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> read =
          llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
      if (!read) {
        error(function + ": cannot read '" + path +
              "': " + read.getError().message());
        return nullptr;
      }
      file = std::move(*read);
      text = file->getBuffer();
    }
    ++parsedSources;
    mlir::ParserConfig config(context.get());
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(
            text, config, sourceName ? sourceName : "<source>");
    auto lookup =
        [&](llvm::StringRef key) -> std::optional<llvm::ArrayRef<char>> {
      auto found = callResources.find(key);
      if (found == callResources.end())
        return std::nullopt;
      return found->second;
    };
    if (module && mlir::failed(qfx::materializeResources(*module, lookup)))
      return nullptr;
    return module;
  }

  /// Prints `module` as quant-opt does into a new string `*output`, or into
  /// the file offered (qfxSessionSetOutputFile), `*output` then NULL.
  int print(mlir::ModuleOp module, int printDebugInfo, char **output,
            size_t *outputLength) {
    auto write = [&](llvm::raw_ostream &os) {
      module.print(os, mlir::OpPrintingFlags().enableDebugInfo(
                           printDebugInfo != 0, /*prettyForm=*/false));
      // As mlir-opt prints it.
      os << '\n';
    };
    printed.reset();
    // With every location printed, parsing the text gives this module.
    auto keep = [&]() -> mlir::OwningOpRef<mlir::ModuleOp> {
      return printDebugInfo ? module.clone() : nullptr;
    };
    if (!callOutputFile.empty()) {
      std::string path = std::exchange(callOutputFile, {});
      uint64_t size = 0;
      // Written under a temporary name and renamed: a stage file is whole
      // or absent.
      if (llvm::Error error =
              llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
                write(os);
                size = os.tell();
                return llvm::Error::success();
              }))
        return fail(nullptr, std::move(error));
      std::optional<FileIdentity> identity = getFileIdentity(path);
      if (identity && printDebugInfo)
        printed = Printed{0, 0, identity, keep()};
      if (outputLength)
        *outputLength = size;
      return 0;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    write(os);
    if (printDebugInfo)
      printed =
          Printed{text.size(), llvm::xxh3_64bits(text), std::nullopt, keep()};
    return give(text, output, outputLength);
  }

  /// Copies `text` into a new string `*output`.
  int give(llvm::StringRef text, char **output, size_t *outputLength) {
    *output = copyString(text);
    if (!*output) {
      error("out of memory");
      return 1;
    }
    if (outputLength)
      *outputLength = text.size();
    return 0;
  }

  mlir::DialectRegistry registry;
  /// Declared before the contexts that use it.
  llvm::DefaultThreadPool threads;
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::DiagnosticEngine::HandlerID handler;
  /// Whether the call under way has parsed a source (into a new context).
  bool parsedThisCall = false;
  /// The module the session printed last with locations, and the text's
  /// length and hash. A pipeline of stages (prepare, calibrate, convert,
  /// lower, compile) passes each stage's text to the next call: moving the
  /// module printed last to the call's context is far cheaper than parsing
  /// its text again (docs/performance.md, "Measured decisions").
  /// A file as it was when the session wrote it (hard links included).
  struct FileIdentity {
    llvm::sys::fs::UniqueID id;
    uint64_t size;
    llvm::sys::TimePoint<> modified;
    bool operator==(const FileIdentity &other) const {
      return id == other.id && size == other.size && modified == other.modified;
    }
  };
  static std::optional<FileIdentity> getFileIdentity(llvm::StringRef path) {
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(path, status) ||
        !llvm::sys::fs::is_regular_file(status))
      return std::nullopt;
    return FileIdentity{status.getUniqueID(), status.getSize(),
                        status.getLastModificationTime()};
  }
  /// The text's length and hash, or the file it was written to.
  struct Printed {
    size_t length;
    uint64_t hash;
    std::optional<FileIdentity> file;
    mlir::OwningOpRef<mlir::ModuleOp> module;
  };
  std::optional<Printed> printed;
  /// The bytes of `dense_resource` keys given for the next call
  /// (qfxSessionAddResource), and those of the call under way; the caller
  /// owns them and keeps them until that call returns.
  using Resources = std::map<std::string, llvm::ArrayRef<char>, std::less<>>;
  Resources resources, callResources;
  /// The files offered for the next call's source and output, and those of
  /// the call under way (empty: none).
  std::string sourceFile, outputFile, callSourceFile, callOutputFile;
  size_t parsedSources = 0;
  // Stable addresses: QfxDiagnostic points into the records.
  std::deque<Record> records;
  // The last qfxModelRun's recorded values or layer times.
  std::vector<qfx::RecordedValue> recorded;
  std::vector<qfx::LayerTime> layerTimes;
};

/// A calibrating model with the context and module it observes into; a
/// model sharing another's observers keeps that one too (its module holds
/// the observers' ops).
struct Calibrating : std::enable_shared_from_this<Calibrating> {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::optional<qfx::CalibratingModel> model;
  std::shared_ptr<Calibrating> base;
  /// The module the statistics are written into.
  Calibrating &root() { return base ? *base : *this; }
};

struct QfxModelImpl {
  explicit QfxModelImpl(qfx::CompiledModel model)
      : plain(std::move(model)), model(*plain),
        entry(this->model.getEntry().str()) {}
  explicit QfxModelImpl(std::shared_ptr<Calibrating> calibrating)
      : calibrating(std::move(calibrating)),
        model(this->calibrating->model->getModel()),
        entry(this->model.getEntry().str()) {}
  explicit QfxModelImpl(qfx::RecordingModel model)
      : recording(std::move(model)), model(recording->getModel()),
        entry(this->model.getEntry().str()) {}
  explicit QfxModelImpl(qfx::ProfilingModel model)
      : profiling(std::move(model)), model(profiling->getModel()),
        entry(this->model.getEntry().str()) {}
  std::optional<qfx::CompiledModel> plain;
  std::optional<qfx::RecordingModel> recording;
  std::optional<qfx::ProfilingModel> profiling;
  std::shared_ptr<Calibrating> calibrating;
  const qfx::CompiledModel &model;
  std::string entry;
};

static int getSignature(llvm::ArrayRef<qfx::TensorSignature> signatures,
                        size_t index, QfxTensor *tensor) {
  if (!tensor || index >= signatures.size())
    return 1;
  const qfx::TensorSignature &signature = signatures[index];
  tensor->dtype = static_cast<QfxDType>(signature.dtype);
  tensor->rank = signature.shape.size();
  tensor->shape = signature.shape.data();
  tensor->data = nullptr;
  return 0;
}

/// Checks `given` against the signature of the model's arguments or
/// results (`what`); collects their data.
template <typename Pointer>
static llvm::Error checkTensors(const QfxModelImpl &model, llvm::StringRef what,
                                llvm::ArrayRef<qfx::TensorSignature> expected,
                                const QfxTensor *given, size_t count,
                                llvm::SmallVectorImpl<Pointer> &data) {
  if (count != expected.size() || (!given && count != 0))
    return llvm::createStringError(llvm::formatv("@{0} has {1} {2}, {3} given",
                                                 model.entry, expected.size(),
                                                 what, count));
  for (size_t i = 0; i < count; ++i) {
    const QfxTensor &tensor = given[i];
    const qfx::TensorSignature &signature = expected[i];
    bool sameShape =
        tensor.rank == signature.shape.size() &&
        (tensor.rank == 0 ||
         (tensor.shape && std::equal(signature.shape.begin(),
                                     signature.shape.end(), tensor.shape)));
    if (static_cast<int>(tensor.dtype) != static_cast<int>(signature.dtype) ||
        !sameShape || !tensor.data) {
      std::string shape;
      for (size_t d = 0; tensor.shape && d < tensor.rank; ++d)
        shape += (d ? ", " : "") + std::to_string(tensor.shape[d]);
      llvm::StringRef dtype =
          static_cast<unsigned>(tensor.dtype) <= QfxDTypeInt64
              ? qfx::getNpyDTypeName(static_cast<qfx::NpyDType>(tensor.dtype))
              : "an unknown dtype";
      return llvm::createStringError(
          llvm::formatv("{0} {1} of @{2}: expected {3}, got {4}[{5}]{6}",
                        what.drop_back(), i, model.entry, signature.describe(),
                        dtype, shape, tensor.data ? "" : " without data"));
    }
    data.push_back(static_cast<Pointer>(tensor.data));
  }
  return llvm::Error::success();
}

/// qfxModelCompile, qfxModelCompileRecording and qfxModelCompileProfiling:
/// `Model` is qfx::CompiledModel, qfx::RecordingModel or
/// qfx::ProfilingModel.
template <typename Model>
static int compileModel(QfxSession session, llvm::StringRef function,
                        const char *source, size_t length,
                        const char *sourceName, const char *entry,
                        const char *target, QfxModel *model) {
  if (!session || !model)
    return 1;
  *model = nullptr;
  session->begin();
  qfx::CompileOptions options;
  options.entry = entry ? entry : "";
  if (target && *target) {
    const qfx::NativeTargetInfo *info = qfx::lookupNativeTarget(target);
    if (!info || !qfx::isJitTarget(*info)) {
      session->error(llvm::Twine("target '") + target + "': expected " +
                     qfx::listNativeTargets(qfx::isJitTarget));
      return 1;
    }
    options.codegenTarget = info->target;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module =
      session->parse(function, source, length, sourceName);
  if (!module)
    return 1;
  llvm::Expected<Model> compiled = Model::compile(*module, options);
  if (!compiled)
    return session->fail(sourceName, compiled.takeError());
  *model = new (std::nothrow) QfxModelImpl(std::move(*compiled));
  if (!*model) {
    session->error("out of memory");
    return 1;
  }
  return 0;
}

extern "C" {

int qfxGetCAPIVersion(void) { return QFX_CAPI_VERSION; }

size_t qfxGetNumParsedSources(QfxSession session) {
  return session ? session->parsedSources : 0;
}

int qfxSessionAddResource(QfxSession session, const char *key, const void *data,
                          size_t size) {
  if (!session)
    return 1;
  if (!key || (!data && size)) {
    session->records.clear();
    session->error("qfxSessionAddResource: the key and data must not be NULL");
    return 1;
  }
  session->resources[key] =
      llvm::ArrayRef<char>(static_cast<const char *>(data), size);
  return 0;
}

/// Offers `path` as one of the next call's files (`slot` of the session).
static int offerFile(QfxSession session, const char *function, const char *path,
                     std::string QfxSessionImpl::*slot) {
  if (!session)
    return 1;
  if (!path || !*path) {
    session->records.clear();
    session->error(llvm::Twine(function) + ": the path must not be empty");
    return 1;
  }
  session->*slot = path;
  return 0;
}

int qfxSessionSetSourceFile(QfxSession session, const char *path) {
  return offerFile(session, "qfxSessionSetSourceFile", path,
                   &QfxSessionImpl::sourceFile);
}

int qfxSessionSetOutputFile(QfxSession session, const char *path) {
  return offerFile(session, "qfxSessionSetOutputFile", path,
                   &QfxSessionImpl::outputFile);
}

QfxSession qfxSessionCreate(void) { return new (std::nothrow) QfxSessionImpl; }

void qfxSessionDestroy(QfxSession session) { delete session; }

int qfxRunPipeline(QfxSession session, const char *source, size_t length,
                   const char *sourceName, const char *pipeline,
                   int printDebugInfo, char **output, size_t *outputLength) {
  if (!session || !output)
    return 1;
  *output = nullptr;
  session->begin();
  if (!pipeline) {
    session->error("qfxRunPipeline: the pipeline must not be NULL");
    return 1;
  }
  std::string pipelineErrors;
  llvm::raw_string_ostream pipelineStream(pipelineErrors);
  mlir::FailureOr<mlir::OpPassManager> parsed =
      mlir::parsePassPipeline(pipeline, pipelineStream);
  if (mlir::failed(parsed)) {
    session->error("invalid pass pipeline '" + std::string(pipeline) +
                   "': " + pipelineErrors);
    return 1;
  }
  if (parsed->getOpAnchorName() != mlir::ModuleOp::getOperationName() &&
      parsed->getOpAnchorName() != mlir::OpPassManager::getAnyOpAnchorName()) {
    session->error("the pass pipeline must be anchored on builtin.module, "
                   "not " +
                   parsed->getOpAnchorName().str());
    return 1;
  }

  mlir::OwningOpRef<mlir::ModuleOp> module =
      session->parse("qfxRunPipeline", source, length, sourceName);
  if (!module)
    return 1;
  mlir::PassManager pm(module->getContext(), parsed->getOpAnchorName());
  static_cast<mlir::OpPassManager &>(pm) = std::move(*parsed);
  if (mlir::failed(pm.run(*module)))
    return 1;
  return session->print(*module, printDebugInfo, output, outputLength);
}

size_t qfxGetNumDiagnostics(QfxSession session) {
  return session ? session->records.size() : 0;
}

int qfxGetDiagnostic(QfxSession session, size_t index,
                     QfxDiagnostic *diagnostic) {
  if (!session || !diagnostic || index >= session->records.size())
    return 1;
  const Record &record = session->records[index];
  diagnostic->severity = record.severity;
  diagnostic->location = record.location.c_str();
  diagnostic->message = record.message.c_str();
  diagnostic->parent = record.parent;
  return 0;
}

void qfxFreeString(char *string) { std::free(string); }

int qfxGetBuiltinConfig(QfxSession session, const char *kind, const char *name,
                        char **output, size_t *outputLength) {
  if (!session || !output)
    return 1;
  *output = nullptr;
  session->begin();
  llvm::StringRef kindName = kind ? kind : "";
  llvm::json::Value value = nullptr;
  if (kindName == "backend_config") {
    std::optional<qfx::BackendConfig> table =
        qfx::getBackendConfig(name ? name : "");
    if (!table) {
      session->error(llvm::Twine("no built-in backend config '") +
                     (name ? name : "") +
                     "': expected x86, fbgemm, qnnpack, onednn or tosa");
      return 1;
    }
    value = qfx::backendConfigToJSON(*table);
  } else if (kindName == "torch_to_tosa") {
    value = qfx::torchToTOSAPatternsToJSON();
  } else {
    session->error("qfxGetBuiltinConfig: unknown kind '" + kindName +
                   "': expected backend_config or torch_to_tosa");
    return 1;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return session->give(text, output, outputLength);
}

int qfxCalibrate(QfxSession session, const char *source, size_t length,
                 const char *sourceName, const char *entry,
                 const char *const *samplePaths, size_t numSamplePaths,
                 QfxProgressCallback progress, void *userData,
                 int printDebugInfo, char **output, size_t *outputLength) {
  if (!session || !output)
    return 1;
  *output = nullptr;
  session->begin();
  if (!samplePaths && numSamplePaths != 0) {
    session->error("qfxCalibrate: the sample paths must not be NULL");
    return 1;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module =
      session->parse("qfxCalibrate", source, length, sourceName);
  if (!module)
    return 1;
  qfx::CalibrationOptions options;
  options.entry = entry ? entry : "";
  if (progress)
    options.progress = [progress, userData](int64_t done, int64_t total) {
      progress(userData, done, total);
    };
  std::vector<std::string> paths(samplePaths, samplePaths + numSamplePaths);
  if (llvm::Error error = qfx::calibrate(*module, paths, options))
    return session->fail(sourceName, std::move(error));
  return session->print(*module, printDebugInfo, output, outputLength);
}

int qfxModelCompile(QfxSession session, const char *source, size_t length,
                    const char *sourceName, const char *entry,
                    const char *target, QfxModel *model) {
  return compileModel<qfx::CompiledModel>(session, "qfxModelCompile", source,
                                          length, sourceName, entry, target,
                                          model);
}

int qfxModelCompileProfiling(QfxSession session, const char *source,
                             size_t length, const char *sourceName,
                             const char *entry, const char *target,
                             QfxModel *model) {
  return compileModel<qfx::ProfilingModel>(session, "qfxModelCompileProfiling",
                                           source, length, sourceName, entry,
                                           target, model);
}

int qfxModelCompileRecording(QfxSession session, const char *source,
                             size_t length, const char *sourceName,
                             const char *entry, const char *target,
                             QfxModel *model) {
  return compileModel<qfx::RecordingModel>(session, "qfxModelCompileRecording",
                                           source, length, sourceName, entry,
                                           target, model);
}

/// qfxModelCompileCalibrating and qfxModelCompileCalibratingWith (`base`
/// non-null).
static int compileCalibrating(QfxSession session, llvm::StringRef function,
                              QfxModel base, const char *source, size_t length,
                              const char *sourceName, const char *entry,
                              QfxModel *model) {
  if (!session || !model)
    return 1;
  *model = nullptr;
  session->begin();
  if (base && !base->calibrating) {
    session->error(function + ": the base model must be a calibrating model");
    return 1;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module =
      session->parse(function, source, length, sourceName);
  if (!module)
    return 1;
  // The session replaces its context at its next call; the model observes
  // into the module in this one, which it takes (the call's first parse
  // made it: it holds nothing else).
  auto calibrating = std::make_shared<Calibrating>();
  calibrating->context = session->releaseContext();
  calibrating->module = std::move(module);
  qfx::CalibrationOptions options;
  options.entry = entry ? entry : "";
  auto compiled =
      base ? base->calibrating->model->compileSharing(*calibrating->module,
                                                      options)
           : qfx::CalibratingModel::compile(*calibrating->module, options);
  if (!compiled)
    return session->fail(sourceName, compiled.takeError());
  calibrating->model.emplace(std::move(*compiled));
  calibrating->base =
      base ? base->calibrating->root().shared_from_this() : nullptr;
  // Compiled: nothing uses the session's threads any more, and the model
  // may outlive the session.
  calibrating->context->disableMultithreading();
  *model = new (std::nothrow) QfxModelImpl(std::move(calibrating));
  if (!*model) {
    session->error("out of memory");
    return 1;
  }
  return 0;
}

int qfxModelCompileCalibrating(QfxSession session, const char *source,
                               size_t length, const char *sourceName,
                               const char *entry, QfxModel *model) {
  return compileCalibrating(session, "qfxModelCompileCalibrating", nullptr,
                            source, length, sourceName, entry, model);
}

int qfxModelCompileCalibratingWith(QfxSession session, QfxModel base,
                                   const char *source, size_t length,
                                   const char *sourceName, const char *entry,
                                   QfxModel *model) {
  if (!base) {
    if (session) {
      session->begin();
      session->error("qfxModelCompileCalibratingWith: the base model must "
                     "not be NULL");
    }
    return 1;
  }
  return compileCalibrating(session, "qfxModelCompileCalibratingWith", base,
                            source, length, sourceName, entry, model);
}

int qfxModelWriteStatistics(QfxSession session, QfxModel model,
                            int printDebugInfo, char **output,
                            size_t *outputLength) {
  if (!session || !output)
    return 1;
  *output = nullptr;
  session->begin();
  if (!model || !model->calibrating) {
    session->error("qfxModelWriteStatistics: the model must be a calibrating "
                   "model (qfxModelCompileCalibrating)");
    return 1;
  }
  Calibrating &root = model->calibrating->root();
  root.model->writeStatistics();
  int status =
      session->print(*root.module, printDebugInfo, output, outputLength);
  // The module lives in the model's context, not the session's: a later
  // call parses the text again instead of moving this module.
  session->printed.reset();
  return status;
}

int64_t qfxModelGetNumRuns(QfxModel model) {
  return model && model->calibrating ? model->calibrating->model->getNumRuns()
                                     : 0;
}

size_t qfxModelGetNumObservers(QfxModel model) {
  return model && model->calibrating
             ? model->calibrating->model->getNumObserveOps()
             : 0;
}

void qfxModelDestroy(QfxModel model) { delete model; }

const char *qfxModelGetEntry(QfxModel model) {
  return model ? model->entry.c_str() : nullptr;
}

size_t qfxModelGetNumInputs(QfxModel model) {
  return model ? model->model.getInputs().size() : 0;
}

size_t qfxModelGetNumResults(QfxModel model) {
  return model ? model->model.getResults().size() : 0;
}

int qfxModelGetInput(QfxModel model, size_t index, QfxTensor *signature) {
  return model ? getSignature(model->model.getInputs(), index, signature) : 1;
}

int qfxModelGetResult(QfxModel model, size_t index, QfxTensor *signature) {
  return model ? getSignature(model->model.getResults(), index, signature) : 1;
}

void qfxGetBufferStats(size_t *live, size_t *peak, size_t *cached) {
  qfx::BufferStats stats = qfx::getBufferStats();
  if (live)
    *live = stats.liveBytes;
  if (peak)
    *peak = stats.peakBytes;
  if (cached)
    *cached = stats.cachedBytes;
}

void qfxResetBufferPeak(void) { qfx::resetBufferPeak(); }

void qfxSetHostCallback(QfxHostCallback callback, void *userData) {
  qfx::setHostCallback(callback, userData);
}

int qfxModelRun(QfxSession session, QfxModel model, const QfxTensor *inputs,
                size_t numInputs, const QfxTensor *results, size_t numResults) {
  if (!session)
    return 1;
  session->begin();
  if (!model) {
    session->error("qfxModelRun: the model must not be NULL");
    return 1;
  }
  llvm::SmallVector<const void *> inputData;
  llvm::SmallVector<void *> resultData;
  if (llvm::Error error =
          checkTensors(*model, "inputs", model->model.getInputs(), inputs,
                       numInputs, inputData))
    return session->fail(nullptr, std::move(error));
  if (llvm::Error error =
          checkTensors(*model, "results", model->model.getResults(), results,
                       numResults, resultData))
    return session->fail(nullptr, std::move(error));
  session->recorded.clear();
  session->layerTimes.clear();
  if (model->profiling) {
    auto times = model->profiling->run(inputData, resultData);
    if (!times)
      return session->fail(nullptr, times.takeError());
    session->layerTimes = std::move(*times);
    return 0;
  }
  if (model->calibrating) {
    std::string name = llvm::formatv("calibration run {0}",
                                     model->calibrating->model->getNumRuns());
    if (llvm::Error error =
            model->calibrating->model->run(inputData, resultData, name))
      return session->fail(nullptr, std::move(error));
    return 0;
  }
  if (model->recording) {
    auto recorded = model->recording->run(inputData, resultData);
    if (!recorded)
      return session->fail(nullptr, recorded.takeError());
    session->recorded = std::move(*recorded);
    return 0;
  }
  if (llvm::Error error = model->plain->run(inputData, resultData))
    return session->fail(nullptr, std::move(error));
  return 0;
}

int qfxExtractWeights(QfxSession session, const char *source, size_t length,
                      const char *sourceName, const char *entry) {
  if (!session)
    return 1;
  session->begin();
  session->recorded.clear();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      session->parse("qfxExtractWeights", source, length, sourceName);
  if (!module)
    return 1;
  auto weights = qfx::extractWeights(*module, entry ? entry : "");
  if (!weights)
    return session->fail(sourceName, weights.takeError());
  session->recorded = std::move(*weights);
  return 0;
}

int qfxBuildShadowStage(QfxSession session, const char *floatSource,
                        size_t floatLength, const char *int8Source,
                        size_t int8Length, const char *entry, char **output,
                        size_t *outputLength) {
  if (!session || !output)
    return 1;
  *output = nullptr;
  session->begin();
  // The int8 stage first: it is the one a pipeline printed last, which only
  // a call's first parse reuses.
  mlir::OwningOpRef<mlir::ModuleOp> int8Stage = session->parse(
      "qfxBuildShadowStage", int8Source, int8Length, "the int8 stage");
  if (!int8Stage)
    return 1;
  mlir::OwningOpRef<mlir::ModuleOp> floatStage = session->parse(
      "qfxBuildShadowStage", floatSource, floatLength, "the float stage");
  if (!floatStage)
    return 1;
  auto shadow =
      qfx::buildShadowStage(*floatStage, *int8Stage, entry ? entry : "");
  if (!shadow)
    return session->fail(nullptr, shadow.takeError());
  return session->print(**shadow, /*printDebugInfo=*/1, output, outputLength);
}

size_t qfxGetNumLayerTimes(QfxSession session) {
  return session ? session->layerTimes.size() : 0;
}

int qfxGetLayerTime(QfxSession session, size_t index, QfxLayerTime *time) {
  if (!session || !time || index >= session->layerTimes.size())
    return 1;
  const qfx::LayerTime &layer = session->layerTimes[index];
  time->name = layer.name.c_str();
  time->opName = layer.opName.c_str();
  time->seconds = layer.seconds;
  return 0;
}

size_t qfxGetNumRecordedValues(QfxSession session) {
  return session ? session->recorded.size() : 0;
}

int qfxGetRecordedValue(QfxSession session, size_t index,
                        QfxRecordedValue *value) {
  if (!session || !value || index >= session->recorded.size())
    return 1;
  qfx::RecordedValue &recorded = session->recorded[index];
  value->name = recorded.name.c_str();
  value->opName = recorded.opName.c_str();
  value->value.dtype = QfxDTypeFloat32;
  value->value.rank = recorded.shape.size();
  value->value.shape = recorded.shape.data();
  value->value.data = recorded.data.data();
  value->quantized = recorded.qparams.has_value();
  value->scale = recorded.qparams ? recorded.qparams->first : 0.0;
  value->zeroPoint = recorded.qparams ? recorded.qparams->second : 0;
  return 0;
}

int qfxCompileToFile(QfxSession session, const char *source, size_t length,
                     const char *sourceName, const char *entry,
                     const char *target, const char *exportName,
                     const char *outputPath, const char *headerPath) {
  if (!session)
    return 1;
  session->begin();
  if (!outputPath) {
    session->error("qfxCompileToFile: the output path must not be NULL");
    return 1;
  }
  llvm::Expected<qfx::AotTarget> aotTarget =
      qfx::lookupAotTarget(target && *target ? target : "host");
  if (!aotTarget)
    return session->fail(nullptr, aotTarget.takeError());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      session->parse("qfxCompileToFile", source, length, sourceName);
  if (!module)
    return 1;
  qfx::AotOptions options;
  options.entry = entry ? entry : "";
  options.exportName = exportName ? exportName : "";
  options.outputPath = outputPath;
  options.headerPath = headerPath ? headerPath : "";
  options.sourceName = sourceName ? sourceName : "<source>";
  if (llvm::Error error = qfx::compileAheadOfTime(*module, *aotTarget, options))
    return session->fail(sourceName, std::move(error));
  return 0;
}

} // extern "C"
