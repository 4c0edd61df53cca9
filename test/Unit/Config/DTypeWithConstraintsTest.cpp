//===- DTypeWithConstraintsTest.cpp - dtype constraint checks -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/DTypeWithConstraints.h"

#include "gtest/gtest.h"

using namespace qfx;

namespace {

std::string validationError(const DTypeWithConstraints &constraints) {
  llvm::Error err = constraints.validate();
  return err ? llvm::toString(std::move(err)) : std::string();
}

TEST(DTypeWithConstraints, Valid) {
  DTypeWithConstraints c(DType::QUInt8);
  EXPECT_TRUE(c.isUnconstrained());
  EXPECT_EQ(validationError(c), "");
  c.quantMinLowerBound = 0;
  c.quantMaxUpperBound = 127;
  c.scaleMinLowerBound = 1.0 / 65536.0;
  EXPECT_FALSE(c.isUnconstrained());
  EXPECT_EQ(validationError(c), "");
  EXPECT_EQ(validationError(DTypeWithConstraints(DType::Float32)), "");
}

TEST(DTypeWithConstraints, Rejects) {
  DTypeWithConstraints c(DType::QInt8);
  c.quantMinLowerBound = -129;
  EXPECT_EQ(validationError(c), "quant_min_lower_bound -129 is outside qint8's "
                                "range [-128, 127]");
  c.quantMinLowerBound = 10;
  c.quantMaxUpperBound = 10;
  EXPECT_EQ(validationError(c), "expected quant_min_lower_bound < "
                                "quant_max_upper_bound, got 10 and 10");
  DTypeWithConstraints scales(DType::QUInt8);
  scales.scaleMinLowerBound = 0;
  EXPECT_EQ(validationError(scales),
            "expected scale_min_lower_bound > 0, got 0");
  scales.scaleMinLowerBound = 2;
  scales.scaleMaxUpperBound = 1;
  EXPECT_EQ(validationError(scales), "expected scale_min_lower_bound <= "
                                     "scale_max_upper_bound, got 2 and 1");
  DTypeWithConstraints floating(DType::Float16);
  floating.quantMaxUpperBound = 3;
  EXPECT_EQ(validationError(floating),
            "float16 takes no quantization range or scale bounds");
}

TEST(DTypeWithConstraints, EqualityAndHash) {
  DTypeWithConstraints a(DType::QInt8), b(DType::QInt8);
  EXPECT_EQ(a, b);
  EXPECT_EQ(hash_value(a), hash_value(b));
  b.quantMaxUpperBound = 127;
  EXPECT_NE(a, b);
}

} // namespace
