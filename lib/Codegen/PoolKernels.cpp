//===- PoolKernels.cpp - int8 max pooling kernels -------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen's max pooling kernels: an int8 tosa.max_pool2d becomes a call
// of a loop over output pixels that keeps the maximum of each block of
// channels in a vector register: for each output pixel, each block of
// channels (a whole register of bytes, then narrower vectors for the
// remainder), the maximum over the window's taps inside the input. TOSA
// pads with the int8 minimum, which no maximum takes, so the taps in the
// padding are skipped: the window's rows and columns are clipped to the
// input once per pixel, not tested tap by tap. The generic lowering
// (linalg.pooling_nhwc_max) keeps the running maximum in the output buffer,
// a load and a store per tap.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace scf = mlir::scf;
namespace tosa = mlir::tosa;
namespace vector = mlir::vector;

namespace qfx::codegen {
namespace {

/// The chain of an int8 max_pool2d with static shapes: its geometry (the
/// window as the kernel size, no dilation), M output pixels of N channels,
/// K taps each.
std::optional<Chain> matchStart(tosa::MaxPool2dOp pool) {
  auto inType = llvm::cast<RankedTensorType>(pool.getInput().getType());
  auto outType = llvm::cast<RankedTensorType>(pool.getOutput().getType());
  if (!inType.hasStaticShape() || !outType.hasStaticShape() ||
      !inType.getElementType().isInteger(8) ||
      !outType.getElementType().isInteger(8))
    return std::nullopt;
  Chain chain;
  chain.op = pool;
  chain.maxPool = true;
  ConvGeometry &g = chain.conv.emplace();
  g.input.assign(inType.getShape().begin(), inType.getShape().end());
  g.output.assign(outType.getShape().begin(), outType.getShape().end());
  g.kh = pool.getKernel()[0];
  g.kw = pool.getKernel()[1];
  g.pad.assign(pool.getPad().begin(), pool.getPad().end());
  g.stride.assign(pool.getStride().begin(), pool.getStride().end());
  g.dilation.assign({1, 1});
  chain.m = g.output[0] * g.output[1] * g.output[2];
  chain.n = g.output[3];
  chain.k = g.kh * g.kw;
  return chain;
}

/// Builds the kernel of one max pool: a function (input:
/// memref<NxHxWxCxi8>, output: memref<NxOHxOWxCxi8>) without constants.
class PoolKernelBuilder : KernelBuilderBase {
public:
  PoolKernelBuilder(mlir::ModuleOp module, const Chain &chain,
                    const KernelTarget &target, std::string name)
      : KernelBuilderBase(module, chain, target, std::move(name)) {}

  Kernel build();

private:
  /// One output pixel's window: image n, its top left corner in the input
  /// and the [lo, hi) offsets of its rows and columns inside the input.
  struct Window {
    Value pixel, n, ih0, iw0, rowLo, rowHi, columnLo, columnHi;
  };
  Window emitWindow(OpBuilder &b, Location loc, Value pixel);
  /// The maximum over `window` of `width` channels from `channel`, stored
  /// in `out` ([pixels, channels]).
  void emitBlock(OpBuilder &b, Location loc, Value input, Value out,
                 const Window &window, Value channel, int64_t width);
};

PoolKernelBuilder::Window
PoolKernelBuilder::emitWindow(OpBuilder &b, Location loc, Value pixel) {
  const ConvGeometry &g = *chain.conv;
  Window w;
  w.pixel = pixel;
  std::tie(w.n, w.ih0, w.iw0) = emitPixelOrigin(b, loc, pixel);
  // Offsets from `origin` in [0, extent) whose position is in [0, size).
  auto clip = [&](Value origin, int64_t extent,
                  int64_t size) -> std::pair<Value, Value> {
    Value lo = arith::MaxSIOp::create(
        b, loc, index(b, loc, 0),
        arith::SubIOp::create(b, loc, index(b, loc, 0), origin));
    Value hi = arith::MinSIOp::create(
        b, loc, index(b, loc, extent),
        arith::SubIOp::create(b, loc, index(b, loc, size), origin));
    return {lo, hi};
  };
  std::tie(w.rowLo, w.rowHi) = clip(w.ih0, g.kh, g.input[1]);
  std::tie(w.columnLo, w.columnHi) = clip(w.iw0, g.kw, g.input[2]);
  return w;
}

void PoolKernelBuilder::emitBlock(OpBuilder &b, Location loc, Value input,
                                  Value out, const Window &w, Value channel,
                                  int64_t width) {
  auto vectorType = VectorType::get({width}, b.getIntegerType(8));
  Value lowest = arith::ConstantOp::create(
      b, loc, vectorType,
      mlir::DenseElementsAttr::get(vectorType, int8_t{-128}));
  Value one = index(b, loc, 1);
  auto overRows = scf::ForOp::create(
      b, loc, w.rowLo, w.rowHi, one, mlir::ValueRange{lowest},
      [&](OpBuilder &rb, Location rl, Value kh, mlir::ValueRange rowMax) {
        Value ih = arith::AddIOp::create(rb, rl, w.ih0, kh);
        auto overColumns = scf::ForOp::create(
            rb, rl, w.columnLo, w.columnHi, one, rowMax,
            [&](OpBuilder &cb, Location cl, Value kw, mlir::ValueRange max) {
              Value iw = arith::AddIOp::create(cb, cl, w.iw0, kw);
              Value x = vector::LoadOp::create(
                  cb, cl, vectorType, input,
                  mlir::ValueRange{w.n, ih, iw, channel});
              scf::YieldOp::create(
                  cb, cl,
                  arith::MaxSIOp::create(cb, cl, max.front(), x).getResult());
            });
        scf::YieldOp::create(rb, rl, overColumns.getResult(0));
      });
  vector::StoreOp::create(b, loc, overRows.getResult(0), out,
                          mlir::ValueRange{w.pixel, channel});
}

Kernel PoolKernelBuilder::build() {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  mlir::func::FuncOp func = createFunction(b, loc);
  Value input = body->getArgument(0);
  // The output as [pixels, channels].
  Value out = mlir::memref::CollapseShapeOp::create(
      b, loc, body->getArgument(1),
      llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1, 2}, {3}});
  // A register of bytes (the kernels' lanes are int32).
  const int64_t bytes = 4 * target.lanes;
  int64_t fullBlocks = chain.n / bytes;
  forEach(
      b, loc, {chain.m}, {1},
      [&](OpBuilder &pb, Location l, mlir::ValueRange pixels) {
        Window window = emitWindow(pb, l, pixels.front());
        if (fullBlocks > 0)
          scf::ForOp::create(
              pb, l, index(pb, l, 0), index(pb, l, fullBlocks * bytes),
              index(pb, l, bytes), mlir::ValueRange{},
              [&](OpBuilder &ob, Location bl, Value channel, mlir::ValueRange) {
                emitBlock(ob, bl, input, out, window, channel, bytes);
                scf::YieldOp::create(ob, bl);
              });
        // The remaining channels in vectors of halving widths.
        int64_t channel = fullBlocks * bytes;
        for (int64_t width = bytes / 2; width >= 1; width /= 2)
          if (chain.n - channel >= width) {
            emitBlock(pb, l, input, out, window, index(pb, l, channel), width);
            channel += width;
          }
      });
  mlir::func::ReturnOp::create(b, loc);
  return getKernel(func);
}

} // namespace

std::optional<Chain> matchMaxPool(Operation *op) {
  if (auto pool = llvm::dyn_cast<tosa::MaxPool2dOp>(op))
    return matchStart(pool);
  return std::nullopt;
}

Kernel buildMaxPoolKernel(mlir::ModuleOp module, const Chain &chain,
                          const KernelTarget &target, std::string name) {
  return PoolKernelBuilder(module, chain, target, std::move(name)).build();
}

} // namespace qfx::codegen
