//===- QConfigMappingTest.cpp - QConfig resolution ------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/QConfigMapping.h"
#include "qfx/Config/ConfigJSON.h"

#include "Golden.h"

#include "gtest/gtest.h"

using namespace qfx;
using qfx::test::loadGolden;
using qfx::test::printJSON;

namespace {

QConfig preset(llvm::StringRef name) { return *getQConfigPreset(name); }

/// The name of the preset `qconfig` equals, or "null" / "?" for tests.
std::string nameOf(const OptionalQConfig &qconfig) {
  if (!qconfig)
    return "null";
  for (llvm::StringRef name : getQConfigPresetNames())
    if (*getQConfigPreset(name) == *qconfig)
      return name.str();
  return "?";
}

TEST(QConfigMapping, PriorityOrder) {
  QConfigMapping mapping;
  mapping.setGlobal(preset("default_qconfig"))
      .setObjectType("tosa.conv2d", preset("default_per_channel_qconfig"))
      .setModuleNameRegex("block.*", preset("float16_static_qconfig"))
      .setModuleName("block1", preset("default_dynamic_qconfig"))
      .setModuleNameObjectTypeOrder("block1", "tosa.conv2d", 0, std::nullopt);
  auto resolve = [&](llvm::StringRef name, int64_t index) {
    return nameOf(mapping.resolve(
        QConfigQuery(name).addObjectType("tosa.conv2d", index)));
  };
  EXPECT_EQ(resolve("top", 0), "default_per_channel_qconfig");
  EXPECT_EQ(resolve("block0", 0), "float16_static_qconfig");
  EXPECT_EQ(resolve("block1", 1), "default_dynamic_qconfig");
  EXPECT_EQ(resolve("block1", 0), "null");
  EXPECT_EQ(nameOf(mapping.resolve(QConfigQuery("top").addObjectType("x"))),
            "default_qconfig");
}

TEST(QConfigMapping, ResettingAKeyKeepsItsPosition) {
  QConfigMapping mapping;
  mapping.setModuleNameRegex("a.*", preset("default_qconfig"))
      .setModuleNameRegex("a\\.b.*", preset("float16_static_qconfig"))
      .setModuleNameRegex("a.*", std::nullopt)
      .setObjectType("t1", preset("default_qconfig"))
      .setObjectType("t2", preset("default_qconfig"))
      .setObjectType("t1", std::nullopt);
  ASSERT_EQ(mapping.getModuleNameRegexEntries().size(), 2u);
  EXPECT_EQ(mapping.getModuleNameRegexEntries()[0].regex, "a.*");
  EXPECT_FALSE(mapping.getModuleNameRegexEntries()[0].qconfig);
  // The first registered regex still wins, with its new QConfig.
  EXPECT_EQ(nameOf(mapping.resolve(QConfigQuery("a.b.c"))), "null");
  ASSERT_EQ(mapping.getObjectTypeEntries().size(), 2u);
  EXPECT_EQ(mapping.getObjectTypeEntries()[0].objectType, "t1");
}

TEST(QConfigMapping, ParentModuleNamesApplyToChildren) {
  QConfigMapping mapping;
  mapping.setGlobal(preset("default_qconfig"))
      .setModuleName("features", preset("default_per_channel_qconfig"))
      .setModuleName("features.0", std::nullopt)
      .setModuleName("", preset("float16_static_qconfig"));
  EXPECT_EQ(nameOf(mapping.getModuleNameQConfig("features.1.conv", {})),
            "default_per_channel_qconfig");
  EXPECT_EQ(nameOf(mapping.getModuleNameQConfig("features.0.conv",
                                                preset("default_qconfig"))),
            "null");
  // A prefix that is not a dotted parent does not apply, and "" matches
  // nothing, as in PyTorch.
  EXPECT_EQ(nameOf(mapping.resolve(QConfigQuery("featuresX"))),
            "default_qconfig");
  EXPECT_EQ(nameOf(mapping.resolve(QConfigQuery(""))), "default_qconfig");
}

TEST(QConfigMapping, RegexIsAnchoredAtTheStartOnly) {
  QConfigMapping mapping;
  mapping.setModuleNameRegex("conv\\d", preset("default_qconfig"));
  EXPECT_EQ(nameOf(mapping.resolve(QConfigQuery("conv1.relu"))),
            "default_qconfig");
  EXPECT_EQ(nameOf(mapping.resolve(QConfigQuery("x.conv1"))), "null");
  EXPECT_FALSE(llvm::errorToBool(mapping.validate()));
}

TEST(QConfigMapping, LaterObjectTypesTakePriority) {
  QConfigMapping mapping;
  mapping.setObjectType("tosa.conv2d", preset("default_qconfig"))
      .setObjectType("torch.nn.Conv2d", preset("default_per_channel_qconfig"));
  QConfigQuery query("m");
  query.addObjectType("tosa.conv2d").addObjectType("torch.nn.Conv2d");
  EXPECT_EQ(nameOf(mapping.resolve(query)), "default_per_channel_qconfig");
  QConfigQuery unknownOrigin("m");
  unknownOrigin.addObjectType("tosa.conv2d").addObjectType("MyConv");
  EXPECT_EQ(nameOf(mapping.resolve(unknownOrigin)), "default_qconfig");
}

TEST(QConfigMapping, InvalidRegexFailsValidation) {
  QConfigMapping mapping;
  mapping.setModuleNameRegex("conv(", preset("default_qconfig"));
  EXPECT_TRUE(llvm::errorToBool(mapping.validate()));
  EXPECT_EQ(nameOf(mapping.resolve(QConfigQuery("conv("))), "null");
}

TEST(PythonRegex, Translation) {
  auto translate = [](llvm::StringRef regex) {
    llvm::Expected<std::string> result = translatePythonRegex(regex);
    return result ? *result : "error: " + llvm::toString(result.takeError());
  };
  EXPECT_EQ(translate("foo.*bar"), "^(foo.*bar)");
  EXPECT_EQ(translate("a|b"), "^(a|b)");
  EXPECT_EQ(translate(""), "^");
  EXPECT_EQ(translate("conv\\d+\\.x"), "^(conv[0-9]+\\.x)");
  EXPECT_EQ(translate("[\\w.]+\\S"), "^([A-Za-z0-9_.]+[^ \t\n\r\f\v])");
  EXPECT_EQ(translate("[]a]"), "^([]a])");
  EXPECT_EQ(translate("(?:a)"), "error: regex '(?:a)': (?...) groups are "
                                "not supported");
  EXPECT_EQ(translate("a*?"),
            "error: regex 'a*?': lazy quantifiers are not supported");
  EXPECT_EQ(translate("\\bx"), "error: regex '\\bx': the escape \\b is not "
                               "supported (qfx matches module names with "
                               "POSIX extended regexes)");
  EXPECT_EQ(translate("[a"), "error: regex '[a': unterminated [...]");
}

/// The query PyTorch's generate_qconfig_map makes for one golden row.
QConfigQuery queryFor(const llvm::json::Array &row) {
  llvm::StringRef kind = *row[0].getAsString();
  llvm::StringRef path = *row[1].getAsString();
  QConfigQuery query(path);
  if (kind == "call_function") {
    // The function, counted in the module it is called from, then the type
    // of that module.
    query.addObjectType(*row[2].getAsString(), *row[4].getAsInteger(), path)
        .addObjectType(*row[3].getAsString());
  } else if (kind == "call_module") {
    // The module's type, counted in its parent module.
    size_t dot = path.rfind('.');
    llvm::StringRef parent =
        dot == llvm::StringRef::npos ? "" : path.take_front(dot);
    query.addObjectType(*row[2].getAsString(), *row[3].getAsInteger(), parent);
  } else {
    // call_method: the method name, then the module's type; not counted.
    query.addObjectType(*row[2].getAsString())
        .addObjectType(*row[3].getAsString());
  }
  return query;
}

TEST(QConfigMapping, ResolutionMatchesPyTorch) {
  llvm::json::Value golden = loadGolden("resolution.json");
  const llvm::json::Object &root = *golden.getAsObject();
  const llvm::json::Array &qconfigs = *root.getArray("qconfigs");
  const llvm::json::Object &cases = *root.getObject("cases");
  ASSERT_EQ(cases.size(), 3u);
  size_t checked = 0;
  for (const auto &[caseName, caseValue] : cases) {
    SCOPED_TRACE(caseName.str());
    const llvm::json::Object &testCase = *caseValue.getAsObject();
    llvm::Expected<QConfigMapping> mapping =
        parseQConfigMapping(*testCase.get("mapping"), "resolution.json");
    ASSERT_TRUE(bool(mapping)) << llvm::toString(mapping.takeError());
    // The golden mapping is PyTorch's to_dict(); it reads back unchanged.
    EXPECT_EQ(qconfigMappingToJSON(*mapping), *testCase.get("mapping"));
    for (const llvm::json::Value &rowValue : *testCase.getArray("queries")) {
      const llvm::json::Array &row = *rowValue.getAsArray();
      OptionalQConfig resolved = mapping->resolve(queryFor(row));
      const llvm::json::Value &expectedIndex = row.back();
      llvm::json::Value expected =
          expectedIndex.kind() == llvm::json::Value::Null
              ? llvm::json::Value(nullptr)
              : qconfigs[*expectedIndex.getAsInteger()];
      EXPECT_EQ(qconfigToJSON(resolved), expected)
          << "query " << printJSON(rowValue)
          << "\nqfx:     " << printJSON(qconfigToJSON(resolved))
          << "\nPyTorch: " << printJSON(expected);
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);
}

TEST(QConfigMapping, DefaultMappingsMatchPyTorch) {
  llvm::json::Value golden = loadGolden("qconfig_mappings.json");
  const llvm::json::Object &mappings = *golden.getAsObject();
  EXPECT_EQ(mappings.size(), getDefaultQConfigMappingBackendNames().size());
  for (llvm::StringRef backend : getDefaultQConfigMappingBackendNames()) {
    SCOPED_TRACE(backend.str());
    std::optional<QConfigMapping> mapping = getDefaultQConfigMapping(backend);
    ASSERT_TRUE(mapping);
    EXPECT_FALSE(llvm::errorToBool(mapping->validate()));
    const llvm::json::Value *expected = mappings.get(backend);
    ASSERT_TRUE(expected);
    EXPECT_EQ(qconfigMappingToJSON(*mapping), *expected)
        << "qfx:     " << printJSON(qconfigMappingToJSON(*mapping))
        << "\nPyTorch: " << printJSON(*expected);
  }
  EXPECT_FALSE(getDefaultQConfigMapping("tosa"));
}

} // namespace
