//===- JitTest.cpp - LLVM-dialect modules compiled in parallel ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "Jit.h" // lib/Runtime: internal to the runtime library.

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"

#include "gtest/gtest.h"

#include <cstdint>

using namespace qfx::runtime;

namespace {

// @entry(in, out): out[0] = @left(in[0]) + @right(in[0]), each in a
// partition of its own. Both read the private (mutable) global @table, so one
// of them reaches it in the other's object; @offsets is only @right's.
constexpr const char *kModule = R"mlir(
llvm.mlir.global private @table(dense<[1, 2, 3, 4]> : tensor<4xi64>) {addr_space = 0 : i32} : !llvm.array<4 x i64>
llvm.mlir.global private constant @offsets(dense<[100, 200, 300, 400]> : tensor<4xi64>) {addr_space = 0 : i32} : !llvm.array<4 x i64>
llvm.func @left(%i: i64) -> i64 {
  %table = llvm.mlir.addressof @table : !llvm.ptr
  %at = llvm.getelementptr %table[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i64>
  %v = llvm.load %at : !llvm.ptr -> i64
  llvm.return %v : i64
}
llvm.func @right(%i: i64) -> i64 {
  %table = llvm.mlir.addressof @table : !llvm.ptr
  %offsets = llvm.mlir.addressof @offsets : !llvm.ptr
  %at = llvm.getelementptr %table[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i64>
  %t = llvm.load %at : !llvm.ptr -> i64
  %oat = llvm.getelementptr %offsets[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i64>
  %o = llvm.load %oat : !llvm.ptr -> i64
  %ten = llvm.mlir.constant(10 : i64) : i64
  %t10 = llvm.mul %t, %ten : i64
  %v = llvm.add %t10, %o : i64
  llvm.return %v : i64
}
llvm.func @entry(%in: !llvm.ptr, %out: !llvm.ptr) {
  %i = llvm.load %in : !llvm.ptr -> i64
  %l = llvm.call @left(%i) : (i64) -> i64
  %r = llvm.call @right(%i) : (i64) -> i64
  %sum = llvm.add %l, %r : i64
  llvm.store %sum, %out : i64, !llvm.ptr
  llvm.return
}
)mlir";

class JitTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    context.appendDialectRegistry([] {
      mlir::DialectRegistry registry;
      registry.insert<mlir::LLVM::LLVMDialect>();
      mlir::registerBuiltinDialectTranslation(registry);
      mlir::registerLLVMDialectTranslation(registry);
      return registry;
    }());
    // Eight threads, whatever the machine has (more than the functions).
    context.setThreadPool(pool);
  }

  /// Compiles `source` with `options` (entry @entry) and returns
  /// @entry(index), or -1 with a test failure.
  int64_t run(const char *source, int64_t index, unsigned *partitions,
              JitOptions options = {}) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return -1;
    options.entry = "entry";
    llvm::Expected<Jit> jit = Jit::compile(*module, options);
    if (!jit) {
      ADD_FAILURE() << llvm::toString(jit.takeError());
      return -1;
    }
    *partitions = jit->getNumPartitions();
    int64_t result = -1;
    void *arguments[] = {&index, &result};
    jit->call(arguments);
    return result;
  }

  llvm::DefaultThreadPool pool{llvm::hardware_concurrency(8)};
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
};

TEST_F(JitTest, APartitionUsesAnotherPartitionsPrivateGlobal) {
  unsigned partitions = 0;
  // table[2] + (10 * table[2] + offsets[2]) = 3 + 330.
  EXPECT_EQ(run(kModule, 2, &partitions), 333);
  // One a function (@left, @right, @entry and its wrapper), not a thread.
  EXPECT_EQ(partitions, 4u);
  EXPECT_EQ(run(kModule, 0, &partitions), 111);
}

// @entry(in, out): out[0] = 1 if @left and @right, in partitions of their
// own, see the private constant @small at different addresses.
constexpr const char *kCopiedConstant = R"mlir(
llvm.mlir.global private constant @small(dense<[1, 2, 3, 4]> : tensor<4xi64>) {addr_space = 0 : i32} : !llvm.array<4 x i64>
llvm.func @left() -> !llvm.ptr {
  %small = llvm.mlir.addressof @small : !llvm.ptr
  llvm.return %small : !llvm.ptr
}
llvm.func @right() -> !llvm.ptr {
  %small = llvm.mlir.addressof @small : !llvm.ptr
  llvm.return %small : !llvm.ptr
}
llvm.func @entry(%in: !llvm.ptr, %out: !llvm.ptr) {
  %l = llvm.call @left() : () -> !llvm.ptr
  %r = llvm.call @right() : () -> !llvm.ptr
  %different = llvm.icmp "ne" %l, %r : !llvm.ptr
  %v = llvm.zext %different : i1 to i64
  llvm.store %v, %out : i64, !llvm.ptr
  llvm.return
}
)mlir";

TEST_F(JitTest, EachPartitionHasItsOwnCopyOfASmallConstant) {
  // Were it external in one partition, LLVM could not tell that the
  // partition's stores leave it alone (the expf table of a vectorized loop).
  unsigned partitions = 0;
  EXPECT_EQ(run(kCopiedConstant, 0, &partitions), 1);
  EXPECT_EQ(partitions, 4u);
}

TEST_F(JitTest, OneThreadCompilesOnePartition) {
  context.disableMultithreading();
  unsigned partitions = 0;
  EXPECT_EQ(run(kModule, 3, &partitions), 444);
  EXPECT_EQ(partitions, 1u);
}

TEST_F(JitTest, AnOpOtherThanFunctionsAndGlobalsKeepsTheModuleWhole) {
  std::string source = std::string(kModule) + R"mlir(
llvm.mlir.global_ctors ctors = [], priorities = [], data = []
)mlir";
  unsigned partitions = 0;
  EXPECT_EQ(run(source.c_str(), 1, &partitions), 222);
  EXPECT_EQ(partitions, 1u);
}

TEST_F(JitTest, TheEntryMustTakePointersAndReturnNothing) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);
  JitOptions options;
  options.entry = "small";
  llvm::Expected<Jit> jit = Jit::compile(*module, options);
  ASSERT_FALSE(jit);
  EXPECT_EQ(llvm::toString(jit.takeError()),
            "internal error: @small is not a function of pointers returning "
            "nothing");
}

// @entry(in, out): out[0] = @left(i) + @right(i) + (address of @big) % 64,
// @left and @right each reading the private constant @big (1024 i64,
// big[i] = 3 i) in partitions of their own, @right also small[1] = 2.
static std::string getBigConstantModule() {
  std::string values;
  for (int i = 0; i < 1024; ++i)
    values += (i ? ", " : "") + std::to_string(3 * i);
  return R"mlir(
llvm.mlir.global private constant @big(dense<[)mlir" +
         values +
         R"mlir(]> : tensor<1024xi64>) {addr_space = 0 : i32} : !llvm.array<1024 x i64>
llvm.mlir.global private constant @small(dense<[1, 2, 3, 4]> : tensor<4xi64>) {addr_space = 0 : i32} : !llvm.array<4 x i64>
llvm.func @left(%i: i64) -> i64 {
  %big = llvm.mlir.addressof @big : !llvm.ptr
  %at = llvm.getelementptr %big[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<1024 x i64>
  %v = llvm.load %at : !llvm.ptr -> i64
  llvm.return %v : i64
}
llvm.func @right(%i: i64) -> i64 {
  %big = llvm.mlir.addressof @big : !llvm.ptr
  %small = llvm.mlir.addressof @small : !llvm.ptr
  %one = llvm.mlir.constant(1 : i64) : i64
  %at = llvm.getelementptr %big[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<1024 x i64>
  %v = llvm.load %at : !llvm.ptr -> i64
  %sat = llvm.getelementptr %small[0, %one] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i64>
  %s = llvm.load %sat : !llvm.ptr -> i64
  %sum = llvm.add %v, %s : i64
  llvm.return %sum : i64
}
llvm.func @entry(%in: !llvm.ptr, %out: !llvm.ptr) {
  %i = llvm.load %in : !llvm.ptr -> i64
  %l = llvm.call @left(%i) : (i64) -> i64
  %r = llvm.call @right(%i) : (i64) -> i64
  %big = llvm.mlir.addressof @big : !llvm.ptr
  %address = llvm.ptrtoint %big : !llvm.ptr to i64
  %line = llvm.mlir.constant(64 : i64) : i64
  %misaligned = llvm.urem %address, %line : i64
  %lr = llvm.add %l, %r : i64
  %sum = llvm.add %lr, %misaligned : i64
  llvm.store %sum, %out : i64, !llvm.ptr
  llvm.return
}
)mlir";
}

TEST_F(JitTest, ALargeConstantIsBoundToABufferNotCompiled) {
  std::string source = getBigConstantModule();
  for (size_t maxCompiled : {size_t(4096), size_t(8192)}) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    ASSERT_TRUE(module);
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("jit-bound", "ll", path));
    llvm::FileRemover remover(path);
    JitOptions options;
    options.entry = "entry";
    options.maxCompiledConstantBytes = maxCompiled;
    options.llvmIRPath = std::string(path);
    llvm::Expected<Jit> jit = Jit::compile(*module, options);
    ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
    // @big is 8192 bytes: bound above 4096, compiled at 8192 (a limit the
    // constant does not exceed).
    bool bound = maxCompiled == 4096;
    EXPECT_EQ(jit->getNumBoundConstants(), bound ? 1u : 0u);
    EXPECT_EQ(jit->getBoundConstantBytes(), bound ? 8192u : 0u);
    EXPECT_EQ(jit->getCopiedConstantBytes(), bound ? 8192u : 0u);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> ir =
        llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(ir);
    llvm::StringRef text = (*ir)->getBuffer();
    EXPECT_EQ(text.contains("@big = external constant [1024 x i64]"), bound)
        << text.str();
    EXPECT_EQ(text.contains("@big = private"), !bound);
    for (int64_t index : {0, 5, 1023}) {
      // big[i] twice plus small[1]; a cache line's alignment.
      int64_t result = -1;
      void *arguments[] = {&index, &result};
      jit->call(arguments);
      EXPECT_EQ(result, 6 * index + 2);
    }
  }
}

TEST_F(JitTest, ABoundConstantCanBeReadWhereTheContextHoldsIt) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(getBigConstantModule(), &context);
  ASSERT_TRUE(module);
  auto big = module->lookupSymbol<mlir::LLVM::GlobalOp>("big");
  ASSERT_TRUE(big);
  const char *bytes = llvm::cast<mlir::DenseElementsAttr>(big.getValueOrNull())
                          .getRawData()
                          .data();
  JitOptions options;
  options.entry = "entry";
  options.copyConstants = false;
  llvm::Expected<Jit> jit = Jit::compile(*module, options);
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
  EXPECT_EQ(jit->getNumBoundConstants(), 1u);
  EXPECT_EQ(jit->getBoundConstantBytes(), 8192u);
  EXPECT_EQ(jit->getCopiedConstantBytes(), 0u);
  // The code's @big is the attribute's bytes (at their own alignment).
  int64_t index = 5, result = -1;
  void *arguments[] = {&index, &result};
  jit->call(arguments);
  EXPECT_EQ(result,
            6 * index + 2 +
                static_cast<int64_t>(reinterpret_cast<uintptr_t>(bytes) % 64));
}

TEST_F(JitTest, ABoundConstantLinksAcrossPartitions) {
  unsigned partitions = 0;
  EXPECT_EQ(run(getBigConstantModule().c_str(), 7, &partitions), 6 * 7 + 2);
  EXPECT_EQ(partitions, 4u);
}

// With sanitizeThreads (the default of the ThreadSanitizer build), the code
// calls TSan's runtime on entry to a function and on each access to memory
// that is not constant; where the runtime is not in the process, linking
// says so.
TEST_F(JitTest, SanitizeThreadsInstrumentsEveryFunction) {
  // @sanitized(in, out): @hook(), a function of this process, then @entry.
  std::string source = std::string(kModule) + R"mlir(
llvm.func @hook()
llvm.func @sanitized(%in: !llvm.ptr, %out: !llvm.ptr) {
  llvm.call @hook() : () -> ()
  llvm.call @entry(%in, %out) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}
)mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  static int hookCalls = 0;
  hookCalls = 0;
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("jit-tsan", "ll", path));
  llvm::FileRemover remover(path);
  JitOptions options;
  options.entry = "sanitized";
  options.sanitizeThreads = true;
  options.llvmIRPath = std::string(path);
  options.symbols["hook"] = reinterpret_cast<void *>(+[] { ++hookCalls; });
  llvm::Expected<Jit> jit = Jit::compile(*module, options);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> ir =
      llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(ir);
  llvm::StringRef text = (*ir)->getBuffer();
  // @entry, @sanitized and its wrapper (into which both are inlined); @left
  // and @right only read constants, which TSan leaves alone.
  EXPECT_EQ(text.count("call void @__tsan_func_entry("), 3u);
  // The wrapper's reads of its argument array; in[0] and out[0] in each
  // copy of @entry, which TSan checks as unaligned (their loads and stores
  // say align 4).
  EXPECT_EQ(text.count("call void @__tsan_read8("), 2u);
  EXPECT_EQ(text.count("call void @__tsan_unaligned_read8("), 3u);
  EXPECT_EQ(text.count("call void @__tsan_unaligned_write8("), 3u);
  // No exception cleanups around the call of @hook, which may unwind as far
  // as LLVM knows (the code itself never does).
  EXPECT_EQ(text.count("personality"), 0u);
  if (kBuiltWithThreadSanitizer) {
    ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
    int64_t index = 1, result = -1;
    void *arguments[] = {&index, &result};
    jit->call(arguments);
    EXPECT_EQ(result, 222);
    EXPECT_EQ(hookCalls, 1);
  } else {
    ASSERT_FALSE(jit);
    EXPECT_NE(llvm::toString(jit.takeError()).find("__tsan_func_entry"),
              std::string::npos);
  }
}

} // namespace
