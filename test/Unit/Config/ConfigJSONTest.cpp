//===- ConfigJSONTest.cpp - Configuration files ---------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/ConfigJSON.h"

#include "Golden.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace qfx;
using llvm::json::Value;
using qfx::test::printJSON;

namespace {

std::string mappingError(llvm::StringRef text) {
  llvm::Expected<QConfigMapping> mapping =
      parseQConfigMappingText(text, "mapping.json");
  if (mapping)
    return "no error";
  return llvm::toString(mapping.takeError());
}

std::string backendError(llvm::StringRef text) {
  llvm::Expected<BackendConfig> config =
      parseBackendConfigText(text, "backend.json");
  if (config)
    return "no error";
  return llvm::toString(config.takeError());
}

/// A mapping that uses every section, null QConfigs and presets.
constexpr llvm::StringLiteral kMapping = R"json({
  "": "default_qconfig",
  "object_type": [["tosa.conv2d", "default_per_channel_qconfig"],
                  ["torch.nn.Linear", null]],
  "module_name_regex": [["features\\.\\d+", {
      "activation": {"observer": "HistogramObserver", "reduce_range": true,
                     "bins": 1024},
      "weight": {"observer": "PerChannelMinMaxObserver", "dtype": "qint8",
                 "qscheme": "per_channel_symmetric", "ch_axis": 1,
                 "quant_min": -127, "quant_max": 127, "eps": 0.000244140625}}]],
  "module_name": [["classifier", null], ["features", "default_dynamic_qconfig"]],
  "module_name_object_type_order": [["features.0", "tosa.matmul", 1, null]]
})json";

TEST(ConfigJSON, QConfigMappingRoundTrip) {
  llvm::Expected<QConfigMapping> mapping =
      parseQConfigMappingText(kMapping, "mapping.json");
  ASSERT_TRUE(bool(mapping)) << llvm::toString(mapping.takeError());
  EXPECT_EQ(mapping->getObjectTypeEntries().size(), 2u);
  EXPECT_FALSE(mapping->getObjectTypeEntries()[1].qconfig);
  EXPECT_EQ(mapping->getModuleNameRegexEntries()[0].qconfig->weight.chAxis, 1);
  EXPECT_EQ(mapping->getModuleNameObjectTypeOrderEntries()[0].index, 1);

  // Written, read and written again: the same document and text.
  Value written = qconfigMappingToJSON(*mapping);
  std::string text = printJSON(written);
  llvm::Expected<QConfigMapping> reread =
      parseQConfigMappingText(text, "written.json");
  ASSERT_TRUE(bool(reread)) << llvm::toString(reread.takeError());
  EXPECT_TRUE(*reread == *mapping);
  EXPECT_EQ(printJSON(qconfigMappingToJSON(*reread)), text);

  // Presets are written out in full.
  const llvm::json::Object &object = *written.getAsObject();
  EXPECT_EQ(*object.get(""),
            qconfigToJSON(*getQConfigPreset("default_qconfig")));
}

TEST(ConfigJSON, ObserverKeepsOnlyTheArgumentsGiven) {
  ObserverSpec spec(ObserverKind::MovingAverageMinMax);
  spec.averagingConstant = 0.5;
  spec.dtype = DType::QInt8;
  Value json = observerSpecToJSON(spec);
  EXPECT_EQ(printJSON(json), R"({"averaging_constant":0.5,"dtype":"qint8",)"
                             R"("observer":"MovingAverageMinMaxObserver"})");
  llvm::Expected<ObserverSpec> parsed = parseObserverSpec(json, "");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, spec);
  EXPECT_FALSE(parsed->quantMin.has_value());
}

TEST(ConfigJSON, PresetStrings) {
  llvm::Expected<QConfigMapping> x86 =
      parseQConfigMappingText(R"("default:x86")", "m.json");
  ASSERT_TRUE(bool(x86)) << llvm::toString(x86.takeError());
  EXPECT_TRUE(*x86 == *getDefaultQConfigMapping("x86"));
  llvm::Expected<QConfigMapping> loaded = loadQConfigMapping("default:qnnpack");
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  EXPECT_TRUE(*loaded == *getDefaultQConfigMapping("qnnpack"));
  llvm::Expected<BackendConfig> tosa = loadBackendConfig("tosa");
  ASSERT_TRUE(bool(tosa)) << llvm::toString(tosa.takeError());
  EXPECT_EQ(tosa->getName(), "tosa");
}

TEST(ConfigJSON, LoadFromFiles) {
  llvm::SmallString<128> mappingPath, backendPath;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("qfx-mapping", "json", fd,
                                                  mappingPath));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << kMapping;
  }
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("qfx-backend", "json", fd,
                                                  backendPath));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << printJSON(backendConfigToJSON(*getBackendConfig("qnnpack")));
  }
  llvm::Expected<QConfigMapping> mapping = loadQConfigMapping(mappingPath);
  EXPECT_TRUE(bool(mapping)) << llvm::toString(mapping.takeError());
  llvm::Expected<BackendConfig> backend = loadBackendConfig(backendPath);
  ASSERT_TRUE(bool(backend)) << llvm::toString(backend.takeError());
  EXPECT_TRUE(*backend == *getBackendConfig("qnnpack"));
  llvm::sys::fs::remove(mappingPath);
  llvm::sys::fs::remove(backendPath);
}

TEST(ConfigJSONErrors, MissingFile) {
  llvm::Expected<QConfigMapping> mapping =
      loadQConfigMapping("/nonexistent/qconfig.json");
  ASSERT_FALSE(bool(mapping));
  EXPECT_EQ(llvm::toString(mapping.takeError()),
            "/nonexistent/qconfig.json: cannot read the qconfig mapping (a "
            "JSON file or one of default:x86, default:fbgemm, "
            "default:qnnpack, default:onednn): No such file or directory");
  llvm::Expected<BackendConfig> backend = loadBackendConfig("x86.json");
  ASSERT_FALSE(bool(backend));
  EXPECT_EQ(llvm::toString(backend.takeError()),
            "x86.json: cannot read the backend config (a JSON file or one of "
            "x86, fbgemm, qnnpack, onednn, tosa): No such file or directory");
}

TEST(ConfigJSONErrors, MalformedJSON) {
  EXPECT_EQ(mappingError(R"({"": null,)"),
            "mapping.json: invalid JSON: [1:10, byte=10]: Expected object "
            "key");
  EXPECT_EQ(backendError("[1, 2"),
            "backend.json: invalid JSON: [1:5, byte=5]: Expected , or ] "
            "after array element");
}

TEST(ConfigJSONErrors, UnknownKeys) {
  EXPECT_EQ(mappingError(R"({"objecttype": []})"),
            "mapping.json: unknown key \"objecttype\" in a qconfig mapping; "
            "expected \"\", \"object_type\", \"module_name_regex\", "
            "\"module_name\", \"module_name_object_type_order\"");
  EXPECT_EQ(mappingError(R"({"": {"activation": {"observer": "MinMaxObserver",
                                                "dtyp": "qint8"},
                                 "weight": {"observer": "NoopObserver"}}})"),
            "mapping.json: \"\".activation: unknown key \"dtyp\" in an "
            "observer; expected observer, dtype, qscheme, reduce_range, "
            "quant_min, quant_max, eps, ch_axis, averaging_constant, bins, "
            "upsample_rate, scale, zero_point, compute_dtype");
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": "tosa.add",
                                         "dtype_configs": [{"input": "qint8"}]}]})"),
            "backend.json: configs[0].dtype_configs[0]: unknown key "
            "\"input\" in a dtype config; expected \"input_dtype\", "
            "\"output_dtype\", \"weight_dtype\", \"bias_dtype\", "
            "\"is_dynamic\"");
  EXPECT_EQ(backendError(R"({"name": "b", "patterns": []})"),
            "backend.json: unknown key \"patterns\" in a backend config; "
            "expected \"name\", \"configs\"");
}

TEST(ConfigJSONErrors, UnknownObserverAndArguments) {
  EXPECT_EQ(mappingError(R"({"object_type": [["tosa.add",
      {"activation": {"observer": "MinMaxObsrver"},
       "weight": {"observer": "NoopObserver"}}]]})"),
            "mapping.json: object_type[0][1].activation.observer: unknown "
            "observer 'MinMaxObsrver'; expected one of MinMaxObserver, "
            "MovingAverageMinMaxObserver, PerChannelMinMaxObserver, "
            "MovingAveragePerChannelMinMaxObserver, HistogramObserver, "
            "PlaceholderObserver, NoopObserver, FixedQParamsObserver, "
            "ReuseInputObserver");
  EXPECT_EQ(mappingError(R"({"": {"activation": {"observer": "MinMaxObserver",
                                                "ch_axis": 1},
                                 "weight": {"observer": "NoopObserver"}}})"),
            "mapping.json: \"\".activation.ch_axis: MinMaxObserver takes no "
            "argument 'ch_axis'");
  EXPECT_EQ(mappingError(R"({"": {"activation": {"observer": "MinMaxObserver",
                                                "quant_min": "0"},
                                 "weight": {"observer": "NoopObserver"}}})"),
            "mapping.json: \"\".activation.quant_min: expected quant_min (an "
            "integer), got \"0\"");
  EXPECT_EQ(
      mappingError(R"({"": {"activation": {"observer": "MinMaxObserver"}}})"),
      "mapping.json: \"\": missing key \"weight\" in a qconfig");
  EXPECT_EQ(mappingError(R"({"": "default_qat_qconfig"})"),
            "mapping.json: \"\": unknown qconfig preset "
            "'default_qat_qconfig'; expected one of default_qconfig, "
            "default_per_channel_qconfig, default_dynamic_qconfig, "
            "float16_dynamic_qconfig, float16_static_qconfig, "
            "per_channel_dynamic_qconfig, float_qparams_weight_only_qconfig, "
            "float_qparams_weight_only_qconfig_4bit, "
            "default_reuse_input_qconfig, default_symmetric_qnnpack_qconfig, "
            "default_per_channel_symmetric_qnnpack_qconfig");
  EXPECT_EQ(mappingError(R"("default:tensorrt")"),
            "mapping.json: unknown qconfig mapping preset 'default:tensorrt'; "
            "expected one of default:x86, default:fbgemm, default:qnnpack, "
            "default:onednn");
}

TEST(ConfigJSONErrors, UnknownDTypes) {
  EXPECT_EQ(backendError(R"({"configs": [
      {"pattern": "tosa.add"}, {"pattern": "tosa.mul"},
      {"pattern": "tosa.sub"},
      {"pattern": ["tosa.conv2d", "tosa.clamp"],
       "dtype_configs": [{"input_dtype": "qint16"}]}]})"),
            "backend.json: configs[3].dtype_configs[0].input_dtype: unknown "
            "dtype 'qint16'; expected one of quint8, qint8, qint32, quint4x2, "
            "float16, float32");
  EXPECT_EQ(mappingError(R"({"": {"activation": {"observer": "MinMaxObserver",
                                                "qscheme": "per_tensor"},
                                 "weight": {"observer": "NoopObserver"}}})"),
            "mapping.json: \"\".activation.qscheme: unknown qscheme "
            "'per_tensor'; expected one of per_tensor_affine, "
            "per_tensor_symmetric, per_channel_affine, per_channel_symmetric, "
            "per_channel_affine_float_qparams");
}

TEST(ConfigJSONErrors, BadRanges) {
  EXPECT_EQ(mappingError(R"({"module_name": [["m", {
      "activation": {"observer": "MinMaxObserver"},
      "weight": {"observer": "MinMaxObserver", "dtype": "qint8",
                 "quant_min": 5, "quant_max": 5}}]]})"),
            "mapping.json: module_name[0][1].weight: minmax observer: "
            "expected quant_min < quant_max, got [5, 5]");
  EXPECT_EQ(mappingError(R"({"module_name": [["m", {
      "activation": {"observer": "MinMaxObserver"},
      "weight": {"observer": "MinMaxObserver", "dtype": "qint8",
                 "quant_min": -200, "quant_max": 127}}]]})"),
            "mapping.json: module_name[0][1].weight: minmax observer: the "
            "range [-200, 127] is outside qint8's range [-128, 127]");
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": "tosa.add",
      "dtype_configs": [{"weight_dtype": {"dtype": "qint8",
                                          "quant_min_lower_bound": -129}}]}]})"),
            "backend.json: configs[0].dtype_configs[0].weight_dtype: "
            "quant_min_lower_bound -129 is outside qint8's range [-128, 127]");
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": "tosa.add",
      "dtype_configs": [{"input_dtype": {"dtype": "quint8",
                                         "quant_min_lower_bound": 10,
                                         "quant_max_upper_bound": 10}}]}]})"),
            "backend.json: configs[0].dtype_configs[0].input_dtype: expected "
            "quant_min_lower_bound < quant_max_upper_bound, got 10 and 10");
}

TEST(ConfigJSONErrors, NumbersOutOfRange) {
  // 2^63 written as a double: llvm::json alone would convert it to int64_t.
  EXPECT_EQ(mappingError(R"({"module_name": [["m", {
      "activation": {"observer": "MinMaxObserver", "quant_min": 0,
                     "quant_max": 9.223372036854775808e18},
      "weight": {"observer": "MinMaxObserver", "dtype": "qint8"}}]]})"),
            "mapping.json: module_name[0][1].activation.quant_max: expected "
            "quant_max (an integer), got 9.2233720368547758e+18, which does "
            "not fit in 64 bits");
  EXPECT_EQ(mappingError(R"({"module_name_object_type_order":
      [["m", "t", -1e300, null]]})"),
            "mapping.json: module_name_object_type_order[0][2]: expected an "
            "order index (an integer), got -1.0000000000000001e+300, which "
            "does not fit in 64 bits");
  // The largest integers still read as integers (and fail range checks).
  EXPECT_EQ(mappingError(R"({"module_name_object_type_order":
      [["m", "t", 9223372036854775807, null]]})"),
            "no error");
  EXPECT_EQ(mappingError(R"({"module_name": [["m", {
      "activation": {"observer": "MinMaxObserver",
                     "quant_min": -9223372036854775808, "quant_max": 0},
      "weight": {"observer": "MinMaxObserver", "dtype": "qint8"}}]]})"),
            "mapping.json: module_name[0][1].activation: minmax observer: the "
            "range [-9223372036854775808, 0] is outside quint8's range "
            "[0, 255]");
  // An operand index that would wrap when narrowed to unsigned.
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": "tosa.conv2d",
      "input_roles": {"weight": [0, 4294967297]}}]})"),
            "backend.json: configs[0].input_roles.weight[1]: expected an "
            "index in [0, 2^32), got 4294967297");
  // A histogram's size: bins, and bins * upsample_rate cells when re-binned.
  EXPECT_EQ(mappingError(R"({"module_name": [["m", {
      "activation": {"observer": "HistogramObserver", "bins": 1073741824},
      "weight": {"observer": "MinMaxObserver", "dtype": "qint8"}}]]})"),
            "mapping.json: module_name[0][1].activation: histogram observer: "
            "expected bins < 2^30, got 1073741824");
  EXPECT_EQ(mappingError(R"({"module_name": [["m", {
      "activation": {"observer": "HistogramObserver",
                     "upsample_rate": 9223372036854775807},
      "weight": {"observer": "MinMaxObserver", "dtype": "qint8"}}]]})"),
            "mapping.json: module_name[0][1].activation: histogram observer: "
            "expected bins * upsample_rate <= 2^32, got 2048 * "
            "9223372036854775807");
}

TEST(ConfigJSONErrors, InvalidRegex) {
  EXPECT_EQ(mappingError(R"({"module_name_regex": [["conv[0-9", null]]})"),
            "mapping.json: module_name_regex[0][0]: regex 'conv[0-9': "
            "unterminated [...]");
  EXPECT_EQ(
      mappingError(R"({"module_name_regex": [["a", null], ["(b", null]]})"),
      "mapping.json: module_name_regex[1][0]: invalid regex '(b': "
      "parentheses not balanced");
  EXPECT_EQ(
      mappingError(R"json({"module_name_regex": [["(?P<x>a)", null]]})json"),
      "mapping.json: module_name_regex[0][0]: regex '(?P<x>a)': (?...) "
      "groups are not supported");
}

TEST(ConfigJSONErrors, BadEntries) {
  EXPECT_EQ(
      mappingError(R"({"module_name_object_type_order": [["m", "t", null]]})"),
      "mapping.json: module_name_object_type_order[0]: expected [NAME, "
      "TYPE, INDEX, QCONFIG|null], got 3 elements");
  EXPECT_EQ(mappingError(
                R"({"module_name_object_type_order": [["m", "t", -1, null]]})"),
            "mapping.json: module_name_object_type_order[0][2]: expected an "
            "order index >= 0, got -1");
  EXPECT_EQ(mappingError(R"({"object_type": {"tosa.add": null}})"),
            "mapping.json: object_type: expected a list (a JSON array), got "
            "an object");
  EXPECT_EQ(mappingError("42"), "mapping.json: expected a qconfig mapping or "
                                "a preset name (a JSON object), got 42");
}

TEST(ConfigJSONErrors, BadPatterns) {
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": ["tosa.matmul",
      "tosa.add", "tosa.clamp", "tosa.rescale"]}]})"),
            "backend.json: configs[0].pattern: expected 1 to 3 ops, got 4");
  EXPECT_EQ(backendError(R"({"configs": [{"observation_type":
      "output_use_different_observer_as_input"}]})"),
            "backend.json: configs[0]: missing key \"pattern\" in a backend "
            "pattern config");
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": "tosa.add",
      "observation_type": "share"}]})"),
            "backend.json: configs[0].observation_type: unknown observation "
            "type 'share'; expected output_use_different_observer_as_input "
            "or output_share_observer_with_input");
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": ["tosa.conv2d",
      "tosa.clamp"], "root_op": "tosa.matmul"}]})"),
            "backend.json: configs[0].root_op: 'tosa.matmul' is not an op of "
            "the pattern");
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": "tosa.conv2d",
      "input_roles": {"weight": [1, 1]}}]})"),
            "backend.json: configs[0].input_roles.weight: op index 1 is "
            "outside the pattern of 1 ops");
  EXPECT_EQ(backendError(R"({"configs": [{"pattern": "tosa.conv2d",
      "input_roles": {"scale": [0, 1]}}]})"),
            "backend.json: configs[0].input_roles: unknown key \"scale\" in "
            "input_roles; expected \"weight\", \"bias\"");
  EXPECT_EQ(backendError(R"("tensorrt")"),
            "backend.json: unknown backend config 'tensorrt'; expected one of "
            "x86, fbgemm, qnnpack, onednn, tosa");
}

} // namespace
