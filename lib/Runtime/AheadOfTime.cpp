//===- AheadOfTime.cpp - Compile a model to an object file ----------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/AheadOfTime.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "Jit.h"
#include "Support.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace qfx;
using runtime::makeError;

bool qfx::isAotTarget(const NativeTargetInfo &target) {
  return target.target != NativeTarget::None;
}

llvm::Expected<AotTarget> qfx::lookupAotTarget(llvm::StringRef name) {
  const NativeTargetInfo *info = lookupNativeTarget(name);
  if (!info || !isAotTarget(*info))
    return makeError("unknown target '" + name + "', expected one of " +
                     listNativeTargets(isAotTarget));
  AotTarget target{info->target, info->name,     info->triple,
                   info->cpu,    info->features, info->description};
  if (info->target == NativeTarget::Host) {
    static const std::string hostTriple = llvm::sys::getProcessTriple();
    static const std::string hostCpu = llvm::sys::getHostCPUName().str();
    target.triple = hostTriple;
    target.cpu = hostCpu;
  }
  return target;
}

llvm::Expected<std::string> qfx::emitObject(mlir::ModuleOp module,
                                            const AotTarget &target,
                                            llvm::StringRef exported,
                                            bool sanitizeThreads) {
  static const bool targetsReady = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    // Inline assembly (qfx-codegen's AMX permission request) is parsed.
    llvm::InitializeAllAsmParsers();
    return true;
  }();
  (void)targetsReady;
  mlir::MLIRContext &mlirContext = *module.getContext();
  mlir::registerBuiltinDialectTranslation(mlirContext);
  mlir::registerLLVMDialectTranslation(mlirContext);
  mlir::registerOpenMPDialectTranslation(mlirContext);

  std::string error;
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return makeError("target " + target.name + " (" + target.triple +
                     "): " + error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return makeError("cannot create a target machine for " + target.name);

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "qfx-model");
  if (!llvmModule)
    return makeError("cannot translate the model to LLVM IR");
  // Only the entry point is exported: the model's own functions (a func
  // named "main", say) must not clash with the program's.
  if (!llvmModule->getFunction(exported))
    return makeError("internal error: the model defines no " + exported);
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration() && function.getName() != exported)
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  auto optimize =
      mlir::makeOptimizingTransformer(/*optLevel=*/3,
                                      /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return makeError("cannot optimize the model: " +
                     llvm::toString(std::move(err)));
  if (sanitizeThreads)
    runtime::instrumentForThreadSanitizer(*llvmModule, *machine);

  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return makeError("target " + target.name + " cannot emit object files");
  passes.run(*llvmModule);
  return std::string(object.begin(), object.end());
}

static llvm::StringRef getCType(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::Float32:
    return "float";
  case NpyDType::Float16:
    return "uint16_t"; // IEEE half bits
  case NpyDType::Int8:
    return "int8_t";
  case NpyDType::UInt8:
    return "uint8_t";
  case NpyDType::Int32:
    return "int32_t";
  case NpyDType::Int64:
    return "int64_t";
  }
  return "void";
}

std::string qfx::generateHeader(llvm::StringRef function,
                                llvm::ArrayRef<TensorSignature> inputs,
                                llvm::ArrayRef<TensorSignature> results,
                                llvm::StringRef source,
                                const AotTarget &target) {
  std::string guard = "QFX_MODEL_" + function.upper() + "_H";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Generated by quant-compile from " << source << " for target "
     << target.name << ". Do not edit. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  // One descriptor type per rank: {allocated, aligned, offset, sizes,
  // strides}, MLIR's C interface for memrefs. Ranks 0 to 8 in every header,
  // so that headers of several models can be included together.
  size_t maxRank = 8;
  for (const TensorSignature &s : inputs)
    maxRank = std::max(maxRank, s.shape.size());
  for (const TensorSignature &s : results)
    maxRank = std::max(maxRank, s.shape.size());
  os << "#ifndef QFX_MEMREF_TYPES\n#define QFX_MEMREF_TYPES\n";
  for (size_t rank = 0; rank <= maxRank; ++rank) {
    os << "typedef struct {\n  void *allocated;\n  void *aligned;\n"
          "  int64_t offset;\n";
    if (rank)
      os << "  int64_t sizes[" << rank << "];\n  int64_t strides[" << rank
         << "];\n";
    os << "} qfx_memref_" << rank << "d;\n";
  }
  os << "#endif\n\n";

  auto name = [&](size_t index, bool isInput) {
    return (isInput ? "in" : "out") + std::to_string(index);
  };
  os << "/* The C interface of @" << function
     << ": one descriptor per input, "
        "then one per output. */\nvoid _mlir_ciface_"
     << function << "(";
  llvm::SmallVector<std::string> params;
  for (auto [i, s] : llvm::enumerate(inputs))
    params.push_back("qfx_memref_" + std::to_string(s.shape.size()) + "d *" +
                     name(i, true));
  for (auto [i, s] : llvm::enumerate(results))
    params.push_back("qfx_memref_" + std::to_string(s.shape.size()) + "d *" +
                     name(i, false));
  os << llvm::join(params, ", ") << ");\n\n";

  os << "/* Runs @" << function << " on C-order arrays:\n";
  for (auto [i, s] : llvm::enumerate(inputs))
    os << " *   " << name(i, true) << ": " << s.describe() << "\n";
  for (auto [i, s] : llvm::enumerate(results))
    os << " *   " << name(i, false) << ": " << s.describe() << " (written)\n";
  os << " */\nstatic inline void qfx_" << function << "(";
  params.clear();
  for (auto [i, s] : llvm::enumerate(inputs))
    params.push_back("const " + getCType(s.dtype).str() + " *" + name(i, true));
  for (auto [i, s] : llvm::enumerate(results))
    params.push_back(getCType(s.dtype).str() + " *" + name(i, false));
  os << llvm::join(params, ", ") << ") {\n";
  auto descriptor = [&](const TensorSignature &s, const std::string &array) {
    size_t rank = s.shape.size();
    std::string d = "qfx_memref_" + std::to_string(rank) + "d d_" + array +
                    " = {(void *)" + array + ", (void *)" + array + ", 0";
    if (rank) {
      llvm::SmallVector<int64_t> strides(rank, 1);
      for (size_t k = rank - 1; k-- > 0;)
        strides[k] = strides[k + 1] * s.shape[k + 1];
      auto list = [](llvm::ArrayRef<int64_t> v) {
        return "{" +
               llvm::join(llvm::map_range(
                              v, [](int64_t x) { return std::to_string(x); }),
                          ", ") +
               "}";
      };
      d += ", " + list(s.shape) + ", " + list(strides);
    }
    return d + "};\n";
  };
  params.clear();
  for (auto [i, s] : llvm::enumerate(inputs)) {
    os << "  " << descriptor(s, name(i, true));
    params.push_back("&d_" + name(i, true));
  }
  for (auto [i, s] : llvm::enumerate(results)) {
    os << "  " << descriptor(s, name(i, false));
    params.push_back("&d_" + name(i, false));
  }
  os << "  _mlir_ciface_" << function << "(" << llvm::join(params, ", ")
     << ");\n}\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard
     << " */\n";
  return text;
}

//===----------------------------------------------------------------------===//
// quant-compile
//===----------------------------------------------------------------------===//

static bool isIdentifier(llvm::StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Links `object` into a shared library with clang (and lld), with MLIR's C
/// runner utilities (memref copies) and the OpenMP runtime (the kernels'
/// parallel loops) found where qfx was built against them.
static llvm::Error linkSharedLibrary(llvm::StringRef object,
                                     llvm::StringRef output) {
  llvm::ErrorOr<std::string> clang = llvm::sys::findProgramByName("clang-22");
  if (!clang)
    clang = llvm::sys::findProgramByName("clang");
  if (!clang)
    return makeError("linking a shared library needs clang-22 (or clang) on "
                     "PATH; write an object file (.o) to link it yourself");
  llvm::StringRef runnerUtils = QFX_C_RUNNER_UTILS_LIBRARY;
  std::string libFlag = "-L" + llvm::sys::path::parent_path(runnerUtils).str();
  std::string rpath =
      "-Wl,-rpath," + llvm::sys::path::parent_path(runnerUtils).str();
  llvm::SmallVector<llvm::StringRef> args = {
      *clang, "-shared", "-fuse-ld=lld",          "-o",  output,
      object, libFlag,   "-lmlir_c_runner_utils", rpath, QFX_OPENMP_LIBRARY};
  std::string message;
  int status =
      llvm::sys::ExecuteAndWait(*clang, args, std::nullopt, {}, 0, 0, &message);
  if (status != 0) {
    llvm::sys::fs::remove(output);
    return makeError("linking " + output + " failed" +
                     (message.empty() ? "" : ": " + message));
  }
  return llvm::Error::success();
}

llvm::Error qfx::compileAheadOfTime(mlir::ModuleOp original,
                                    const AotTarget &target,
                                    const AotOptions &options) {
  llvm::StringRef outputPath = options.outputPath;
  bool shared = outputPath.ends_with(".so");
  if (!shared && !outputPath.ends_with(".o"))
    return makeError(outputPath + ": expected an object file (.o) or a "
                                  "shared library (.so)");
  if (!options.exportName.empty() && !isIdentifier(options.exportName))
    return makeError("export name '" + options.exportName +
                     "': expected a C identifier");
  std::string headerPath = options.headerPath;
  if (headerPath.empty()) {
    llvm::SmallString<128> path(outputPath);
    llvm::sys::path::replace_extension(path, ".h");
    headerPath = path.str().str();
  }

  llvm::Expected<std::string> entry = findEntry(original, options.entry);
  if (!entry)
    return entry.takeError();
  // A graph break runs in the host that compiled the model (Python's qfx):
  // a library has no host to call.
  std::string breaks;
  original.walk([&](HostCallOp call) {
    breaks += (breaks.empty() ? "" : ", ") +
              runtime::formatLocation(call.getLoc()) + " (\"" +
              call.getCallee().str() + "\")";
  });
  if (!breaks.empty())
    return makeError("cannot compile ahead of time: the model computes "
                     "values in its host (qfx.host_call at " +
                     breaks +
                     "); run it in-process, in a host that runs them "
                     "(qfx's Python API)");
  std::string name = options.exportName.empty() ? *entry : options.exportName;
  if (!isIdentifier(name))
    return makeError("@" + name +
                     " is not a C identifier: export it under another name");
  // Export under the name asked for: rename the entry (of a copy) first.
  mlir::OwningOpRef<mlir::ModuleOp> module(original.clone());
  if (name != *entry) {
    if (module->lookupSymbol(name))
      return makeError("cannot export @" + *entry + " as " + name +
                       ": the module already has a @" + name);
    auto function = module->lookupSymbol<mlir::func::FuncOp>(*entry);
    if (mlir::failed(mlir::SymbolTable::replaceAllSymbolUses(
            function, mlir::StringAttr::get(module->getContext(), name),
            *module)))
      return makeError("cannot rename @" + *entry + " to @" + name);
    mlir::SymbolTable::setSymbolName(function, name);
  }
  CompileOptions compileOptions;
  compileOptions.entry = name;
  compileOptions.codegenTarget = target.target;
  llvm::Expected<LoweredModel> lowered =
      lowerToLLVMDialect(*module, compileOptions);
  if (!lowered)
    return lowered.takeError();
  llvm::Expected<std::string> object =
      emitObject(*lowered->module, target, "_mlir_ciface_" + name,
                 options.sanitizeThreads);
  if (!object)
    return object.takeError();

  // The header first, kept only once the output is written.
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> header =
      mlir::openOutputFile(headerPath, &error);
  if (!header)
    return makeError(headerPath + ": " + error);
  header->os() << generateHeader(name, lowered->inputs, lowered->results,
                                 options.sourceName, target);
  if (shared) {
    llvm::SmallString<128> objectPath;
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "quant-compile", "o", fd, objectPath))
      return makeError("cannot create a temporary object file: " +
                       ec.message());
    llvm::FileRemover removeObject(objectPath);
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << *object;
    }
    if (llvm::Error err = linkSharedLibrary(objectPath, outputPath))
      return err;
  } else {
    std::unique_ptr<llvm::ToolOutputFile> output =
        mlir::openOutputFile(outputPath, &error);
    if (!output)
      return makeError(outputPath + ": " + error);
    output->os() << *object;
    output->keep();
  }
  header->keep();
  return llvm::Error::success();
}
