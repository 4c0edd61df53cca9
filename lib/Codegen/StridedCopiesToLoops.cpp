//===- StridedCopiesToLoops.cpp - memref.copy of strided buffers by rows --===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The runtime's memrefCopy copies non-contiguous buffers one element at a
// time; loops over the rows of the innermost contiguous block, each row a
// contiguous memref.copy (an llvm.memcpy), copy them at memory speed for
// little code. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace qfx {
#define GEN_PASS_DEF_QFXSTRIDEDCOPIESTOLOOPS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// The shortest contiguous row copied by loops of memcpy.
constexpr int64_t kMinRowBytes = 256;

/// How many innermost dimensions both `source` and `target` hold
/// contiguously (row-major, the same for both).
int64_t getContiguousInnerDims(MemRefType source, MemRefType target) {
  SmallVector<int64_t> sourceStrides, targetStrides;
  int64_t sourceOffset, targetOffset;
  if (failed(source.getStridesAndOffset(sourceStrides, sourceOffset)) ||
      failed(target.getStridesAndOffset(targetStrides, targetOffset)))
    return 0;
  int64_t dims = 0, size = 1;
  for (int64_t d = source.getRank() - 1; d >= 0; --d) {
    if (sourceStrides[d] != size || targetStrides[d] != size)
      break;
    size *= source.getDimSize(d);
    ++dims;
  }
  return dims;
}

/// Replaces `copy` by loops over its outer dimensions around a copy of each
/// contiguous inner block, or (no contiguous innermost dimension) by a
/// linalg.copy.
void rewrite(memref::CopyOp copy) {
  auto source = cast<MemRefType>(copy.getSource().getType());
  auto target = cast<MemRefType>(copy.getTarget().getType());
  OpBuilder builder(copy);
  Location loc = copy.getLoc();
  int64_t rank = source.getRank();
  int64_t inner = getContiguousInnerDims(source, target);
  if (inner == 0) {
    linalg::CopyOp::create(builder, loc, copy.getSource(), copy.getTarget());
    copy.erase();
    return;
  }
  // Short rows (a concatenation input's few channels) stay with memrefCopy:
  // a loop of small memcpys per copy made LLVM compile much more code (a
  // densenet121's 600 concatenation copies) for little gain.
  int64_t rowBytes = source.getElementTypeBitWidth() / 8;
  for (int64_t d = rank - inner; d < rank; ++d)
    rowBytes *= source.getDimSize(d);
  if (rowBytes < kMinRowBytes)
    return;
  SmallVector<OpFoldResult> offsets, sizes,
      strides(rank, builder.getIndexAttr(1));
  // One loop over the rows (the outer dimensions, flattened).
  int64_t rows = 1;
  for (int64_t d = 0; d < rank - inner; ++d)
    rows *= source.getDimSize(d);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value bound = arith::ConstantIndexOp::create(builder, loc, rows);
  auto loop = scf::ForOp::create(builder, loc, zero, bound, one);
  builder.setInsertionPointToStart(loop.getBody());
  Value rest = loop.getInductionVar();
  SmallVector<Value> outer(rank - inner);
  for (int64_t d = rank - inner - 1; d >= 0; --d) {
    Value size =
        arith::ConstantIndexOp::create(builder, loc, source.getDimSize(d));
    outer[d] = arith::RemUIOp::create(builder, loc, rest, size);
    rest = arith::DivUIOp::create(builder, loc, rest, size);
  }
  for (Value index : outer) {
    offsets.push_back(index);
    sizes.push_back(builder.getIndexAttr(1));
  }
  for (int64_t d = rank - inner; d < rank; ++d) {
    offsets.push_back(builder.getIndexAttr(0));
    sizes.push_back(builder.getIndexAttr(source.getDimSize(d)));
  }
  Value from = memref::SubViewOp::create(builder, loc, copy.getSource(),
                                         offsets, sizes, strides);
  Value to = memref::SubViewOp::create(builder, loc, copy.getTarget(), offsets,
                                       sizes, strides);
  memref::CopyOp::create(builder, loc, from, to);
  copy.erase();
}

struct QFXStridedCopiesToLoopsPass
    : qfx::impl::QFXStridedCopiesToLoopsBase<QFXStridedCopiesToLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      // Static ranked buffers, not both contiguous (those become memcpy).
      if (source && target && source.hasStaticShape() &&
          target.hasStaticShape() && source.getRank() > 0 &&
          !(memref::isStaticShapeAndContiguousRowMajor(source) &&
            memref::isStaticShapeAndContiguousRowMajor(target)))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies)
      rewrite(copy);
  }
};

} // namespace
