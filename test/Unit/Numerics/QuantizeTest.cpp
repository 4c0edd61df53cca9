//===- QuantizeTest.cpp - Quantize, dequantize and fake-quantize ----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/Quantize.h"

#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

using namespace qfx;

#include <cmath>
#include <limits>
#include <random>

namespace {

const QuantRange kQUInt8 = getDTypeRange(DType::QUInt8);
const QuantRange kQInt8 = getDTypeRange(DType::QInt8);

TEST(Quantize, RoundsHalfToEvenBeforeAddingTheZeroPoint) {
  // x * (1 / 0.5) lands exactly on .5 ties.
  EXPECT_EQ(quantizeValue(0.25f, 0.5, 0, kQInt8), 0);   // 0.5 -> 0
  EXPECT_EQ(quantizeValue(0.75f, 0.5, 0, kQInt8), 2);   // 1.5 -> 2
  EXPECT_EQ(quantizeValue(1.25f, 0.5, 0, kQInt8), 2);   // 2.5 -> 2
  EXPECT_EQ(quantizeValue(-1.25f, 0.5, 0, kQInt8), -2); // -2.5 -> -2
  // The zero point is added after rounding: 2.5 -> 2, + 3 = 5 (rounding after
  // adding would give round(5.5) = 6).
  EXPECT_EQ(quantizeValue(1.25f, 0.5, 3, kQInt8), 5);
}

TEST(Quantize, MultipliesByTheFloatReciprocal) {
  // fbgemm's example: 0.273939937 / 0.00214854861 is 127.499992 by
  // division, but 127.5 (-> 128) with the float reciprocal.
  EXPECT_EQ(quantizeValue(0.273939937f, 0.00214854861, 0, kQUInt8), 128);
}

TEST(Quantize, ClampsToTheRange) {
  EXPECT_EQ(quantizeValue(1e6f, 0.1, 0, kQUInt8), 255);
  EXPECT_EQ(quantizeValue(-1e6f, 0.1, 10, kQUInt8), 0);
  EXPECT_EQ(quantizeValue(100.0f, 1.0, 0, QuantRange{-8, 7}), 7);
  // Beyond int64, aten's float -> int64 conversion gives INT64_MIN on x86.
  EXPECT_EQ(quantizeValue(3e38f, 1e-3, 0, kQInt8), -128);
  EXPECT_EQ(quantizeValue(std::nanf(""), 1.0, 5, kQUInt8), 0);
}

TEST(Quantize, DequantizeComputesInFloat) {
  EXPECT_EQ(dequantizeValue(130, 0.1, 128), 2 * 0.1f);
  EXPECT_EQ(dequantizeValue(-3, 0.5, 0), -1.5f);
  EXPECT_EQ(dequantizeValueFloatQParams(5, 0.5f, 1.0f), 2.0f);
}

TEST(Quantize, VectorDequantizeRoundsOnceAfterThePremultipliedZeroPoint) {
  // fma(s, q, s * -z): one rounding where (q - z) * s has one too, of
  // another value (found by search over random scales; PyTorch's
  // leaky_qrelu kernel gives the fma's).
  float scale = llvm::bit_cast<float>(uint32_t{1040372302}); // 0.1277553...
  EXPECT_EQ(dequantizeValueFma(69, scale, 130), -7.79307746887207f);
  EXPECT_EQ(dequantizeValue(69, scale, 130), -7.7930779457092285f);
  EXPECT_EQ(dequantizeValueFma(130, 0.5f, 128), 1.0f);
}

TEST(Quantize, FakeQuantizeMatchesQuantizeThenDequantizeFor8Bit) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0, 3);
  for (int i = 0; i < 10000; ++i) {
    float x = dist(rng);
    float scale = 0.0213f;
    int64_t q = quantizeValue(x, scale, 128, kQUInt8);
    EXPECT_EQ(fakeQuantizeValue(x, scale, 128, kQUInt8),
              dequantizeValue(q, scale, 128));
  }
}

TEST(Quantize, PerTensorChecksItsArguments) {
  std::vector<float> in(4, 1.0f);
  std::vector<int32_t> out(4);
  std::vector<int32_t> shortOut(3);
  EXPECT_TRUE(llvm::errorToBool(
      quantizePerTensor(in, AffineQParams{0.1, 0, kQUInt8}, shortOut)));
  EXPECT_TRUE(llvm::errorToBool(
      quantizePerTensor(in, AffineQParams{0.0, 0, kQUInt8}, out)));
  EXPECT_TRUE(llvm::errorToBool(quantizePerTensor(
      in, AffineQParams{std::numeric_limits<double>::infinity(), 0, kQUInt8},
      out)));
  llvm::Error err =
      quantizePerTensor(in, AffineQParams{0.1, 300, kQUInt8}, out);
  ASSERT_TRUE(!!err);
  EXPECT_NE(llvm::toString(std::move(err)).find("zero point 300"),
            std::string::npos);
  EXPECT_FALSE(llvm::errorToBool(
      quantizePerTensor(in, AffineQParams{0.1, 0, kQUInt8}, out)));
  EXPECT_EQ(out[0], 10);
}

TEST(Quantize, PerChannelFollowsTheAxis) {
  // A [2, 3] tensor, channels along axis 1 and, equivalently, axis -1.
  std::vector<float> in = {1, 2, 3, -1, -2, -3};
  std::vector<double> scales = {1.0, 0.5, 0.25};
  std::vector<int64_t> zps = {0, 1, 2};
  for (int64_t axis : {1, -1}) {
    std::vector<int32_t> q(6);
    PerChannelQParams qparams{scales, zps, {}, axis, kQInt8};
    ASSERT_FALSE(llvm::errorToBool(quantizePerChannel(in, {2, 3}, qparams, q)));
    EXPECT_EQ(q, (std::vector<int32_t>{1, 5, 14, -1, -3, -10}));
    std::vector<float> dq(6);
    ASSERT_FALSE(
        llvm::errorToBool(dequantizePerChannel(q, {2, 3}, qparams, dq)));
    EXPECT_EQ(dq, in);
  }
}

TEST(Quantize, PerChannelChecksItsArguments) {
  std::vector<float> in(6, 0.0f);
  std::vector<int32_t> q(6);
  std::vector<double> scales = {1.0, 1.0};
  std::vector<int64_t> zps = {0, 0};
  // Axis 1 has 3 channels, not 2.
  PerChannelQParams wrongCount{scales, zps, {}, 1, kQInt8};
  llvm::Error err = quantizePerChannel(in, {2, 3}, wrongCount, q);
  ASSERT_TRUE(!!err);
  EXPECT_NE(llvm::toString(std::move(err)).find("3 channels"),
            std::string::npos);
  PerChannelQParams badAxis{scales, zps, {}, 2, kQInt8};
  EXPECT_TRUE(llvm::errorToBool(quantizePerChannel(in, {2, 3}, badAxis, q)));
  PerChannelQParams ok{scales, zps, {}, 0, kQInt8};
  EXPECT_TRUE(llvm::errorToBool(quantizePerChannel(in, {2, 4}, ok, q)));
  std::vector<float> fzps = {0.0f, 0.0f};
  PerChannelQParams floatZps{scales, {}, fzps, 0, kQInt8};
  std::vector<float> out(6);
  EXPECT_TRUE(
      llvm::errorToBool(fakeQuantizePerChannel(in, {2, 3}, floatZps, out)));
}

} // namespace
