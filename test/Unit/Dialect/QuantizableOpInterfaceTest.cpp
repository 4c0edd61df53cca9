//===- QuantizableOpInterfaceTest.cpp - The quantizable op rows -----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace qfx;

namespace {

constexpr const char *kModel = R"mlir(
func.func @f(%x: tensor<1x4x4x3xf32>, %v: tensor<1x4x3xf32>, %c: tensor<1x4xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x3xf32>}> : () -> tensor<2x1x1x3xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %dw = "tosa.const"() <{values = dense<1.0> : tensor<1x1x3x2xf32>}> : () -> tensor<1x1x3x2xf32>
  %db = "tosa.const"() <{values = dense<0.0> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = tosa.depthwise_conv2d %x, %dw, %db, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<1x1x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x6xf32>
  %mw = "tosa.const"() <{values = dense<1.0> : tensor<1x3x5xf32>}> : () -> tensor<1x3x5xf32>
  %2 = tosa.matmul %v, %mw, %zp, %zp : (tensor<1x4x3xf32>, tensor<1x3x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x5xf32>
  %3 = tosa.add %v, %v : (tensor<1x4x3xf32>, tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %4 = tosa.sigmoid %v : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %5 = qfx.composite "torch.mean" (%c) attributes {composite_attributes = {axes = array<i64: 0>}} : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    qfx.yield %a : tensor<1x4xf32>
  }
  %6 = qfx.composite "torch.nn.BatchNorm2d" (%c) attributes {composite_attributes = {axis = 1 : i64, eps = 1.0e-05 : f32, running_mean = dense<0.0> : tensor<4xf32>, running_var = dense<1.0> : tensor<4xf32>}} : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    qfx.yield %a : tensor<1x4xf32>
  }
  %7 = qfx.composite "torch.nn.Hardswish" (%c) : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    qfx.yield %a : tensor<1x4xf32>
  }
  %8 = tosa.erf %v : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %p = tosa.const_shape {values = dense<0> : tensor<6xindex>} : () -> !tosa.shape<6>
  %9 = tosa.pad %v, %p, %zp : (tensor<1x4x3xf32>, !tosa.shape<6>, tensor<1xf32>) -> tensor<1x4x3xf32>
  return
}
)mlir";

class QuantizableOpInterfaceTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    registry
        .insert<mlir::func::FuncDialect, mlir::tosa::TosaDialect, QFXDialect>();
    registerQuantizableOpInterfaceExternalModels(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
  }

  /// The ops of kModel's function that are not constants, in order.
  std::vector<mlir::Operation *> parse() {
    module = mlir::parseSourceString<mlir::ModuleOp>(kModel, context.get());
    std::vector<mlir::Operation *> ops;
    if (!module)
      return ops;
    module->walk([&](mlir::Operation *op) {
      if (!op->hasTrait<mlir::OpTrait::ConstantLike>() &&
          !llvm::isa<mlir::tosa::ConstShapeOp>(op) && op->getParentOp() &&
          llvm::isa<mlir::func::FuncOp>(op->getParentOp()) &&
          !op->hasTrait<mlir::OpTrait::IsTerminator>())
        ops.push_back(op);
    });
    return ops;
  }

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

std::vector<int64_t> channels(QuantizableOpInterface op, int64_t count) {
  std::optional<std::function<int64_t(int64_t)>> channelOf =
      getWeightChannelOf(op);
  std::vector<int64_t> result;
  for (int64_t n = 0; channelOf && n < count; ++n)
    result.push_back((*channelOf)(n));
  return result;
}

TEST_F(QuantizableOpInterfaceTest, WeightedOps) {
  std::vector<mlir::Operation *> ops = parse();
  ASSERT_EQ(ops.size(), 10u);

  // conv2d: weight [O=2, 1, 1, I=3], channel = the O index.
  auto conv = llvm::dyn_cast<QuantizableOpInterface>(ops[0]);
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv.getWeightOperandIndex(), 1u);
  EXPECT_EQ(conv.getBiasOperandIndex(), 2u);
  EXPECT_EQ(conv.getTorchWeightAxes(),
            (llvm::SmallVector<int64_t>{0, 3, 1, 2}));
  EXPECT_EQ(channels(conv, 6), (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(conv.getInt8Lowering(), LoweringKind::Contraction);

  // depthwise: weight [1, 1, C=3, M=2], channel c * M + m.
  auto depthwise = llvm::dyn_cast<QuantizableOpInterface>(ops[1]);
  ASSERT_TRUE(depthwise);
  EXPECT_EQ(depthwise.getWeightChannelAxes(),
            (llvm::SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(channels(depthwise, 6), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(depthwise.getInt8Lowering(), LoweringKind::Contraction);

  // matmul: weight [1, IN=3, OUT=5], channel = the OUT index; no bias
  // operand.
  auto matmul = llvm::dyn_cast<QuantizableOpInterface>(ops[2]);
  ASSERT_TRUE(matmul);
  EXPECT_EQ(matmul.getBiasOperandIndex(), std::nullopt);
  EXPECT_EQ(channels(matmul, 7), (std::vector<int64_t>{0, 1, 2, 3, 4, 0, 1}));
  EXPECT_EQ(matmul.getTorchWeightAxes(), (llvm::SmallVector<int64_t>{2, 1}));
  EXPECT_EQ(matmul.getInt8Lowering(), LoweringKind::Contraction);
}

TEST_F(QuantizableOpInterfaceTest, OpsWithoutWeights) {
  std::vector<mlir::Operation *> ops = parse();
  ASSERT_EQ(ops.size(), 10u);
  auto lowering = [&](size_t i) -> std::string {
    auto op = llvm::dyn_cast<QuantizableOpInterface>(ops[i]);
    if (!op)
      return "<none>";
    EXPECT_EQ(op.getWeightOperandIndex(), std::nullopt);
    EXPECT_FALSE(getWeightChannelOf(op));
    std::optional<LoweringKind> kind = op.getInt8Lowering();
    return kind ? stringifyLoweringKind(*kind).str() : "<no lowering>";
  };
  EXPECT_EQ(lowering(3), "binary");
  EXPECT_EQ(lowering(4), "table");
  EXPECT_EQ(lowering(5), "mean");
  EXPECT_EQ(lowering(6), "batch_norm");
  EXPECT_EQ(lowering(7), "table");
  EXPECT_EQ(lowering(8), "table");
  // An op qfx does not quantize has no model.
  EXPECT_EQ(lowering(9), "<none>");
}

} // namespace
