//===- AheadOfTime.cpp - Compile a model to an object file ----------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/AheadOfTime.h"

#include "Support.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace qfx;
using runtime::makeError;

static const AotTarget targets[] = {
    {"host", "", "", "", "this machine (its triple and CPU)"},
    {"x86-64-avx512vnni", "x86_64-unknown-linux-gnu", "cascadelake", "",
     "x86-64 with AVX-512 VNNI"},
    {"x86-64-amx", "x86_64-unknown-linux-gnu", "sapphirerapids", "",
     "x86-64 with AMX-INT8"},
    {"x86-64-avx2", "x86_64-unknown-linux-gnu", "haswell", "",
     "x86-64 with AVX2, no VNNI"},
    {"aarch64-dotprod", "aarch64-unknown-linux-gnu", "generic",
     "+v8.2a,+neon,+dotprod", "AArch64 with SDOT/UDOT"},
    {"aarch64-i8mm", "aarch64-unknown-linux-gnu", "generic",
     "+v8.6a,+neon,+dotprod,+i8mm", "AArch64 with SMMLA/USMMLA"},
};

llvm::ArrayRef<AotTarget> qfx::getAotTargets() { return targets; }

llvm::Expected<AotTarget> qfx::lookupAotTarget(llvm::StringRef name) {
  for (const AotTarget &target : targets) {
    if (target.name != name)
      continue;
    if (name != "host")
      return target;
    static const std::string hostTriple = llvm::sys::getProcessTriple();
    static const std::string hostCpu = llvm::sys::getHostCPUName().str();
    AotTarget host = target;
    host.triple = hostTriple;
    host.cpu = hostCpu;
    return host;
  }
  std::string names = llvm::join(
      llvm::map_range(targets, [](const AotTarget &t) { return t.name; }),
      ", ");
  return makeError("unknown target '" + name + "', expected one of " + names);
}

llvm::Expected<std::string> qfx::emitObject(mlir::ModuleOp module,
                                            const AotTarget &target,
                                            llvm::StringRef exported) {
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
