//===- DepthwiseKernels.cpp - int8 depthwise convolution kernels ----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen's depthwise kernels: an int8 TOSA depthwise_conv2d with a
// constant weight and bias and its requantize epilogue (qfx-lower's
// depthwise Conv2d) becomes a call of a direct convolution over the NHWC
// input, vectorized over output channels. Each output channel sums only
// KH * KW products, so there is no GEMM to hand to a dot-product
// instruction: for each output pixel and block of `lanes` channels, the
// kernel adds (x - input zero point) * w in int32 over the taps inside the
// input (a tap in the padding adds nothing, as in TOSA), then runs the
// shared requantizing epilogue. Output channel o reads input channel
// o / multiplier: one load and a shuffle when the multiplier divides the
// lanes, else lane by lane.
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
std::optional<Chain> matchStart(tosa::DepthwiseConv2DOp conv) {
  std::vector<int64_t> weight;
  std::optional<Chain> chain = matchConvStart(conv, weight);
  if (!chain)
    return std::nullopt;
  auto wType = llvm::cast<RankedTensorType>(conv.getWeight().getType());
  ConvGeometry &g = *chain->conv;
  g.kh = wType.getDimSize(0);
  g.kw = wType.getDimSize(1);
  g.multiplier = wType.getDimSize(3);
  if (chain->n != g.input[3] * g.multiplier)
    return std::nullopt;
  chain->k = g.kh * g.kw;
  chain->weight.assign(weight.begin(), weight.end());
  return chain;
}

/// Builds the kernel of one depthwise chain: globals for the weights
/// ([taps][block][lane]) and the epilogue constants, and a function
/// (input: memref<NxHxWxCxi8>, output: memref<NxOHxOWxOxi8>).
class DepthwiseKernelBuilder : KernelBuilderBase {
public:
  DepthwiseKernelBuilder(mlir::ModuleOp module, const Chain &chain,
                         const KernelTarget &target, std::string name)
      : KernelBuilderBase(module, chain, target, std::move(name)) {}

  Kernel build();

private:
  /// The input feeding output channels [block * lanes, + lanes) at (n, ih,
  /// iw) minus the input zero point, as int32 (zero beyond the last channel
  /// of a partial block).
  Value loadInputs(OpBuilder &b, Location loc, Value input, Value n, Value ih,
                   Value iw, Value block, bool partial);
  /// The int32 sums of one block of channels at one output pixel, whose
  /// window starts at (ih0, iw0) in image n.
  Value emitSums(OpBuilder &b, Location loc, Value input, Value n, Value ih0,
                 Value iw0, Value block, bool partial);

  MemRefType weightType;
};

Value DepthwiseKernelBuilder::loadInputs(OpBuilder &b, Location loc,
                                         Value input, Value n, Value ih,
                                         Value iw, Value block, bool partial) {
  Type i8 = b.getIntegerType(8);
  auto bytesType = VectorType::get({kLanes}, i8);
  auto accType = VectorType::get({kLanes}, b.getI32Type());
  int64_t multiplier = chain.conv->multiplier;
  Value first = arith::MulIOp::create(b, loc, block, index(b, loc, kLanes));
  Value x;
  if (!partial && kLanes % multiplier == 0) {
    // Input channels [first / multiplier, + lanes / multiplier), each
    // repeated `multiplier` times.
    int64_t count = kLanes / multiplier;
    Value channel = arith::MulIOp::create(b, loc, block, index(b, loc, count));
    x = vector::LoadOp::create(b, loc, VectorType::get({count}, i8), input,
                               mlir::ValueRange{n, ih, iw, channel});
    if (multiplier > 1) {
      llvm::SmallVector<int64_t> mask;
      for (int64_t lane = 0; lane < kLanes; ++lane)
        mask.push_back(lane / multiplier);
      x = vector::ShuffleOp::create(b, loc, x, x, mask);
    }
  } else {
    x = arith::ConstantOp::create(
        b, loc, bytesType, mlir::DenseElementsAttr::get(bytesType, int8_t{0}));
    int64_t lanes = partial ? chain.n % kLanes : kLanes;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      Value channel = arith::DivUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, first, index(b, loc, lane)),
          index(b, loc, multiplier));
      Value v = mlir::memref::LoadOp::create(
          b, loc, input, mlir::ValueRange{n, ih, iw, channel});
      x = vector::InsertOp::create(b, loc, v, x, llvm::ArrayRef<int64_t>{lane});
    }
  }
  Value zp =
      vector::BroadcastOp::create(b, loc, accType, getScalar(b, loc, InputZp));
  return arith::SubIOp::create(b, loc,
                               arith::ExtSIOp::create(b, loc, accType, x), zp);
}

Value DepthwiseKernelBuilder::emitSums(OpBuilder &b, Location loc, Value input,
                                       Value n, Value ih0, Value iw0,
                                       Value block, bool partial) {
  const ConvGeometry &g = *chain.conv;
  Type i8 = b.getIntegerType(8);
  auto accType = VectorType::get({kLanes}, b.getI32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, accType, mlir::DenseElementsAttr::get(accType, int32_t{0}));
  Value weights = getConstant("_weights");
  // `body` on the accumulator if `inside`, else the accumulator as it is.
  auto ifInside = [&](OpBuilder &ob, Location l, Value inside, Value acc,
                      llvm::function_ref<Value(OpBuilder &, Location)> body) {
    auto ifOp = scf::IfOp::create(ob, l, mlir::TypeRange{accType}, inside,
                                  /*withElseRegion=*/true);
    OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
    scf::YieldOp::create(thenBuilder, l, body(thenBuilder, l));
    OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(elseBuilder, l, acc);
    return ifOp.getResult(0);
  };
  auto rows = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, g.kh), index(b, loc, 1),
      mlir::ValueRange{zero},
      [&](OpBuilder &rb, Location rl, Value kh, mlir::ValueRange rowAcc) {
        Value ih = arith::AddIOp::create(
            rb, rl, ih0,
            arith::MulIOp::create(rb, rl, kh, index(rb, rl, g.dilation[0])));
        Value sum = ifInside(
            rb, rl, emitWithin(rb, rl, ih, g.input[1]), rowAcc.front(),
            [&](OpBuilder &cb, Location cl) -> Value {
              auto columns = scf::ForOp::create(
                  cb, cl, index(cb, cl, 0), index(cb, cl, g.kw),
                  index(cb, cl, 1), mlir::ValueRange{rowAcc.front()},
                  [&](OpBuilder &tb, Location tl, Value kw,
                      mlir::ValueRange acc) {
                    Value iw = arith::AddIOp::create(
                        tb, tl, iw0,
                        arith::MulIOp::create(tb, tl, kw,
                                              index(tb, tl, g.dilation[1])));
                    Value next = ifInside(
                        tb, tl, emitWithin(tb, tl, iw, g.input[2]), acc.front(),
                        [&](OpBuilder &ib, Location il) -> Value {
                          Value x = loadInputs(ib, il, input, n, ih, iw, block,
                                               partial);
                          Value tap = arith::AddIOp::create(
                              ib, il,
                              arith::MulIOp::create(ib, il, kh,
                                                    index(ib, il, g.kw)),
                              kw);
                          Value w = arith::ExtSIOp::create(
                              ib, il, accType,
                              vector::LoadOp::create(
                                  ib, il, VectorType::get({kLanes}, i8),
                                  weights,
                                  mlir::ValueRange{tap, block,
                                                   index(ib, il, 0)}));
                          return arith::AddIOp::create(
                              ib, il, acc.front(),
                              arith::MulIOp::create(ib, il, x, w));
                        });
                    scf::YieldOp::create(tb, tl, next);
                  });
              return columns.getResult(0);
            });
        scf::YieldOp::create(rb, rl, sum);
      });
  return rows.getResult(0);
}

Kernel DepthwiseKernelBuilder::build() {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  // The weights as [tap][block][lane], zero beyond the last channel: a
  // block's weights of one tap are one vector load. Both factors are
  // sign-extended bytes, so that x86 multiplies them with vpmaddwd (one
  // uop, where a 32-bit vpmulld takes two).
  int64_t taps = chain.k;
  weightType = MemRefType::get({taps, blocks, kLanes}, b.getIntegerType(8));
  std::vector<int8_t> packed(taps * blocks * kLanes, 0);
  for (int64_t tap = 0; tap < taps; ++tap)
    for (int64_t channel = 0; channel < chain.n; ++channel)
      packed[tap * blocks * kLanes + channel] =
          chain.weight[tap * chain.n + channel];
  createGlobal(b, loc, "_weights", weightType, llvm::ArrayRef(packed));
  // (x - zp) is formed before the multiply: nothing to compensate.
  createEpilogueGlobals(b, loc, std::vector<int64_t>(chain.n, 0));

  mlir::func::FuncOp func = createFunction(b, loc);
  Value input = body->getArgument(0);
  // The output as [pixels, channels].
  Value out = mlir::memref::CollapseShapeOp::create(
      b, loc, body->getArgument(1),
      llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1, 2}, {3}});
  int64_t fullBlocks = chain.n / kLanes;
  forEach(b, loc, {chain.m}, {1},
          [&](OpBuilder &pb, Location l, mlir::ValueRange pixels) {
            Value pixel = pixels.front();
            Value n, ih0, iw0;
            std::tie(n, ih0, iw0) = emitPixelOrigin(pb, l, pixel);
            auto emitBlock = [&](OpBuilder &ob, Location bl, Value block,
                                 bool partial) {
              Value sums = emitSums(ob, bl, input, n, ih0, iw0, block, partial);
              emitEpilogue(ob, bl, out, block, pixel, {sums}, partial);
            };
            if (fullBlocks > 0)
              scf::ForOp::create(pb, l, index(pb, l, 0),
                                 index(pb, l, fullBlocks), index(pb, l, 1),
                                 mlir::ValueRange{},
                                 [&](OpBuilder &ob, Location bl, Value block,
                                     mlir::ValueRange) {
                                   emitBlock(ob, bl, block, false);
                                   scf::YieldOp::create(ob, bl);
                                 });
            if (chain.n % kLanes)
              emitBlock(pb, l, index(pb, l, fullBlocks), true);
          });
  mlir::func::ReturnOp::create(b, loc);
  return getKernel(func);
}

} // namespace

std::optional<Chain> matchDepthwiseStart(Operation *op) {
  if (auto conv = llvm::dyn_cast<tosa::DepthwiseConv2DOp>(op))
    return matchStart(conv);
  return std::nullopt;
}

Kernel buildDepthwiseKernel(mlir::ModuleOp module, const Chain &chain,
                            const KernelTarget &target, std::string name) {
  return DepthwiseKernelBuilder(module, chain, target, std::move(name)).build();
}

} // namespace qfx::codegen
