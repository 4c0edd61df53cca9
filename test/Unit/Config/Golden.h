//===- Golden.h - Golden data generated from PyTorch ------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Loads the JSON files utils/golden/gen_config_golden.py writes into
// test/Unit/Config/golden.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_TEST_UNIT_CONFIG_GOLDEN_H
#define QFX_TEST_UNIT_CONFIG_GOLDEN_H

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

namespace qfx::test {

/// The parsed golden file `name`; fails the test (and returns null) if it
/// cannot be read or parsed.
inline llvm::json::Value loadGolden(llvm::StringRef name) {
  std::string path = (llvm::Twine(QFX_CONFIG_GOLDEN_DIR) + "/" + name).str();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    ADD_FAILURE() << "cannot read " << path << ": "
                  << buffer.getError().message();
    return nullptr;
  }
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*buffer)->getBuffer());
  if (!value) {
    ADD_FAILURE() << path << ": " << llvm::toString(value.takeError());
    return nullptr;
  }
  return std::move(*value);
}

/// Prints a JSON value compactly, for failure messages.
inline std::string printJSON(const llvm::json::Value &value) {
  return llvm::formatv("{0}", value).str();
}

} // namespace qfx::test

#endif // QFX_TEST_UNIT_CONFIG_GOLDEN_H
