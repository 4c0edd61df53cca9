//===- QConfigTest.cpp - QConfig presets against PyTorch ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/QConfig.h"
#include "qfx/Config/ConfigJSON.h"

#include "Golden.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

using namespace qfx;
using qfx::test::loadGolden;
using qfx::test::printJSON;

namespace {

TEST(QConfigPresets, MatchPyTorch) {
  llvm::json::Value golden = loadGolden("qconfig_presets.json");
  const llvm::json::Object *presets =
      golden.getAsObject()->getObject("presets");
  ASSERT_TRUE(presets);
  EXPECT_EQ(presets->size(), getQConfigPresetNames().size());
  for (llvm::StringRef name : getQConfigPresetNames()) {
    SCOPED_TRACE(name.str());
    std::optional<QConfig> preset = getQConfigPreset(name);
    ASSERT_TRUE(preset);
    EXPECT_FALSE(llvm::errorToBool(preset->validate()));
    const llvm::json::Value *expected = presets->get(name);
    ASSERT_TRUE(expected) << "PyTorch has no preset " << name.str();
    EXPECT_EQ(qconfigToJSON(*preset), *expected)
        << "qfx:     " << printJSON(qconfigToJSON(*preset))
        << "\nPyTorch: " << printJSON(*expected);
  }
}

TEST(QConfigPresets, DefaultQConfigMatchesPyTorch) {
  llvm::json::Value golden = loadGolden("qconfig_presets.json");
  const llvm::json::Object *defaults =
      golden.getAsObject()->getObject("get_default_qconfig");
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->size(), getDefaultQConfigBackendNames().size());
  for (llvm::StringRef backend : getDefaultQConfigBackendNames()) {
    SCOPED_TRACE(backend.str());
    std::optional<QConfig> qconfig = getDefaultQConfig(backend);
    ASSERT_TRUE(qconfig);
    const llvm::json::Value *expected = defaults->get(backend);
    ASSERT_TRUE(expected);
    EXPECT_EQ(qconfigToJSON(*qconfig), *expected);
  }
}

TEST(QConfigPresets, UnknownNames) {
  EXPECT_FALSE(getQConfigPreset("default_qat_qconfig"));
  EXPECT_FALSE(getQConfigPreset(""));
  EXPECT_FALSE(getDefaultQConfig("tensorrt"));
}

TEST(QConfig, ValidateNamesTheObserver) {
  QConfig qconfig = *getQConfigPreset("default_qconfig");
  qconfig.weight.quantMin = 10;
  qconfig.weight.quantMax = 5;
  llvm::Error err = qconfig.validate();
  ASSERT_TRUE(bool(err));
  EXPECT_TRUE(
      llvm::StringRef(llvm::toString(std::move(err))).starts_with("weight: "));
}

} // namespace
