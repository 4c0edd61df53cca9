//===- BackendConfigTest.cpp - Backend tables against PyTorch -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/BackendConfig.h"
#include "qfx/Config/ConfigJSON.h"

#include "Golden.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include "gtest/gtest.h"

#include <set>

using namespace qfx;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;
using qfx::test::loadGolden;
using qfx::test::printJSON;

namespace {

std::string joinPattern(llvm::ArrayRef<llvm::StringRef> ops) {
  return llvm::join(ops, " > ");
}

/// Our table `name` against PyTorch's table `torchName`: every PyTorch
/// pattern with a TOSA form has the same observation type, dtype configs,
/// per-tensor-args observation types and output observer in our table, and
/// every pattern of our table stands for some PyTorch pattern.
void checkAgainstPyTorch(llvm::StringRef name, llvm::StringRef torchName) {
  SCOPED_TRACE(name.str());
  Value golden = loadGolden("backend_configs.json");
  const Object &root = *golden.getAsObject();
  const Array &dtypeConfigs = *root.getArray("dtype_configs");
  const Array *torchTable = root.getArray(torchName);
  ASSERT_TRUE(torchTable);
  llvm::StringMap<const Object *> byPattern;
  for (const Value &config : *torchTable) {
    llvm::SmallVector<llvm::StringRef> ops;
    for (const Value &op : *config.getAsObject()->getArray("pattern"))
      ops.push_back(*op.getAsString());
    byPattern[joinPattern(ops)] = config.getAsObject();
  }

  std::optional<BackendConfig> table = getBackendConfig(name);
  ASSERT_TRUE(table);
  EXPECT_EQ(table->getName(), name);
  EXPECT_FALSE(llvm::errorToBool(table->validate()));
  std::set<const BackendPatternConfig *> covered;
  for (const TorchToTOSAPattern &mapping : getTorchToTOSAPatterns()) {
    std::string torchPattern = joinPattern(mapping.torchPattern);
    SCOPED_TRACE(torchPattern + " -> " + joinPattern(mapping.tosaPattern));
    const Object *expected = byPattern.lookup(torchPattern);
    const BackendPatternConfig *ours = table->lookup(mapping.tosaPattern);
    if (!ours) { // a row of another table only (layer norm: native.py's)
      EXPECT_FALSE(expected) << "PyTorch's " << torchName.str() << " table has "
                             << torchPattern << "; qfx's has no row for it";
      continue;
    }
    ASSERT_TRUE(expected) << "PyTorch's " << torchName.str()
                          << " table has no pattern " << torchPattern;
    covered.insert(ours);
    Object actual = *backendPatternConfigToJSON(*ours).getAsObject();

    EXPECT_EQ(*actual.get("observation_type"),
              *expected->get("observation_type"));
    Array expectedDTypeConfigs;
    for (const Value &index : *expected->getArray("dtype_configs"))
      expectedDTypeConfigs.push_back(dtypeConfigs[*index.getAsInteger()]);
    Value expectedValue(std::move(expectedDTypeConfigs));
    EXPECT_EQ(*actual.get("dtype_configs"), expectedValue)
        << "qfx:     " << printJSON(*actual.get("dtype_configs"))
        << "\nPyTorch: " << printJSON(expectedValue);
    for (llvm::StringRef key :
         {"num_tensor_args_to_observation_type", "overwrite_output_observer"}) {
      const Value *expectedValue = expected->get(key);
      const Value *actualValue = actual.get(key);
      ASSERT_EQ(bool(expectedValue), bool(actualValue)) << key.str();
      if (expectedValue)
        EXPECT_EQ(*actualValue, *expectedValue) << key.str();
    }
  }
  for (const BackendPatternConfig &config : table->getConfigs()) {
    llvm::SmallVector<llvm::StringRef> ops(config.getPattern().begin(),
                                           config.getPattern().end());
    EXPECT_TRUE(covered.count(&config))
        << joinPattern(ops) << " stands for no PyTorch pattern";
  }
}

TEST(BackendConfig, X86MatchesPyTorch) { checkAgainstPyTorch("x86", "x86"); }
TEST(BackendConfig, FbgemmMatchesPyTorch) {
  checkAgainstPyTorch("fbgemm", "fbgemm");
}
TEST(BackendConfig, QnnpackMatchesPyTorch) {
  checkAgainstPyTorch("qnnpack", "qnnpack");
}
TEST(BackendConfig, OnednnMatchesPyTorchNative) {
  checkAgainstPyTorch("onednn", "native");
}

TEST(BackendConfig, TosaTable) {
  std::optional<BackendConfig> table = getBackendConfig("tosa");
  ASSERT_TRUE(table);
  EXPECT_FALSE(llvm::errorToBool(table->validate()));

  const BackendPatternConfig *conv = table->lookup(
      llvm::ArrayRef<llvm::StringRef>{"tosa.conv2d", "tosa.clamp"});
  ASSERT_TRUE(conv);
  ASSERT_EQ(conv->getDTypeConfigs().size(), 1u);
  const DTypeConfig &weighted = conv->getDTypeConfigs()[0];
  EXPECT_EQ(weighted.inputDType->dtype, DType::QInt8);
  EXPECT_EQ(weighted.outputDType->dtype, DType::QInt8);
  EXPECT_EQ(weighted.weightDType->dtype, DType::QInt8);
  EXPECT_EQ(weighted.weightDType->quantMinLowerBound, -127);
  EXPECT_EQ(weighted.weightDType->quantMaxUpperBound, 127);
  EXPECT_EQ(weighted.biasDType, DType::QInt32);
  EXPECT_EQ(conv->getRootOp(), "tosa.conv2d");
  EXPECT_EQ(conv->getInputRole(InputRole::Bias), (OperandRef{0, 2}));

  const BackendPatternConfig *linear =
      table->lookup(llvm::ArrayRef<llvm::StringRef>{"tosa.matmul", "tosa.add"});
  ASSERT_TRUE(linear);
  EXPECT_EQ(linear->getInputRole(InputRole::Weight), (OperandRef{0, 1}));
  EXPECT_EQ(linear->getInputRole(InputRole::Bias), (OperandRef{1, 1}));

  const BackendPatternConfig *sigmoid =
      table->lookup(llvm::ArrayRef<llvm::StringRef>{"tosa.sigmoid"});
  ASSERT_TRUE(sigmoid && sigmoid->getOverwriteOutputObserver());
  const ObserverSpec &fixed = *sigmoid->getOverwriteOutputObserver();
  EXPECT_EQ(fixed.kind, ObserverKind::FixedQParams);
  EXPECT_EQ(fixed.dtype, DType::QInt8);
  EXPECT_EQ(fixed.zeroPoint, -128);
  EXPECT_EQ(fixed.scale, 1.0 / 256.0);

  for (llvm::StringRef op : {"tosa.max_pool2d", "tosa.reshape",
                             "tosa.transpose", "tosa.concat", "tosa.slice"}) {
    const BackendPatternConfig *share =
        table->lookup(llvm::ArrayRef<llvm::StringRef>{op});
    ASSERT_TRUE(share) << op.str();
    EXPECT_EQ(share->getObservationType(),
              ObservationType::OutputShareObserverWithInput)
        << op.str();
  }
}

TEST(BackendConfig, SettingAPatternAgainReplacesItInPlace) {
  BackendConfig config("test");
  config.setBackendPatternConfig(BackendPatternConfig("tosa.add"))
      .setBackendPatternConfig(BackendPatternConfig("tosa.mul"))
      .setBackendPatternConfig(
          BackendPatternConfig("tosa.add")
              .setObservationType(
                  ObservationType::OutputShareObserverWithInput));
  ASSERT_EQ(config.getConfigs().size(), 2u);
  EXPECT_EQ(config.getConfigs()[0].getPattern()[0], "tosa.add");
  EXPECT_EQ(config.getConfigs()[0].getObservationType(),
            ObservationType::OutputShareObserverWithInput);
}

TEST(BackendConfig, ValidateRejectsBadPatterns) {
  EXPECT_TRUE(llvm::errorToBool(
      BackendPatternConfig(llvm::ArrayRef<llvm::StringRef>{"a", "b", "c", "d"})
          .validate()));
  EXPECT_TRUE(
      llvm::errorToBool(BackendPatternConfig("a").setRootOp("b").validate()));
  EXPECT_TRUE(llvm::errorToBool(BackendPatternConfig("a")
                                    .setInputRole(InputRole::Weight, {1, 1})
                                    .validate()));
}

TEST(BackendConfig, TablesRoundTripThroughJSON) {
  for (llvm::StringRef name : getBackendConfigNames()) {
    SCOPED_TRACE(name.str());
    BackendConfig table = *getBackendConfig(name);
    Value json = backendConfigToJSON(table);
    std::string text = printJSON(json);
    llvm::Expected<BackendConfig> parsed =
        parseBackendConfigText(text, "t.json");
    ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
    EXPECT_TRUE(*parsed == table);
    EXPECT_EQ(printJSON(backendConfigToJSON(*parsed)), text);
  }
  EXPECT_FALSE(getBackendConfig("native"));
}

} // namespace
