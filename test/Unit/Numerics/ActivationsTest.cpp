//===- ActivationsTest.cpp - qfx::geluAsPyTorch against PyTorch 1.13 ------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx::geluAsPyTorch equals PyTorch's F.gelu bit for bit on the inputs of
// golden/gelu_golden.json (utils/golden/gen_gelu_golden.py, which can also
// check qfx's compiled GELU on every float32), and it is not the erff
// formula qfx used before: the ConvNeXt input whose output lies on a
// rounding tie is one ulp apart.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/Activations.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace qfx;

namespace {

float fromBits(uint32_t bits) { return llvm::bit_cast<float>(bits); }
uint32_t toBits(float value) { return llvm::bit_cast<uint32_t>(value); }

TEST(ActivationsTest, GeluEqualsPyTorchsOnGoldenInputs) {
  auto buffer =
      llvm::MemoryBuffer::getFile(QFX_NUMERICS_GOLDEN_DIR "/gelu_golden.json");
  ASSERT_TRUE(buffer) << buffer.getError().message();
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object &golden = *parsed->getAsObject();
  const llvm::json::Array *inputs = golden.getArray("input");
  const llvm::json::Array *outputs = golden.getArray("gelu");
  ASSERT_TRUE(inputs && outputs);
  ASSERT_EQ(inputs->size(), outputs->size());
  ASSERT_GT(inputs->size(), 4000u);
  int bad = 0;
  for (size_t i = 0; i < inputs->size(); ++i) {
    float x = fromBits(static_cast<uint32_t>(*(*inputs)[i].getAsInteger()));
    uint32_t expected = static_cast<uint32_t>(*(*outputs)[i].getAsInteger());
    uint32_t actual = toBits(geluAsPyTorch(x));
    if (actual != expected && ++bad <= 3)
      ADD_FAILURE() << "gelu(" << x << " = 0x" << std::hex << toBits(x)
                    << "): PyTorch 0x" << expected << ", qfx 0x" << actual
                    << std::dec;
  }
  EXPECT_EQ(bad, 0);
}

TEST(ActivationsTest, GeluIsNotTheErffFormula) {
  // The value in ConvNeXt's second block (with the output scale
  // 0.016837881878018379, 1.7090450525283813 * (1 / scale) is exactly
  // 101.5, which rounds to 102; erff's result, one ulp less, to 101).
  float x = 1.7762668132781982f;
  EXPECT_EQ(toBits(geluAsPyTorch(x)), 0x3fdac1fdu);
  float erff = x * ((std::erf(x * fromBits(0x3f3504f3)) + 1.0f) * 0.5f);
  EXPECT_EQ(toBits(erff), 0x3fdac1fcu);
  EXPECT_EQ(geluAsPyTorch(0.0f), 0.0f);
  EXPECT_EQ(geluAsPyTorch(-10.0f), 0.0f);
  EXPECT_EQ(geluAsPyTorch(10.0f), 10.0f);
  EXPECT_TRUE(std::isnan(geluAsPyTorch(NAN)));
}

} // namespace
