//===- DenseValuesTest.cpp - Elements of dense constants, in bulk ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Support/DenseValues.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace qfx;

namespace {

class DenseValuesTest : public ::testing::Test {
protected:
  mlir::RankedTensorType
  tensor(unsigned width, mlir::IntegerType::SignednessSemantics signedness =
                             mlir::IntegerType::Signless) {
    return mlir::RankedTensorType::get(
        {4}, mlir::IntegerType::get(&context, width, signedness));
  }
  mlir::MLIRContext context;
};

TEST_F(DenseValuesTest, ReadsEachWidthSignedOrUnsigned) {
  for (unsigned width : {8u, 16u, 32u, 64u}) {
    SCOPED_TRACE(width);
    std::vector<int64_t> values = {-1, 0, 1, 100};
    mlir::DenseElementsAttr attr =
        getIntAttr(tensor(width), llvm::ArrayRef<int64_t>(values));
    EXPECT_EQ(getIntValues(attr), values);
    std::vector<int64_t> unsignedValues = getIntValues(attr, false);
    EXPECT_EQ(unsignedValues[1], 0);
    EXPECT_EQ(unsignedValues[3], 100);
    if (width < 64)
      EXPECT_EQ(unsignedValues[0], (int64_t(1) << width) - 1);
    else
      EXPECT_EQ(unsignedValues[0], -1); // all ones, as int64
  }
}

TEST_F(DenseValuesTest, OtherWidthsAndSignedTypesGoThroughAPInt) {
  // i4: no C++ type; ui8: tryGetValues<int8_t> refuses a signed read.
  std::vector<int64_t> values = {-8, -1, 0, 7};
  mlir::DenseElementsAttr i4 =
      getIntAttr(tensor(4), llvm::ArrayRef<int64_t>(values));
  EXPECT_EQ(getIntValues(i4), values);
  EXPECT_EQ(getIntValues(i4, false), (std::vector<int64_t>{8, 15, 0, 7}));
  auto ui8 =
      mlir::DenseElementsAttr::get(tensor(8, mlir::IntegerType::Unsigned),
                                   llvm::ArrayRef<uint8_t>({0, 1, 128, 255}));
  EXPECT_EQ(getIntValues(ui8, false), (std::vector<int64_t>{0, 1, 128, 255}));
  EXPECT_EQ(getIntValues(ui8), (std::vector<int64_t>{0, 1, -128, -1}));
}

TEST_F(DenseValuesTest, WritesTruncateToTheWidth) {
  mlir::DenseElementsAttr attr =
      getIntAttr(tensor(8), llvm::ArrayRef<int32_t>({255, -129, 127, 0}));
  EXPECT_EQ(getIntValues(attr), (std::vector<int64_t>{-1, 127, 127, 0}));
}

TEST_F(DenseValuesTest, ASplatReadsAsEveryElement) {
  auto splat = mlir::DenseElementsAttr::get(
      tensor(8), llvm::APInt(8, static_cast<uint64_t>(-3), true));
  EXPECT_EQ(getIntValues(splat), (std::vector<int64_t>{-3, -3, -3, -3}));
}

} // namespace
