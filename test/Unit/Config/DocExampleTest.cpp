//===- DocExampleTest.cpp - The worked example of docs/Config.md ----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Checks what docs/Config.md says about its example mapping
// (Inputs/example_qconfig_mapping.json) with the tosa table.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/ConfigJSON.h"
#include "qfx/Config/QConfigSupport.h"

#include "gtest/gtest.h"

using namespace qfx;

namespace {

std::string presetName(const OptionalQConfig &qconfig) {
  if (!qconfig)
    return "null";
  for (llvm::StringRef name : getQConfigPresetNames())
    if (*getQConfigPreset(name) == *qconfig)
      return name.str();
  return "custom";
}

TEST(DocExample, Resolution) {
  llvm::Expected<QConfigMapping> mapping =
      loadQConfigMapping(QFX_CONFIG_INPUTS_DIR "/example_qconfig_mapping.json");
  ASSERT_TRUE(bool(mapping)) << llvm::toString(mapping.takeError());
  auto resolve = [&](llvm::StringRef moduleName, llvm::StringRef op,
                     llvm::StringRef origin, int64_t index) {
    QConfigQuery query(moduleName);
    query.addObjectType(op, index);
    if (!origin.empty())
      query.addObjectType(origin);
    return presetName(mapping->resolve(query));
  };
  EXPECT_EQ(resolve("stem.conv", "tosa.conv2d", "torch.nn.Conv2d", 0),
            "default_per_channel_symmetric_qnnpack_qconfig");
  EXPECT_EQ(resolve("head", "tosa.sigmoid", "", 0), "null");
  EXPECT_EQ(resolve("encoder.fc", "tosa.matmul", "torch.nn.Linear", 0),
            "custom");
  EXPECT_EQ(
      resolve("encoder.layer3.attn.q", "tosa.matmul", "torch.nn.Linear", 0),
      "null");
  EXPECT_EQ(resolve("encoder.layer3.attn_out", "tosa.add", "", 0), "null");
  EXPECT_EQ(resolve("decoder", "tosa.conv2d", "", 0), "null");
  EXPECT_EQ(resolve("decoder", "tosa.conv2d", "", 1),
            "default_symmetric_qnnpack_qconfig");
  EXPECT_EQ(resolve("decoder.up1", "tosa.conv2d", "", 0),
            "default_symmetric_qnnpack_qconfig");
  EXPECT_EQ(resolve("decoderX", "tosa.conv2d", "", 0),
            "default_per_channel_symmetric_qnnpack_qconfig");
}

TEST(DocExample, Support) {
  llvm::Expected<QConfigMapping> mapping =
      loadQConfigMapping(QFX_CONFIG_INPUTS_DIR "/example_qconfig_mapping.json");
  ASSERT_TRUE(bool(mapping)) << llvm::toString(mapping.takeError());
  llvm::Expected<BackendConfig> tosa = loadBackendConfig("tosa");
  ASSERT_TRUE(bool(tosa)) << llvm::toString(tosa.takeError());
  const BackendPatternConfig *linear =
      tosa->lookup(llvm::ArrayRef<llvm::StringRef>{"tosa.matmul", "tosa.add"});
  ASSERT_TRUE(linear);
  QConfigQuery query("encoder.fc");
  query.addObjectType("tosa.matmul", 0).addObjectType("torch.nn.Linear");
  EXPECT_TRUE(
      checkQConfigSupport(*mapping->resolve(query), *linear).isSupported());

  QConfigSupport x86 = checkQConfigSupport(*getDefaultQConfig("x86"), *linear);
  EXPECT_EQ(x86.reason, "dtype_configs[0]: input_dtype: the QConfig's "
                        "activation dtype is quint8, the backend expects "
                        "qint8");
}

} // namespace
