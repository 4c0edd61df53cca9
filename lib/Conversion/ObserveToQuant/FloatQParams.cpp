//===- FloatQParams.cpp - Weights with float zero points ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Conversion/FloatQParams.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

using namespace qfx;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
namespace tosa = mlir::tosa;

mlir::Value qfx::buildFloatQParamsDequantize(mlir::OpBuilder &builder,
                                             mlir::Location loc,
                                             const FloatQParamsWeight &weight,
                                             RankedTensorType type) {
  Type i32 = builder.getI32Type(), f32 = builder.getF32Type();
  int64_t rank = type.getRank();
  auto constant = [&](llvm::ArrayRef<int64_t> shape, Type element,
                      mlir::Attribute value) -> Value {
    auto constType = RankedTensorType::get(shape, element);
    if (auto values = llvm::dyn_cast<mlir::DenseElementsAttr>(value))
      return tosa::ConstOp::create(builder, loc, constType,
                                   values.reshape(constType));
    return tosa::ConstOp::create(
        builder, loc, constType,
        mlir::DenseElementsAttr::get(constType, value));
  };
  llvm::SmallVector<int64_t> ones(rank, 1), channel(rank, 1);
  channel[weight.axis] = type.getDimSize(weight.axis);
  Value storage = tosa::ConstOp::create(builder, loc, weight.storage.getType(),
                                        weight.storage);
  Value ints = tosa::CastOp::create(builder, loc, type.clone(i32), storage);
  ints = tosa::BitwiseAndOp::create(
      builder, loc, type.clone(i32), ints,
      constant(ones, i32, builder.getI32IntegerAttr((1 << weight.width) - 1)));
  Value floats = tosa::CastOp::create(builder, loc, type.clone(f32), ints);
  auto perChannel = [&](llvm::ArrayRef<float> v) {
    auto flat = RankedTensorType::get({static_cast<int64_t>(v.size())}, f32);
    return constant(channel, f32, mlir::DenseElementsAttr::get(flat, v));
  };
  floats = tosa::SubOp::create(builder, loc, type, floats,
                               perChannel(weight.zeroPoints));
  auto shiftType = RankedTensorType::get({1}, builder.getI8Type());
  Value shift = tosa::ConstOp::create(
      builder, loc, shiftType,
      mlir::DenseElementsAttr::get(shiftType, builder.getI8IntegerAttr(0)));
  return tosa::MulOp::create(builder, loc, type, floats,
                             perChannel(weight.scales), shift);
}

/// The values of a per-channel constant [1, .., C, .., 1] and its axis.
static bool matchPerChannel(Value value, int64_t &axis,
                            llvm::SmallVector<float> &values) {
  mlir::DenseFPElementsAttr attr;
  if (!mlir::matchPattern(value, mlir::m_Constant(&attr)))
    return false;
  llvm::ArrayRef<int64_t> shape = attr.getType().getShape();
  axis = 0;
  for (auto [d, size] : llvm::enumerate(shape))
    if (size != 1)
      axis = static_cast<int64_t>(d);
  values.clear();
  for (const llvm::APFloat &v : attr.getValues<llvm::APFloat>())
    values.push_back(v.convertToFloat());
  return true;
}

std::optional<FloatQParamsWeight>
qfx::matchFloatQParamsDequantize(Value value) {
  auto mul = value.getDefiningOp<tosa::MulOp>();
  auto sub = mul ? mul.getInput1().getDefiningOp<tosa::SubOp>() : nullptr;
  auto toFloat = sub ? sub.getInput1().getDefiningOp<tosa::CastOp>() : nullptr;
  auto mask = toFloat ? toFloat.getInput().getDefiningOp<tosa::BitwiseAndOp>()
                      : nullptr;
  auto toInt = mask ? mask.getInput1().getDefiningOp<tosa::CastOp>() : nullptr;
  FloatQParamsWeight weight;
  int64_t scaleAxis = 0;
  if (!toInt ||
      !mlir::matchPattern(toInt.getInput(),
                          mlir::m_Constant(&weight.storage)) ||
      !matchPerChannel(sub.getInput2(), weight.axis, weight.zeroPoints) ||
      !matchPerChannel(mul.getInput2(), scaleAxis, weight.scales) ||
      scaleAxis != weight.axis ||
      weight.scales.size() != weight.zeroPoints.size())
    return std::nullopt;
  weight.width = weight.storage.getElementType().getIntOrFloatBitWidth();
  return weight;
}
