//===- QConfigSupportTest.cpp - QConfig against dtype configs -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/QConfigSupport.h"
#include "qfx/Config/ConfigJSON.h"

#include "Golden.h"

#include "gtest/gtest.h"

using namespace qfx;
using llvm::json::Value;
using qfx::test::loadGolden;
using qfx::test::printJSON;

namespace {

/// Reads a DTYPE_CONFIG through a one-pattern backend config.
DTypeConfig parseDTypeConfig(const Value &value) {
  Value document = llvm::json::Object{
      {"configs",
       llvm::json::Array{llvm::json::Object{
           {"pattern", "op"}, {"dtype_configs", llvm::json::Array{value}}}}}};
  llvm::Expected<BackendConfig> config =
      parseBackendConfig(document, "qconfig_support.json");
  if (!config) {
    ADD_FAILURE() << llvm::toString(config.takeError());
    return DTypeConfig();
  }
  return config->getConfigs()[0].getDTypeConfigs()[0];
}

TEST(QConfigSupport, MatchesPyTorchPrepare) {
  Value golden = loadGolden("qconfig_support.json");
  const llvm::json::Object &root = *golden.getAsObject();
  std::map<std::string, QConfig> qconfigs;
  for (const auto &[name, value] : *root.getObject("qconfigs")) {
    llvm::Expected<QConfig> qconfig = parseQConfig(value, "golden");
    ASSERT_TRUE(bool(qconfig)) << llvm::toString(qconfig.takeError());
    qconfigs[name.str()] = *qconfig;
  }
  std::vector<DTypeConfig> dtypeConfigs;
  for (const Value &value : *root.getArray("dtype_configs"))
    dtypeConfigs.push_back(parseDTypeConfig(value));
  size_t supported = 0, rejected = 0;
  for (const Value &caseValue : *root.getArray("cases")) {
    const llvm::json::Array &row = *caseValue.getAsArray();
    const QConfig &qconfig = qconfigs.at(row[0].getAsString()->str());
    int64_t index = *row[1].getAsInteger();
    PatternOperands operands;
    operands.hasWeight = *row[2].getAsBoolean();
    operands.hasBias = *row[3].getAsBoolean();
    bool expected = *row[4].getAsBoolean();
    std::string why = whyQConfigDoesNotMatchDTypeConfig(
        qconfig, dtypeConfigs[index], operands);
    EXPECT_EQ(why.empty(), expected)
        << printJSON(caseValue) << " dtype config "
        << printJSON(root.getArray("dtype_configs")->operator[](index)) << ": "
        << why;
    ++(expected ? supported : rejected);
  }
  // Both outcomes are exercised.
  EXPECT_GT(supported, 50u);
  EXPECT_GT(rejected, 50u);
}

DTypeWithConstraints constrained(DType dtype, std::optional<int64_t> min,
                                 std::optional<int64_t> max,
                                 std::optional<double> scaleMin = {}) {
  DTypeWithConstraints d(dtype);
  d.quantMinLowerBound = min;
  d.quantMaxUpperBound = max;
  d.scaleMinLowerBound = scaleMin;
  return d;
}

TEST(QConfigSupport, ReasonsNameTheFailedConstraint) {
  QConfig qconfig = *getQConfigPreset("default_qconfig");
  PatternOperands weighted{true, true};

  DTypeConfig qint8Input =
      DTypeConfig()
          .setInputDType(DTypeWithConstraints(DType::QInt8))
          .setOutputDType(DTypeWithConstraints(DType::QInt8));
  EXPECT_EQ(whyQConfigDoesNotMatchDTypeConfig(qconfig, qint8Input, {}),
            "input_dtype: the QConfig's activation dtype is quint8, the "
            "backend expects qint8");

  DTypeConfig narrowRange =
      DTypeConfig()
          .setInputDType(constrained(DType::QUInt8, 0, 63))
          .setOutputDType(DTypeWithConstraints(DType::QUInt8));
  EXPECT_EQ(whyQConfigDoesNotMatchDTypeConfig(qconfig, narrowRange, {}),
            "input_dtype: the QConfig's activation range [0, 127] is not "
            "within the backend's quant_min_lower_bound 0 / "
            "quant_max_upper_bound 63");

  DTypeConfig symmetricWeight =
      DTypeConfig()
          .setInputDType(DTypeWithConstraints(DType::QUInt8))
          .setOutputDType(DTypeWithConstraints(DType::QUInt8))
          .setWeightDType(constrained(DType::QInt8, -127, 127))
          .setBiasDType(DType::Float32);
  EXPECT_EQ(
      whyQConfigDoesNotMatchDTypeConfig(qconfig, symmetricWeight, weighted),
      "weight_dtype: the QConfig's weight range [-128, 127] is not "
      "within the backend's quant_min_lower_bound -127 / "
      "quant_max_upper_bound 127");
  // Without a weight operand the weight is not checked.
  EXPECT_EQ(whyQConfigDoesNotMatchDTypeConfig(qconfig, symmetricWeight, {}),
            "");

  DTypeConfig minScale =
      DTypeConfig()
          .setInputDType(constrained(DType::QUInt8, {}, {}, 0x1p-12))
          .setOutputDType(DTypeWithConstraints(DType::QUInt8));
  EXPECT_EQ(whyQConfigDoesNotMatchDTypeConfig(qconfig, minScale, {}),
            "input_dtype: the QConfig's activation eps 1.19209e-07 is below "
            "the backend's scale_min_lower_bound 0.000244141");

  DTypeConfig dynamic =
      DTypeConfig()
          .setInputDType(DTypeWithConstraints(DType::QUInt8))
          .setOutputDType(DTypeWithConstraints(DType::Float32))
          .setIsDynamic(true);
  EXPECT_EQ(whyQConfigDoesNotMatchDTypeConfig(qconfig, dynamic, {}),
            "is_dynamic: the backend expects dynamic quantization (an "
            "activation observer with compute_dtype), the QConfig is static");
}

TEST(QConfigSupport, TosaInt32Bias) {
  std::optional<BackendConfig> tosa = getBackendConfig("tosa");
  ASSERT_TRUE(tosa);
  const BackendPatternConfig *conv =
      tosa->lookup(llvm::ArrayRef<llvm::StringRef>{"tosa.conv2d"});
  ASSERT_TRUE(conv);
  // PyTorch's symmetric qnnpack qconfig: qint8 activations, weights in
  // [-127, 127].
  QConfig symmetric =
      *getQConfigPreset("default_per_channel_symmetric_qnnpack_qconfig");
  QConfigSupport support = checkQConfigSupport(symmetric, *conv);
  EXPECT_TRUE(support.isSupported()) << support.reason;
  EXPECT_EQ(support.dtypeConfigIndex, 0u);

  QConfigSupport x86 = checkQConfigSupport(*getDefaultQConfig("x86"), *conv);
  EXPECT_FALSE(x86.isSupported());
  EXPECT_EQ(x86.reason, "dtype_configs[0]: input_dtype: the QConfig's "
                        "activation dtype is quint8, the backend expects "
                        "qint8");

  QConfig fp16 = *getQConfigPreset("float16_static_qconfig");
  DTypeConfig int32Bias = conv->getDTypeConfigs()[0];
  int32Bias.inputDType.reset();
  int32Bias.outputDType.reset();
  int32Bias.weightDType.reset();
  EXPECT_EQ(whyQConfigDoesNotMatchDTypeConfig(fp16, int32Bias, {true, true}),
            "bias_dtype: a qint32 bias needs static 8-bit quantized "
            "activations and weights, the QConfig has activation float16 and "
            "weight float16");
}

TEST(QConfigSupport, PatternWithoutDTypeConfigs) {
  QConfigSupport support = checkQConfigSupport(
      *getQConfigPreset("default_qconfig"), BackendPatternConfig("tosa.add"));
  EXPECT_FALSE(support.isSupported());
  EXPECT_EQ(support.reason, "the pattern has no dtype configs");
}

} // namespace

namespace {

/// True for a weight-only pattern (an embedding): every dtype config takes
/// float activations.
bool isWeightOnly(const BackendPatternConfig &config) {
  return llvm::all_of(config.getDTypeConfigs(), [](const DTypeConfig &d) {
    return d.inputDType && d.inputDType->dtype == DType::Float32;
  });
}

/// True for a dynamic-only pattern (the recurrent modules).
bool isDynamicOnly(const BackendPatternConfig &config) {
  return llvm::all_of(config.getDTypeConfigs(), [](const DTypeConfig &d) {
    return d.isDynamic.value_or(false);
  });
}

/// Every pattern of table `name` accepts `qconfig` with one of its dtype
/// configs; the patterns PyTorch's default qconfigs do not quantize either
/// accept their own presets instead: weight-only ones (embeddings)
/// float_qparams_weight_only_qconfig and its 4-bit variant, dynamic-only
/// ones (recurrent modules) default_dynamic_qconfig.
void expectTableSupports(llvm::StringRef name, const QConfig &qconfig) {
  std::optional<BackendConfig> table = getBackendConfig(name);
  ASSERT_TRUE(table);
  for (const BackendPatternConfig &config : table->getConfigs()) {
    llvm::SmallVector<llvm::StringRef, 2> presets;
    if (isWeightOnly(config))
      presets = {"float_qparams_weight_only_qconfig",
                 "float_qparams_weight_only_qconfig_4bit"};
    else if (isDynamicOnly(config))
      presets = {"default_dynamic_qconfig"};
    if (!presets.empty()) {
      for (llvm::StringRef preset : presets)
        EXPECT_TRUE(checkQConfigSupport(*getQConfigPreset(preset), config)
                        .isSupported())
            << name.str() << " " << config.getPattern()[0] << ": "
            << preset.str();
      EXPECT_FALSE(checkQConfigSupport(qconfig, config).isSupported());
      continue;
    }
    QConfigSupport support = checkQConfigSupport(qconfig, config);
    EXPECT_TRUE(support.isSupported())
        << name.str() << " " << config.getPattern()[0] << ": "
        << support.reason;
  }
}

TEST(QConfigSupport, TablesAcceptTheirBackendsDefaultQConfig) {
  expectTableSupports("x86", *getDefaultQConfig("x86"));
  expectTableSupports("fbgemm", *getDefaultQConfig("fbgemm"));
  expectTableSupports("onednn", *getDefaultQConfig("onednn"));
  expectTableSupports("qnnpack", *getDefaultQConfig("qnnpack"));
  expectTableSupports("qnnpack",
                      *getQConfigPreset("default_symmetric_qnnpack_qconfig"));
  expectTableSupports(
      "tosa",
      *getQConfigPreset("default_per_channel_symmetric_qnnpack_qconfig"));
}

TEST(QConfigSupport, DynamicQConfigOnlyForLinear) {
  QConfig dynamic = *getQConfigPreset("default_dynamic_qconfig");
  std::optional<BackendConfig> x86 = getBackendConfig("x86");
  const BackendPatternConfig *linear =
      x86->lookup(llvm::ArrayRef<llvm::StringRef>{"tosa.matmul", "tosa.add"});
  ASSERT_TRUE(linear);
  QConfigSupport support = checkQConfigSupport(dynamic, *linear);
  EXPECT_EQ(support.dtypeConfigIndex, 1u) << support.reason;
  const BackendPatternConfig *conv =
      x86->lookup(llvm::ArrayRef<llvm::StringRef>{"tosa.conv2d"});
  ASSERT_TRUE(conv);
  EXPECT_EQ(checkQConfigSupport(dynamic, *conv).reason,
            "dtype_configs[0]: is_dynamic: the QConfig is dynamic (its "
            "activation observer has compute_dtype), the backend expects "
            "static quantization");
}

} // namespace
