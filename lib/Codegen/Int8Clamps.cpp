//===- Int8Clamps.cpp - Integer chains from int8 to int8 that clamp -------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-int8-clamps: a chain of per-tensor integer ops from an int8 value to
// an int8 value, evaluated on all 256 inputs, that is a clamp becomes
// tosa.clamp. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "Kernels.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace qfx {
#define GEN_PASS_DEF_QFXINT8CLAMPS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

bool isIntTensor(Type type, unsigned width) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isSignlessInteger(width);
}

/// `op` applied to `x`, one element of its non-constant operand `from`, as
/// TOSA computes it on int32; nullopt if `op` is not an op of a chain (an
/// integer op of `from` and constants whose elements are all equal, of
/// `from`'s type: a constant that broadcasts `from` to a larger shape is
/// not) or the result leaves int32.
std::optional<int64_t> apply(Operation *op, Value from, int64_t x) {
  if (op->getNumResults() != 1 ||
      op->getResult(0).getType() != from.getType() ||
      op->getNumOperands() == 0 || op->getOperand(0) != from)
    return std::nullopt;
  auto constant = [&](unsigned index) -> std::optional<int64_t> {
    if (op->getNumOperands() <= index || op->getOperand(index) == from)
      return std::nullopt;
    return qfx::codegen::getScalar(op->getOperand(index));
  };
  std::optional<int64_t> result;
  if (auto clamp = llvm::dyn_cast<tosa::ClampOp>(op)) {
    auto lo = llvm::dyn_cast<IntegerAttr>(clamp.getMinValAttr());
    auto hi = llvm::dyn_cast<IntegerAttr>(clamp.getMaxValAttr());
    if (lo && hi)
      result = std::min(std::max(x, lo.getInt()), hi.getInt());
  } else if (std::optional<int64_t> c = constant(1)) {
    if (llvm::isa<tosa::AddOp>(op))
      result = x + *c;
    else if (llvm::isa<tosa::SubOp>(op))
      result = x - *c;
    else if (llvm::isa<tosa::MaximumOp>(op))
      result = std::max(x, *c);
    else if (llvm::isa<tosa::MinimumOp>(op))
      result = std::min(x, *c);
    else if (auto shift = llvm::dyn_cast<tosa::ArithmeticRightShiftOp>(op)) {
      if (*c >= 0 && *c < 32) {
        result = x >> *c;
        if (shift.getRound() && *c > 0 && ((x >> (*c - 1)) & 1))
          ++*result;
      }
    } else if (llvm::isa<tosa::MulOp>(op)) {
      // The product, rounded and shifted right by the shift operand.
      std::optional<int64_t> bits = constant(2);
      if (bits && *bits >= 0 && *bits < 63) {
        result = x * *c;
        if (*bits > 0)
          result = (*result + (int64_t{1} << (*bits - 1))) >> *bits;
      }
    }
  }
  if (!result || *result < INT32_MIN || *result > INT32_MAX)
    return std::nullopt;
  return result;
}

struct QFXInt8ClampsPass : qfx::impl::QFXInt8ClampsBase<QFXInt8ClampsPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::SmallVector<tosa::CastOp> starts;
    getOperation().walk([&](tosa::CastOp cast) {
      if (isIntTensor(cast.getInput().getType(), 8) &&
          isIntTensor(cast.getType(), 32))
        starts.push_back(cast);
    });
    for (tosa::CastOp start : starts)
      fold(start);
    // A clamp of a contraction's int8 result narrows its epilogue.
    RewritePatternSet patterns(&getContext());
    qfx::ContractOp::getCanonicalizationPatterns(patterns, &getContext());
    mlir::walkAndApplyPatterns(getOperation(), std::move(patterns));
  }

  /// Replaces the chain from `start` (int8 to int32) if it ends in a cast
  /// to int8 and is a clamp of the int8 input.
  void fold(tosa::CastOp start) {
    // The values of the chain so far on every int8 input.
    std::vector<int64_t> values(256);
    for (int64_t x = -128; x < 128; ++x)
      values[x + 128] = x;
    llvm::SmallVector<Operation *> ops{start};
    Value current = start.getOutput();
    tosa::CastOp end;
    for (;;) {
      if (!current.hasOneUse())
        return;
      Operation *next = *current.getUsers().begin();
      if ((end = llvm::dyn_cast<tosa::CastOp>(next))) {
        if (!isIntTensor(end.getType(), 8))
          return;
        break;
      }
      for (int64_t &value : values) {
        std::optional<int64_t> result = apply(next, current, value);
        if (!result)
          return;
        value = *result;
      }
      ops.push_back(next);
      current = next->getResult(0);
    }
    // A clamp to [f(-128), f(127)], in range.
    int64_t lo = values.front(), hi = values.back();
    if (lo < -128 || hi > 127 || lo > hi)
      return;
    for (int64_t x = -128; x < 128; ++x)
      if (values[x + 128] != std::min(std::max(x, lo), hi))
        return;
    OpBuilder b(end);
    auto clamp =
        tosa::ClampOp::create(b, end.getLoc(), end.getType(), start.getInput(),
                              b.getIntegerAttr(b.getI8Type(), lo),
                              b.getIntegerAttr(b.getI8Type(), hi));
    // What the int8 value quantizes to (quant-run --compare reads it).
    if (Attribute quantized = end->getAttr("qfx.quantized"))
      clamp->setAttr("qfx.quantized", quantized);
    end.getOutput().replaceAllUsesWith(clamp.getOutput());
    end.erase();
    for (Operation *op : llvm::reverse(ops))
      op->erase();
  }
};

} // namespace
