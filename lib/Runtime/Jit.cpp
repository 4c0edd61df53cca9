//===- Jit.cpp - LLVM-dialect modules compiled in parallel ----------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "Jit.h"

#include "Support.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemAlloc.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Instrumentation/ThreadSanitizer.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace qfx::runtime;

Jit::~Jit() = default;
Jit::Jit(Jit &&) noexcept = default;

/// The name of the function Jit::call calls.
static std::string getCallName(llvm::StringRef entry) {
  return ("_qfx_call_" + entry).str();
}

/// Adds `void _qfx_call_ENTRY(ptr args)`, which calls ENTRY with args[0],
/// args[1], ...: how a caller that knows the argument count only at run
/// time calls it.
static LogicalResult addCallWrapper(ModuleOp module, llvm::StringRef entry) {
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(entry);
  if (!function ||
      !llvm::isa<LLVM::LLVMVoidType>(
          function.getFunctionType().getReturnType()) ||
      !llvm::all_of(function.getFunctionType().getParams(), [](Type type) {
        return llvm::isa<LLVM::LLVMPointerType>(type);
      }))
    return failure();
  MLIRContext *context = module.getContext();
  auto pointer = LLVM::LLVMPointerType::get(context);
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  Location loc = function.getLoc();
  auto wrapper = LLVM::LLVMFuncOp::create(
      builder, loc, getCallName(entry),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {pointer}));
  builder.setInsertionPointToStart(wrapper.addEntryBlock(builder));
  Value arguments = wrapper.getArgument(0);
  llvm::SmallVector<Value> values;
  for (int32_t index = 0, count = function.getNumArguments(); index < count;
       ++index) {
    Value address = LLVM::GEPOp::create(builder, loc, pointer, pointer,
                                        arguments, {LLVM::GEPArg(index)});
    values.push_back(LLVM::LoadOp::create(builder, loc, pointer, address));
  }
  LLVM::CallOp::create(builder, loc, function, values);
  LLVM::ReturnOp::create(builder, loc, ValueRange());
  return success();
}

//===----------------------------------------------------------------------===//
// Partitions
//===----------------------------------------------------------------------===//

static void setLinkage(Operation *op, LLVM::Linkage linkage) {
  if (auto function = llvm::dyn_cast<LLVM::LLVMFuncOp>(op))
    function.setLinkage(linkage);
  else
    llvm::cast<LLVM::GlobalOp>(op).setLinkage(linkage);
}

/// A function with a body, a global with a value or initializer.
static bool isDefinition(Operation *op) {
  if (auto function = llvm::dyn_cast<LLVM::LLVMFuncOp>(op))
    return !function.isExternal();
  auto global = llvm::cast<LLVM::GlobalOp>(op);
  return global.getValueOrNull() || !global.getInitializerRegion().empty();
}

static bool isLocal(Operation *op) {
  auto function = llvm::dyn_cast<LLVM::LLVMFuncOp>(op);
  LLVM::Linkage linkage = function
                              ? function.getLinkage()
                              : llvm::cast<LLVM::GlobalOp>(op).getLinkage();
  return linkage == LLVM::Linkage::Private ||
         linkage == LLVM::Linkage::Internal;
}

/// A private constant of at most 4 KiB (a lookup table such as expf's): each
/// partition using it gets its own copy. Were it external there, LLVM could
/// not tell that the partition's stores leave it alone, and would not
/// vectorize a loop reading it (the softmax's exp).
static bool isCopiedConstant(Operation *op) {
  auto global = llvm::dyn_cast<LLVM::GlobalOp>(op);
  if (!global || !global.getConstant() || !isLocal(op))
    return false;
  auto value =
      llvm::dyn_cast_or_null<mlir::DenseElementsAttr>(global.getValueOrNull());
  return value && value.getRawData().size() <= 4096;
}

/// Splits `module` into `count` modules that link into the same program:
/// each function with a body goes to the partition with the fewest
/// operations so far (largest first), each global to the partition of its
/// first user. A partition declares what it uses of the others; a private
/// symbol used from another partition becomes external, except small
/// constants, which each partition using them defines (isCopiedConstant). At
/// most one partition per function; empty if that is one, or if `module` holds
/// an operation other than functions and globals (module-level metadata,
/// comdats): it is then compiled whole.
static llvm::SmallVector<OwningOpRef<ModuleOp>> partition(ModuleOp module,
                                                          unsigned count) {
  llvm::SmallVector<Operation *> symbols;
  for (Operation &op : module.getBody()->getOperations()) {
    if (!llvm::isa<LLVM::LLVMFuncOp, LLVM::GlobalOp>(op))
      return {};
    symbols.push_back(&op);
  }
  // The partition of each definition.
  llvm::DenseMap<Operation *, unsigned> home;
  // (size, module position, function): largest first, ties in module order.
  llvm::SmallVector<std::tuple<int64_t, size_t, Operation *>> functions;
  for (auto [position, op] : llvm::enumerate(symbols))
    if (llvm::isa<LLVM::LLVMFuncOp>(op) && isDefinition(op)) {
      int64_t size = 0;
      op->walk([&](Operation *) { ++size; });
      functions.push_back({-size, position, op});
    }
  llvm::sort(functions);
  // (No more partitions than functions: none without one.)
  count = std::min<unsigned>(count, functions.size());
  if (count < 2)
    return {};
  llvm::SmallVector<int64_t> load(count, 0);
  for (auto [negatedSize, position, op] : functions) {
    int64_t *lightest = std::min_element(load.begin(), load.end());
    *lightest -= negatedSize;
    home[op] = lightest - load.begin();
  }
  // Which partitions use each symbol: functions first, in module order, so
  // that a global goes with its first function user; then the globals
  // (their initializers may use symbols too), a global no function uses to
  // the first partition.
  SymbolTable table(module);
  llvm::DenseMap<Operation *, llvm::SmallDenseSet<unsigned, 4>> usedIn;
  auto noteUses = [&](Operation *op, unsigned where) {
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(op))
      for (const SymbolTable::SymbolUse &use : *uses) {
        Operation *symbol = table.lookup(use.getSymbolRef().getRootReference());
        if (!symbol)
          continue;
        usedIn[symbol].insert(where);
        if (isDefinition(symbol))
          home.try_emplace(symbol, where);
      }
  };
  for (Operation *op : symbols)
    if (llvm::isa<LLVM::LLVMFuncOp>(op) && isDefinition(op))
      noteUses(op, home.lookup(op));
  for (Operation *op : symbols)
    if (llvm::isa<LLVM::GlobalOp>(op) && isDefinition(op))
      noteUses(op, home.try_emplace(op, 0).first->second);

  llvm::SmallVector<OwningOpRef<ModuleOp>> partitions;
  for (unsigned index = 0; index < count; ++index) {
    OwningOpRef<ModuleOp> part = ModuleOp::create(module.getLoc());
    (*part)->setAttrs(module->getAttrDictionary());
    OpBuilder builder = OpBuilder::atBlockEnd(part->getBody());
    for (Operation *op : symbols) {
      const llvm::SmallDenseSet<unsigned, 4> &users = usedIn[op];
      if (!isDefinition(op)) {
        if (users.contains(index))
          builder.clone(*op);
        continue;
      }
      unsigned where = home.lookup(op);
      if (isCopiedConstant(op)) {
        if (where == index || users.contains(index))
          builder.clone(*op);
        continue;
      }
      if (where == index) {
        Operation *copy = builder.clone(*op);
        if (isLocal(op) &&
            llvm::any_of(users, [&](unsigned user) { return user != where; }))
          setLinkage(copy, LLVM::Linkage::External);
        continue;
      }
      if (!users.contains(index))
        continue;
      // A declaration of another partition's definition.
      Operation *declaration = builder.insert(op->cloneWithoutRegions());
      setLinkage(declaration, LLVM::Linkage::External);
      if (auto global = llvm::dyn_cast<LLVM::GlobalOp>(declaration)) {
        global.removeValueAttr();
        global.setDsoLocal(false);
      } else {
        llvm::cast<LLVM::LLVMFuncOp>(declaration).setDsoLocal(false);
      }
    }
    partitions.push_back(std::move(part));
  }
  return partitions;
}

//===----------------------------------------------------------------------===//
// Bound constants
//===----------------------------------------------------------------------===//

void Jit::FreeAligned::operator()(char *data) const {
  llvm::deallocate_buffer(data, size, alignment);
}

/// The bytes of `global`'s value as LLVM lays it out in memory, when it is a
/// constant of more than `maxBytes` bytes of whole-byte integers or floats in
/// C order (DenseElementsAttr's raw data then is that layout).
static std::optional<ArrayRef<char>> getBindableBytes(LLVM::GlobalOp global,
                                                      size_t maxBytes) {
  if (!global.getConstant() || !isDefinition(global))
    return std::nullopt;
  auto value =
      llvm::dyn_cast_or_null<DenseElementsAttr>(global.getValueOrNull());
  if (!value || value.isSplat() || !value.getElementType().isIntOrFloat())
    return std::nullopt;
  unsigned bits = value.getElementType().getIntOrFloatBitWidth();
  ArrayRef<char> raw = value.getRawData();
  if (bits % 8 != 0 || raw.size() <= maxBytes ||
      static_cast<int64_t>(raw.size()) != value.getNumElements() * (bits / 8))
    return std::nullopt;
  return raw;
}

void Jit::bindConstants(ModuleOp module, size_t maxBytes, bool copy,
                        llvm::StringMap<void *> &symbols) {
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    std::optional<ArrayRef<char>> raw = getBindableBytes(global, maxBytes);
    if (!raw)
      continue;
    char *data = const_cast<char *>(raw->data());
    if (copy) {
      // Vector loads may assume more than the natural alignment: a cache
      // line at least.
      size_t alignment =
          std::max<size_t>(global.getAlignment().value_or(0), 64);
      data = static_cast<char *>(llvm::allocate_buffer(raw->size(), alignment));
      std::memcpy(data, raw->data(), raw->size());
      constants.push_back(Constant(data, FreeAligned{raw->size(), alignment}));
      copiedBytes += raw->size();
    } else {
      // The code may assume no more alignment than the bytes have (a
      // DenseElementsAttr's are 8-byte aligned).
      auto address = reinterpret_cast<uintptr_t>(data);
      global.setAlignment(std::min<uint64_t>(address & -address, 64));
    }
    symbols[global.getSymName()] = data;
    ++numBound;
    boundBytes += raw->size();
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setDsoLocal(false);
  }
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

void qfx::runtime::instrumentForThreadSanitizer(llvm::Module &module,
                                                llvm::TargetMachine &machine) {
  // The code never unwinds: without nounwind, TSan would give each function
  // that calls an external one (libomp's) an exception cleanup with
  // __gcc_personality_v0, whose .eh_frame reference the JIT cannot always
  // reach (a Delta32 fixup out of range).
  for (llvm::Function &function : module)
    if (!function.isDeclaration()) {
      function.addFnAttr(llvm::Attribute::SanitizeThread);
      function.addFnAttr(llvm::Attribute::NoUnwind);
    }
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  // Without ModuleThreadSanitizerPass's constructor calling __tsan_init:
  // the runtime is started by the instrumented program that runs the code,
  // and the JIT's partitions would each define the same constructor.
  llvm::ModulePassManager passes;
  passes.addPass(
      llvm::createModuleToFunctionPassAdaptor(llvm::ThreadSanitizerPass()));
  passes.run(module, modules);
}

/// Translates `part` to LLVM IR, optimizes it and compiles it to an object
/// file for `host`.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compilePartition(ModuleOp part, llvm::orc::JITTargetMachineBuilder host,
                 const JitOptions &options) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      host.createTargetMachine();
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = translateModuleToLLVMIR(part, context);
  if (!module)
    return makeError("cannot translate the model to LLVM IR");
  module->setDataLayout((*machine)->createDataLayout());
  module->setTargetTriple((*machine)->getTargetTriple());
  auto optimize = makeOptimizingTransformer(
      options.optLevel, /*sizeLevel=*/0,
      options.hostCostModel ? machine->get() : nullptr);
  if (llvm::Error error = optimize(module.get()))
    return std::move(error);
  if (options.sanitizeThreads)
    instrumentForThreadSanitizer(*module, **machine);
  if (!options.llvmIRPath.empty()) {
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(options.llvmIRPath, &message);
    if (!file)
      return makeError(message);
    module->print(file->os(), nullptr);
    file->keep();
  }
  return llvm::orc::SimpleCompiler(**machine)(*module);
}

llvm::Expected<Jit> Jit::compile(ModuleOp module, const JitOptions &options) {
  if (failed(addCallWrapper(module, options.entry)))
    return makeError(llvm::formatv("internal error: @{0} is not a function "
                                   "of pointers returning nothing",
                                   options.entry));
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> host =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host)
    return makeError("cannot describe the host for the JIT: " +
                     llvm::toString(host.takeError()));
  host->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // The objects refer to each other's symbols: position-independent code
  // reaches them through the GOT wherever the linker puts them.
  host->setRelocationModel(llvm::Reloc::PIC_);
  host->setCodeModel(llvm::CodeModel::Small);

  Jit result;
  llvm::StringMap<void *> symbolAddresses = options.symbols;
  result.bindConstants(module, options.maxCompiledConstantBytes,
                       options.copyConstants, symbolAddresses);

  MLIRContext *context = module.getContext();
  unsigned count = 1;
  if (context->isMultithreadingEnabled() && options.llvmIRPath.empty())
    count = context->getNumThreads();
  llvm::SmallVector<OwningOpRef<ModuleOp>> parts;
  if (count > 1)
    parts = partition(module, count);
  llvm::SmallVector<ModuleOp> modules;
  for (OwningOpRef<ModuleOp> &part : parts)
    modules.push_back(*part);
  if (modules.empty())
    modules.push_back(module);

  llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>> objects(
      modules.size());
  llvm::SmallVector<std::string> errors(modules.size());
  parallelForEach(context, llvm::seq<size_t>(0, modules.size()),
                  [&](size_t index) {
                    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
                        compilePartition(modules[index], *host, options);
                    if (object)
                      objects[index] = std::move(*object);
                    else
                      errors[index] = llvm::toString(object.takeError());
                  });
  for (const std::string &error : errors)
    if (!error.empty())
      return makeError("cannot JIT-compile the model: " + error);

  // ORC reports linking errors (a symbol not found) to the session too: they
  // go into the lookup's error, not to stderr. (Declared before the JIT,
  // which may report while it is destroyed on an error path.)
  std::string reported;
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*host).create();
  if (!jit)
    return makeError("cannot create the JIT: " +
                     llvm::toString(jit.takeError()));
  (*jit)->getExecutionSession().setErrorReporter([&](llvm::Error error) {
    reported += "\n" + llvm::toString(std::move(error));
  });
  llvm::orc::JITDylib &library = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  for (const std::string &path : options.libraries) {
    auto generator =
        llvm::orc::DynamicLibrarySearchGenerator::Load(path.c_str(), prefix);
    if (!generator)
      return makeError("cannot load " + path + ": " +
                       llvm::toString(generator.takeError()));
    library.addGenerator(std::move(*generator));
  }
  llvm::orc::SymbolMap symbols;
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(),
                                      (*jit)->getDataLayout());
  for (const auto &symbol : symbolAddresses)
    symbols[mangle(symbol.getKey())] = {
        llvm::orc::ExecutorAddr::fromPtr(symbol.getValue()),
        llvm::JITSymbolFlags::Exported};
  if (llvm::Error error =
          library.define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return makeError("cannot define the runtime's symbols: " +
                     llvm::toString(std::move(error)));
  for (std::unique_ptr<llvm::MemoryBuffer> &object : objects)
    if (llvm::Error error = (*jit)->addObjectFile(std::move(object)))
      return makeError("cannot add a compiled object to the JIT: " +
                       llvm::toString(std::move(error)));
  // Links the object of the wrapper, and those of what it uses.
  llvm::Expected<llvm::orc::ExecutorAddr> address =
      (*jit)->lookup(getCallName(options.entry));
  if (!address)
    return makeError("cannot link the model: " +
                     llvm::toString(address.takeError()) + reported);

  (*jit)->getExecutionSession().setErrorReporter(
      [](llvm::Error error) { llvm::consumeError(std::move(error)); });
  result.jit = std::move(*jit);
  result.entry = address->toPtr<void (*)(void **)>();
  result.numPartitions = modules.size();
  return result;
}
