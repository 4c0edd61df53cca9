//===- qfx-npy-fuzzer.cpp - libFuzzer target for .npy parsing -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Parses arbitrary bytes as a .npy file. A parsed array must hold exactly the
// bytes its dtype and shape need: a mismatch is a reader bug, reported as a
// crash.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Npy.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<qfx::NpyArray> array = qfx::parseNpy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.npy");
  if (!array) {
    llvm::consumeError(array.takeError());
    return 0;
  }
  std::optional<int64_t> bytes =
      qfx::getNpyByteCount(array->dtype, array->shape);
  if (!bytes || static_cast<uint64_t>(*bytes) != array->getNumBytes())
    abort();
  return 0;
}
