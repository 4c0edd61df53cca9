//===- DepthwiseKernels.cpp - int8 depthwise convolution kernels ----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen's depthwise kernels: an int8 TOSA depthwise_conv2d with a
// constant weight and bias and its requantize epilogue (qfx-lower's
// depthwise Conv2d) becomes a call of a direct convolution, vectorized over
// output channels. Each output channel sums only KH * KW products, so there
// is no GEMM to hand to a dot-product instruction. The kernel copies the
// input into a buffer padded with the input zero point (output channel o
// reads channel o there: a multiplier's input channels are repeated), so
// that every tap reads it without a bounds check; then, for a block of
// `lanes` channels and a run of up to `rows` output pixels along a row, it
// sums x * w over the taps in int32 lanes, each tap's weights loaded once
// for the run, and runs the shared requantizing epilogue on the run.
//
// The padded copy holds the input as the GEMM kernels read A (top bit
// flipped on VNNI, int16 on AVX2). On the dot-product targets one
// instruction is one tap's multiply-add: a lane holds the input element
// zero-extended (zeros after it), the weights the tap's weight and zeros.
// On I8MM (SMMLA is no lane dot product) the lanes are multiplied and added;
// AMX targets build the VNNI kernel. The sum of (x - zp) * w is the sum of
// x * w minus (zp + the flip's 128) times the sum of the weights (a tap in
// the padding adds nothing, as in TOSA): the epilogue's constant.
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

/// The chain's start: a depthwise_conv2d with a constant weight ([KH, KW,
/// C, multiplier], i.e. [taps, output channels]) and bias.
/// Builds the kernel of one depthwise chain: globals for the weights
/// ([taps][block][lane]) and the epilogue constants, and a function
/// (input: memref<NxHxWxCxi8>, output: memref<NxOHxOWxOxi8>).
class DepthwiseKernelBuilder : KernelBuilderBase {
public:
  DepthwiseKernelBuilder(mlir::ModuleOp module, const Chain &chain,
                         const KernelTarget &target, std::string name)
      : KernelBuilderBase(module, chain, target, std::move(name)),
        laneDot(!target.is(MicroKernelKind::Matrix)) {
    const ConvGeometry &g = *chain.conv;
    paddedHeight = g.pad[0] + g.input[1] + g.pad[1];
    paddedWidth = g.pad[2] + g.input[2] + g.pad[3];
    // Runs of `run` pixels, as even as `rows` allows (a 14-pixel row: two
    // runs of 7, not 8 and 6).
    int64_t width = g.output[2], runs = (width + target.rows - 1) / target.rows;
    run = (width + runs - 1) / runs;
  }

  Kernel build();

private:
  /// The int32 sums of x * w of `count` output pixels along a row and one
  /// block of channels; the first pixel's window starts at position `start`
  /// of the padded copy (`padded`, [positions, channels]).
  llvm::SmallVector<Value> emitSums(OpBuilder &b, Location loc, Value padded,
                                    Value start, Value block, int64_t count);
  /// The sums and epilogues of the output row `row` (n * OH + oh), block
  /// `block` of channels.
  void emitRow(OpBuilder &b, Location loc, Value padded, Value out, Value row,
               Value block, bool partial);

  /// Whether a tap is one dot-product instruction (`group` elements a
  /// lane, the first one used), or a multiply and an add.
  const bool laneDot;
  int64_t paddedHeight, paddedWidth;
  /// Output pixels of one run.
  int64_t run;
};

llvm::SmallVector<Value>
DepthwiseKernelBuilder::emitSums(OpBuilder &b, Location loc, Value padded,
                                 Value start, Value block, int64_t count) {
  const ConvGeometry &g = *chain.conv;
  auto accType = VectorType::get({kLanes}, b.getI32Type());
  Type element = b.getIntegerType(target.elementBits);
  auto elementsType = VectorType::get({kLanes}, element);
  // A lane's group of elements, for the dot product.
  auto groupsType = VectorType::get({kLanes * target.group}, element);
  Value weights = getConstant("_weights");
  Value column = arith::MulIOp::create(b, loc, block, index(b, loc, kLanes));
  mlir::func::FuncOp dot;
  if (laneDot)
    dot = target.accumulates
              ? getIntrinsic(target.dot, {accType, groupsType, groupsType},
                             accType)
              : getIntrinsic(target.dot, {groupsType, groupsType}, accType);
  // acc + x * w, x a vector of `lanes` elements, w the tap's weights.
  auto multiplyAdd = [&](OpBuilder &ob, Location l, Value acc, Value x,
                         Value w) -> Value {
    if (!laneDot) {
      // (An unsigned A's elements are x + 128, compensated like the dot's.)
      Value wide = target.unsignedA
                       ? arith::ExtUIOp::create(ob, l, accType, x).getResult()
                       : arith::ExtSIOp::create(ob, l, accType, x).getResult();
      return arith::AddIOp::create(ob, l, acc,
                                   arith::MulIOp::create(ob, l, wide, w));
    }
    // x in the first element of its lane, zeros after it.
    Value lanes = vector::BitCastOp::create(
        ob, l, groupsType, arith::ExtUIOp::create(ob, l, accType, x));
    if (target.accumulates)
      return mlir::func::CallOp::create(ob, l, dot,
                                        mlir::ValueRange{acc, lanes, w})
          .getResult(0);
    return arith::AddIOp::create(
        ob, l, acc,
        mlir::func::CallOp::create(ob, l, dot, mlir::ValueRange{lanes, w})
            .getResult(0));
  };
  // A row of taps a loop iteration; its columns unrolled.
  auto rows = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, g.kh), index(b, loc, 1),
      llvm::SmallVector<Value>(count, emitInitialSums(b, loc, block)),
      [&](OpBuilder &rb, Location rl, Value kh, mlir::ValueRange accs) {
        Value rowStart = arith::AddIOp::create(
            rb, rl, start,
            arith::MulIOp::create(rb, rl, kh,
                                  index(rb, rl, g.dilation[0] * paddedWidth)));
        Value firstTap = arith::MulIOp::create(rb, rl, kh, index(rb, rl, g.kw));
        llvm::SmallVector<Value> next(accs.begin(), accs.end());
        for (int64_t kw = 0; kw < g.kw; ++kw) {
          Value tap =
              arith::AddIOp::create(rb, rl, firstTap, index(rb, rl, kw));
          llvm::SmallVector<Value, 3> at{tap, block, index(rb, rl, 0)};
          Value w;
          if (laneDot)
            w = vector::LoadOp::create(rb, rl, groupsType, weights, at);
          else
            w = arith::ExtSIOp::create(
                rb, rl, accType,
                vector::LoadOp::create(rb, rl, elementsType, weights, at));
          for (int64_t r = 0; r < count; ++r) {
            Value position = arith::AddIOp::create(
                rb, rl, rowStart,
                index(rb, rl, r * g.stride[1] + kw * g.dilation[1]));
            next[r] = multiplyAdd(
                rb, rl, next[r],
                vector::LoadOp::create(rb, rl, elementsType, padded,
                                       mlir::ValueRange{position, column}),
                w);
          }
        }
        scf::YieldOp::create(rb, rl, next);
      });
  return llvm::SmallVector<Value>(rows.getResults());
}

void DepthwiseKernelBuilder::emitRow(OpBuilder &b, Location loc, Value padded,
                                     Value out, Value row, Value block,
                                     bool partial) {
  const ConvGeometry &g = *chain.conv;
  // Row n * OH + oh's first window starts at padded position (n * padded
  // H + oh * stride) * padded W.
  Value n = arith::DivUIOp::create(b, loc, row, index(b, loc, g.output[1]));
  Value oh = arith::RemUIOp::create(b, loc, row, index(b, loc, g.output[1]));
  Value rowStart = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, n, index(b, loc, paddedHeight)),
          arith::MulIOp::create(b, loc, oh, index(b, loc, g.stride[0]))),
      index(b, loc, paddedWidth));
  Value firstPixel =
      arith::MulIOp::create(b, loc, row, index(b, loc, g.output[2]));
  auto emitRun = [&](OpBuilder &ob, Location l, Value ow0, int64_t count) {
    Value start = arith::AddIOp::create(
        ob, l, rowStart,
        arith::MulIOp::create(ob, l, ow0, index(ob, l, g.stride[1])));
    emitEpilogue(ob, l, out, block,
                 arith::AddIOp::create(ob, l, firstPixel, ow0),
                 emitSums(ob, l, padded, start, block, count), partial,
                 sumsStartFromBias());
  };
  int64_t width = g.output[2], mainWidth = width - width % run;
  scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, mainWidth), index(b, loc, run),
      mlir::ValueRange{},
      [&](OpBuilder &ob, Location l, Value ow0, mlir::ValueRange) {
        emitRun(ob, l, ow0, run);
        scf::YieldOp::create(ob, l);
      });
  if (width % run)
    emitRun(b, loc, index(b, loc, mainWidth), width % run);
}

Kernel DepthwiseKernelBuilder::build() {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  const ConvGeometry &g = *chain.conv;
  // The weights as [tap][block][lane], zero beyond the last channel (with
  // a dot product, [tap][block][lane][group], each lane's weight first in
  // its group): a block's weights of one tap are one vector load.
  int64_t taps = chain.k, group = laneDot ? target.group : 1;
  Type element = b.getIntegerType(target.elementBits);
  std::vector<int16_t> packed(taps * blocks * kLanes * group, 0);
  std::vector<int64_t> compensation(chain.n, 0);
  int64_t offset = target.unsignedA ? 128 : 0;
  for (int64_t tap = 0; tap < taps; ++tap)
    for (int64_t channel = 0; channel < chain.n; ++channel) {
      int8_t w = chain.weight[tap * chain.n + channel];
      packed[(tap * blocks * kLanes + channel) * group] = w;
      compensation[channel] += (offset + chain.inputZp) * w;
    }
  auto weightType = MemRefType::get({taps, blocks, kLanes * group}, element);
  createWeightsGlobal(b, loc, weightType, packed);
  createEpilogueGlobals(b, loc, compensation);

  mlir::func::FuncOp func = createFunction(b, loc);
  Value input = body->getArgument(0);
  // The output as [pixels, channels].
  Value out = mlir::memref::CollapseShapeOp::create(
      b, loc, body->getArgument(1),
      llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1, 2}, {3}});
  // The padded copy, [N, padded H, padded W, blocks * lanes], read as
  // [positions, blocks * lanes].
  int64_t channels = blocks * kLanes,
          positions = g.input[0] * paddedHeight * paddedWidth;
  Value bytes = mlir::memref::AllocOp::create(
      b, loc,
      MemRefType::get(
          {positions * channels * element.getIntOrFloatBitWidth() / 8},
          b.getIntegerType(8)),
      mlir::ValueRange{}, b.getI64IntegerAttr(64));
  auto view = [&](llvm::ArrayRef<int64_t> shape) -> Value {
    return mlir::memref::ViewOp::create(b, loc, MemRefType::get(shape, element),
                                        bytes, index(b, loc, 0),
                                        mlir::ValueRange{});
  };
  Value top = emitTopBit(b, loc), padding = emitPaddingElement(b, loc);
  emitPaddedCopy(
      b, loc, input, view({g.input[0], paddedHeight, paddedWidth, channels}),
      padding,
      [&](OpBuilder &cb, Location cl, Value v) {
        return toElement(cb, cl, v, top);
      },
      g.multiplier);
  Value padded = view({positions, channels});
  // Output rows and blocks of channels on threads; a partial last block
  // after the full ones.
  int64_t rows = g.output[0] * g.output[1], fullBlocks = chain.n / kLanes;
  if (fullBlocks > 0)
    forEach(b, loc, {rows, fullBlocks}, {1, 1},
            [&](OpBuilder &pb, Location l, mlir::ValueRange ivs) {
              emitRow(pb, l, padded, out, ivs[0], ivs[1], false);
            });
  if (chain.n % kLanes)
    forEach(b, loc, {rows}, {1},
            [&](OpBuilder &pb, Location l, mlir::ValueRange ivs) {
              emitRow(pb, l, padded, out, ivs[0], index(pb, l, fullBlocks),
                      true);
            });
  // (Buffer deallocation frees the padded copy.)
  mlir::func::ReturnOp::create(b, loc);
  return getKernel(func);
}

} // namespace

Kernel buildDepthwiseKernel(mlir::ModuleOp module, const Chain &chain,
                            const KernelTarget &target, std::string name) {
  return DepthwiseKernelBuilder(module, chain, target, std::move(name)).build();
}

} // namespace qfx::codegen
