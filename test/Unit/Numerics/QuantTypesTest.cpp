//===- QuantTypesTest.cpp - dtype and qscheme names and ranges ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/QuantTypes.h"

#include "gtest/gtest.h"

using namespace qfx;

TEST(QuantTypes, DTypeNamesRoundTrip) {
  for (DType dtype : {DType::QUInt8, DType::QInt8, DType::QInt32,
                      DType::QUInt4x2, DType::Float16, DType::Float32})
    EXPECT_EQ(symbolizeDType(stringifyDType(dtype)), dtype);
  EXPECT_EQ(symbolizeDType("float"), DType::Float32);
  EXPECT_EQ(symbolizeDType("half"), DType::Float16);
  EXPECT_EQ(symbolizeDType("torch.quint8"), std::nullopt);
  EXPECT_EQ(symbolizeDType("int8"), std::nullopt);
}

TEST(QuantTypes, DTypeRanges) {
  EXPECT_EQ(getDTypeRange(DType::QUInt8), (QuantRange{0, 255}));
  EXPECT_EQ(getDTypeRange(DType::QInt8), (QuantRange{-128, 127}));
  EXPECT_EQ(getDTypeRange(DType::QInt32),
            (QuantRange{-2147483648LL, 2147483647LL}));
  EXPECT_EQ(getDTypeRange(DType::QUInt4x2), (QuantRange{0, 15}));
  EXPECT_FALSE(isQuantizedDType(DType::Float16));
  EXPECT_TRUE(isQuantizedDType(DType::QUInt4x2));
}

TEST(QuantTypes, QSchemes) {
  for (QScheme qscheme :
       {QScheme::PerTensorAffine, QScheme::PerTensorSymmetric,
        QScheme::PerChannelAffine, QScheme::PerChannelSymmetric,
        QScheme::PerChannelAffineFloatQParams})
    EXPECT_EQ(symbolizeQScheme(stringifyQScheme(qscheme)), qscheme);
  EXPECT_TRUE(isPerChannel(QScheme::PerChannelAffineFloatQParams));
  EXPECT_FALSE(isPerChannel(QScheme::PerTensorSymmetric));
  EXPECT_TRUE(isSymmetric(QScheme::PerChannelSymmetric));
  EXPECT_FALSE(isSymmetric(QScheme::PerChannelAffineFloatQParams));
}
