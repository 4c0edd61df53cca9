//===- TosaBuilders.cpp - Small TOSA constructions qfx repeats ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Conversion/Utils/TosaBuilders.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/QuantUtils.h"

namespace tosa = mlir::tosa;
using mlir::RankedTensorType;

namespace qfx::tosa_builders {

Value zeroPoint(OpBuilder &b, Location loc, Type element, int64_t zp) {
  return *tosa::createZeroPointTensor(b, loc, element, zp);
}

Value constant1D(OpBuilder &b, Location loc, ArrayRef<int32_t> values,
                 unsigned width) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getIntegerType(width));
  if (width == 8) {
    SmallVector<int8_t> narrow(values.begin(), values.end());
    return constant1D(b, loc, narrow);
  }
  return tosa::ConstOp::create(b, loc, type,
                               mlir::DenseElementsAttr::get(type, values));
}

Value constant1D(OpBuilder &b, Location loc, ArrayRef<int8_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getIntegerType(8));
  return tosa::ConstOp::create(b, loc, type,
                               mlir::DenseElementsAttr::get(type, values));
}

Value noShift(OpBuilder &b, Location loc) {
  auto type = RankedTensorType::get({1}, b.getIntegerType(8));
  return tosa::ConstOp::create(b, loc, type,
                               mlir::DenseElementsAttr::get(type, int8_t{0}));
}

Value constShape(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  return tosa::ConstShapeOp::create(
      b, loc, tosa::shapeType::get(b.getContext(), shape.size()),
      b.getIndexTensorAttr(shape));
}

Value reshapeTo(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> shape) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return tosa::ReshapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      constShape(b, loc, shape));
}

template <typename T>
static Value channelConstantOf(OpBuilder &b, Location loc, int64_t rank,
                               ArrayRef<T> values, Type element) {
  SmallVector<T> kept(values);
  if (llvm::all_equal(kept))
    kept.resize(1);
  SmallVector<int64_t> shape(rank, 1);
  shape.back() = static_cast<int64_t>(kept.size());
  auto type = RankedTensorType::get(shape, element);
  return tosa::ConstOp::create(
      b, loc, type, mlir::DenseElementsAttr::get(type, ArrayRef<T>(kept)));
}

Value channelConstant(OpBuilder &b, Location loc, int64_t rank,
                      ArrayRef<float> values) {
  return channelConstantOf(b, loc, rank, values, b.getF32Type());
}

Value channelConstant(OpBuilder &b, Location loc, int64_t rank,
                      ArrayRef<int32_t> values) {
  return channelConstantOf(b, loc, rank, values, b.getIntegerType(32));
}

Value roundToInt8(OpBuilder &b, Location loc, Value value, int64_t intZp,
                  std::pair<int64_t, int64_t> range) {
  auto floatType = llvm::cast<RankedTensorType>(value.getType());
  Type f32 = b.getF32Type(), i32 = b.getIntegerType(32);
  value = tosa::ClampOp::create(
      b, loc, floatType, value,
      b.getFloatAttr(f32, static_cast<double>(range.first - intZp)),
      b.getFloatAttr(f32, static_cast<double>(range.second - intZp)));
  auto i8Type = floatType.clone(b.getIntegerType(8));
  if (intZp == 0)
    return tosa::CastOp::create(b, loc, i8Type, value);
  auto intType = floatType.clone(i32);
  value = tosa::CastOp::create(b, loc, intType, value);
  value = tosa::AddOp::create(
      b, loc, intType, value,
      channelConstant(b, loc, floatType.getRank(),
                      ArrayRef<int32_t>{static_cast<int32_t>(intZp)}));
  return tosa::CastOp::create(b, loc, i8Type, value);
}

Value rescale(OpBuilder &b, Location loc, Value input,
              ArrayRef<int32_t> multipliers, ArrayRef<int32_t> shifts,
              int64_t inputZp, int64_t outputZp, Type outputElement,
              bool inputUnsigned, bool outputUnsigned) {
  Type inputElement = mlir::getElementTypeOrSelf(input.getType());
  return tosa::RescaleOp::create(
      b, loc,
      llvm::cast<RankedTensorType>(input.getType()).clone(outputElement), input,
      constant1D(b, loc, multipliers, 32), constant1D(b, loc, shifts, 8),
      zeroPoint(b, loc, inputElement, inputZp),
      zeroPoint(b, loc, outputElement, outputZp), /*scale32=*/true,
      tosa::RoundingMode::SINGLE_ROUND, /*per_channel=*/multipliers.size() > 1,
      inputUnsigned, outputUnsigned);
}

} // namespace qfx::tosa_builders
