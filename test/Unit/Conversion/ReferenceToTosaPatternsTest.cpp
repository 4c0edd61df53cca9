//===- ReferenceToTosaPatternsTest.cpp - qfx-lower's rewrite patterns -----===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The contract of populateQFXLowerPatterns' patterns for a compiler that
// drives them itself: a pattern that cannot lower its op leaves the IR as it
// was and gives its reason to the listener; one that lowers rewrites only
// what it visits.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/ConfigJSON.h"
#include "qfx/Conversion/ReferenceToTosa/ReferenceToTosa.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.h"
#include "qfx/Transforms/ConfigResolution.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "gtest/gtest.h"

using namespace qfx;

namespace {

/// A conv whose weight has per-channel zero points (TOSA takes one): its
/// lowering makes the u8 input's int8 value (a storage cast and a rescale)
/// before it finds that out. Then a max pool it can lower.
constexpr const char *kModel = R"mlir(
!u = !quant.uniform<u8:f32, 0.5:128>
!t = !quant.uniform<i8:f32, 0.5:0>
!w = !quant.uniform<i8:f32:0, {0.5:0, 0.25:3}>
func.func @f(%arg0: tensor<1x1x1x1x!u>, %arg1: tensor<1x2x2x1x!t>) -> (tensor<1x1x1x2x!t>, tensor<1x1x1x1x!t>) {
  %x = quant.dcast %arg0 : tensor<1x1x1x1x!u> to tensor<1x1x1x1xf32>
  %wi = "tosa.const"() <{values = dense<1> : tensor<2x1x1x1xi8>}> : () -> tensor<2x1x1x1xi8>
  %ws = quant.scast %wi : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!w>
  %w = quant.dcast %ws : tensor<2x1x1x1x!w> to tensor<2x1x1x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x1xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
  %q = quant.qcast %c : tensor<1x1x1x2xf32> to tensor<1x1x1x2x!t>
  %y = quant.dcast %arg1 : tensor<1x2x2x1x!t> to tensor<1x2x2x1xf32>
  %m = tosa.max_pool2d %y {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32>
  %p = quant.qcast %m : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!t>
  return %q, %p : tensor<1x1x1x2x!t>, tensor<1x1x1x1x!t>
}
)mlir";

/// Collects the reasons patterns give for not rewriting an op.
struct Reasons : mlir::RewriterBase::Listener {
  void notifyMatchFailure(
      mlir::Location loc,
      llvm::function_ref<void(mlir::Diagnostic &)> reason) override {
    mlir::Diagnostic diagnostic(loc, mlir::DiagnosticSeverity::Remark);
    reason(diagnostic);
    messages.push_back(diagnostic.str());
  }
  std::vector<std::string> messages;
};

std::string print(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

class ReferenceToTosaPatternsTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    registry.insert<mlir::func::FuncDialect, mlir::quant::QuantDialect,
                    mlir::tosa::TosaDialect, QFXDialect>();
    registerQuantizableOpInterfaceExternalModels(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(kModel, &context);
    ASSERT_TRUE(module);
    llvm::Expected<BackendConfig> loaded = loadBackendConfig("x86");
    ASSERT_TRUE(static_cast<bool>(loaded)) << toString(loaded.takeError());
    backend.emplace(std::move(*loaded));
  }

  /// One walk of qfx-lower's patterns over `op`, the reasons collected.
  void lower(mlir::Operation *op) {
    PatternMatches matches = matchBackendPatterns(op, *backend);
    mlir::RewritePatternSet patterns(&context);
    populateQFXLowerPatterns(
        patterns, {&*backend, &matches, getDefaultRequantization(*backend)});
    mlir::walkAndApplyPatterns(op, std::move(patterns), &reasons);
  }

  mlir::Operation *find(llvm::StringRef name) {
    mlir::Operation *found = nullptr;
    module->walk([&](mlir::Operation *op) {
      if (op->getName().getStringRef() == name)
        found = op;
    });
    return found;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::optional<BackendConfig> backend;
  Reasons reasons;
};

TEST_F(ReferenceToTosaPatternsTest, FailedLoweringLeavesTheIRAsItWas) {
  auto func = llvm::cast<mlir::func::FuncOp>(module->getBody()->front());
  std::string before = print(*module);
  lower(func);
  EXPECT_EQ(reasons.messages,
            std::vector<std::string>{
                "the weight's zero points differ between channels; TOSA "
                "takes one weight zero point"});
  // The conv and everything before it are as they were: no storage cast or
  // rescale of the input is left behind.
  EXPECT_TRUE(find("tosa.conv2d"));
  EXPECT_FALSE(find("tosa.rescale"));
  std::string after = print(*module);
  size_t conv = before.find("tosa.conv2d");
  ASSERT_NE(conv, std::string::npos);
  EXPECT_EQ(after.substr(0, after.find("tosa.conv2d")), before.substr(0, conv));
}

TEST_F(ReferenceToTosaPatternsTest, LoweringRewritesOnlyWhatItVisits) {
  auto func = llvm::cast<mlir::func::FuncOp>(module->getBody()->front());
  lower(func);
  // The max pool computes on int8; its quantize cast stays (dead) for the
  // caller to erase, the return takes the storage cast of the int8 result.
  mlir::Operation *pool = find("tosa.max_pool2d");
  ASSERT_TRUE(pool);
  auto poolType =
      llvm::cast<mlir::RankedTensorType>(pool->getResult(0).getType());
  EXPECT_TRUE(poolType.getElementType().isInteger(8));
  mlir::Operation *ret = func.getBody().front().getTerminator();
  EXPECT_TRUE(ret->getOperand(1).getDefiningOp<mlir::quant::StorageCastOp>());
  int deadCasts = 0;
  func.walk([&](mlir::quant::QuantizeCastOp qcast) {
    deadCasts += qcast->use_empty();
  });
  EXPECT_EQ(deadCasts, 1);
  EXPECT_TRUE(find("tosa.conv2d"));
}

} // namespace
