//===- qfx-config-fuzzer.cpp - libFuzzer target for configuration JSON ----===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Parses arbitrary bytes as a QConfigMapping and as a BackendConfig. What
// parses must serialize and parse again to the same JSON (a failure there is
// a bug, reported as a crash).
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/ConfigJSON.h"

#include "llvm/Support/JSON.h"

#include <cstdlib>

namespace {
/// Parses `text` with `parse`; if it parses, checks the round trip through
/// `toJSON`.
template <typename Parse, typename ToJSON>
void checkRoundTrip(llvm::StringRef text, Parse parse, ToJSON toJSON) {
  auto config = parse(text, "fuzz.json");
  if (!config) {
    llvm::consumeError(config.takeError());
    return;
  }
  llvm::json::Value json = toJSON(*config);
  std::string printed;
  llvm::raw_string_ostream(printed) << json;
  auto again = parse(printed, "printed.json");
  if (!again) {
    llvm::errs() << "serialized config does not parse again: "
                 << llvm::toString(again.takeError()) << "\n"
                 << printed << "\n";
    abort();
  }
  if (toJSON(*again) != json) {
    llvm::errs() << "serialized config parses to another one:\n"
                 << printed << "\n";
    abort();
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  checkRoundTrip(text, qfx::parseQConfigMappingText, qfx::qconfigMappingToJSON);
  checkRoundTrip(text, qfx::parseBackendConfigText, qfx::backendConfigToJSON);
  return 0;
}
