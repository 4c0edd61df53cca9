//===- FloatKernels.cpp - qfx-codegen's f32 convolution kernels -----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen's float kernels: a tosa.conv2d on f32 with a constant weight
// and bias, and a tosa.matmul on f32 with a constant weight (the
// convolutions and Linears of an observed model, which calibration runs,
// and those a quantized model leaves in float), as register-blocked GEMMs: a
// convolution over its windows, read from a zero-padded copy of the input
// as the int8 kernels read theirs, a matmul over A's rows. Each output
// starts from its bias (a matmul's from 0) and adds the products in k order
// (tap by tap, channel by channel), each product and sum rounded on its
// own: the order and the roundings of the generic lowering (TOSA's linalg
// convolution and matmul), so the results are the same floats. But for the
// zeros of a grouped convolution's weight (the exporter writes it as a
// conv2d whose weight is zero outside each output channel's group): a
// column block skips the channels of a tap that are zero for all its
// outputs, as PyTorch's grouped convolution never multiplies them. Adding
// those products (+-0.0) changes no sum but a -0.0 (to +0.0), and an
// infinite or NaN input there would make the sum NaN; the kernel leaves
// both as PyTorch computes them.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace qfx::codegen {
namespace {

using mlir::Block;
using mlir::Location;
using mlir::MemRefType;
using mlir::OpBuilder;
using mlir::Type;
using mlir::Value;
using mlir::VectorType;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

/// Builds the kernel of one float conv2d or matmul: globals for the packed
/// weights and the bias, and a function (input: memref<NxHxWxCxf32> or
/// memref<1xMxKxf32>, output: memref<NxOHxOWxOxf32> or memref<1xMxNxf32>).
class FloatKernelBuilder : KernelBuilderBase {
public:
  FloatKernelBuilder(mlir::ModuleOp module, const Chain &chain,
                     const KernelTarget &target, std::string name)
      : KernelBuilderBase(module, chain, target, std::move(name)) {
    if (chain.conv) {
      const ConvGeometry &g = *chain.conv;
      taps = g.kh * g.kw;
      channels = g.input[3];
      paddedHeight = g.pad[0] + g.input[1] + g.pad[1];
      paddedWidth = g.pad[2] + g.input[2] + g.pad[3];
    } else {
      taps = 1;
      channels = chain.k;
    }
    packedType = MemRefType::get({blocks, chain.k, kLanes},
                                 mlir::Float32Type::get(module.getContext()));
  }

  Kernel build();

private:
  /// One tile of `rows` output pixels from `m0` and `vectors` column blocks
  /// from `block0`, stored into `out` ([M, N]); a partial last block lane by
  /// lane.
  void emitTile(OpBuilder &b, Location loc, Value input, Value out, Value m0,
                int64_t rows, Value block0, int64_t vectors, bool partial);

  /// A convolution reads `taps` runs of `channels` per output pixel from its
  /// padded input ([positions, channels]); a matmul one run of K from A.
  int64_t taps, channels, paddedHeight = 0, paddedWidth = 0;
  /// The weights, [block][k][lane], zero beyond N.
  MemRefType packedType;
};

void FloatKernelBuilder::emitTile(OpBuilder &b, Location loc, Value input,
                                  Value out, Value m0, int64_t rows,
                                  Value block0, int64_t vectors, bool partial) {
  auto vectorType = VectorType::get({kLanes}, b.getF32Type());
  Value weights = getConstant("_weights");
  Value bias = getConstant("_bias");
  llvm::SmallVector<Value> blockIndex, init;
  for (int64_t v = 0; v < vectors; ++v)
    blockIndex.push_back(
        arith::AddIOp::create(b, loc, block0, index(b, loc, v)));
  // Every sum starts from its channel's bias, as TOSA's convolution does.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v)
      init.push_back(vector::LoadOp::create(
          b, loc, vectorType, bias,
          mlir::ValueRange{blockIndex[v], index(b, loc, 0)}));
  // The channels of each tap the tile's column blocks read: all, or the
  // union of their `_ranges`.
  Value firstOfTap, endOfTap;
  std::tie(firstOfTap, endOfTap) =
      emitTileRange(b, loc, block0, vectors, channels);
  llvm::SmallVector<Value> starts;
  for (int64_t r = 0; r < rows; ++r) {
    Value m = arith::AddIOp::create(b, loc, m0, index(b, loc, r));
    starts.push_back(
        chain.conv ? emitWindowStart(b, loc, m, paddedHeight, paddedWidth) : m);
  }
  auto tapLoop = mlir::scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, taps), index(b, loc, 1), init,
      [&](OpBuilder &tb, Location tl, Value tap, mlir::ValueRange tapAccs) {
        Value offset = chain.conv ? emitTapOffset(tb, tl, tap, paddedWidth)
                                  : index(tb, tl, 0);
        llvm::SmallVector<Value> at;
        for (Value start : starts)
          at.push_back(arith::AddIOp::create(tb, tl, start, offset));
        Value firstK =
            arith::MulIOp::create(tb, tl, tap, index(tb, tl, channels));
        auto loop = mlir::scf::ForOp::create(
            tb, tl, firstOfTap, endOfTap, index(tb, tl, 1), tapAccs,
            [&](OpBuilder &lb, Location l, Value c, mlir::ValueRange accs) {
              Value kk = arith::AddIOp::create(lb, l, firstK, c);
              llvm::SmallVector<Value> weightVectors;
              for (int64_t v = 0; v < vectors; ++v)
                weightVectors.push_back(vector::LoadOp::create(
                    lb, l, vectorType, weights,
                    mlir::ValueRange{blockIndex[v], kk, index(lb, l, 0)}));
              llvm::SmallVector<Value> next;
              for (int64_t r = 0; r < rows; ++r) {
                Value x = vector::BroadcastOp::create(
                    lb, l, vectorType,
                    mlir::memref::LoadOp::create(lb, l, input,
                                                 mlir::ValueRange{at[r], c}));
                // A multiply, then an add: no fused multiply-add, whose one
                // rounding would differ from the generic lowering's two.
                for (int64_t v = 0; v < vectors; ++v)
                  next.push_back(arith::AddFOp::create(
                      lb, l, accs[r * vectors + v],
                      arith::MulFOp::create(lb, l, x, weightVectors[v])));
              }
              mlir::scf::YieldOp::create(lb, l, next);
            });
        mlir::scf::YieldOp::create(tb, tl, loop.getResults());
      });
  int64_t valid = chain.n % kLanes;
  for (int64_t r = 0; r < rows; ++r) {
    Value row = arith::AddIOp::create(b, loc, m0, index(b, loc, r));
    for (int64_t v = 0; v < vectors; ++v) {
      Value sums = tapLoop.getResult(r * vectors + v);
      Value column0 =
          arith::MulIOp::create(b, loc, blockIndex[v], index(b, loc, kLanes));
      if (!partial) {
        vector::StoreOp::create(b, loc, sums, out,
                                mlir::ValueRange{row, column0});
        continue;
      }
      for (int64_t lane = 0; lane < valid; ++lane)
        mlir::memref::StoreOp::create(
            b, loc, vector::ExtractOp::create(b, loc, sums, lane), out,
            mlir::ValueRange{row, arith::AddIOp::create(b, loc, column0,
                                                        index(b, loc, lane))});
    }
  }
}

Kernel FloatKernelBuilder::build() {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  // Weights [block][k][lane] and the bias [block][lane], zero beyond N.
  std::vector<float> packed(blocks * chain.k * kLanes, 0.0f);
  for (int64_t kk = 0; kk < chain.k; ++kk)
    for (int64_t nn = 0; nn < chain.n; ++nn)
      packed[((nn / kLanes) * chain.k + kk) * kLanes + nn % kLanes] =
          chain.floatWeight[kk * chain.n + nn];
  createGlobal(b, loc, "_weights", packedType, llvm::ArrayRef(packed));
  std::vector<float> bias(blocks * kLanes, 0.0f);
  std::copy(chain.floatBias.begin(), chain.floatBias.end(), bias.begin());
  createGlobal(b, loc, "_bias", floatType, llvm::ArrayRef(bias));
  createRanges(b, loc, channels, chain.k, [&](int64_t block, int64_t kk) {
    auto first = packed.begin() + (block * chain.k + kk) * kLanes;
    return std::any_of(first, first + kLanes,
                       [](float w) { return w != 0.0f; });
  });

  mlir::func::FuncOp func = createFunction(b, loc);
  Type f32 = b.getF32Type();
  Value input = body->getArgument(0), out = body->getArgument(1);
  if (chain.conv) {
    // The input inside a border of zeros (TOSA pads a float convolution
    // with its zero point, 0), read as [positions, C].
    const ConvGeometry &g = *chain.conv;
    int64_t positions = g.input[0] * paddedHeight * paddedWidth;
    Value bytes = mlir::memref::AllocOp::create(
        b, loc, MemRefType::get({positions * channels * 4}, b.getI8Type()),
        mlir::ValueRange{}, b.getI64IntegerAttr(64));
    auto view = [&](llvm::ArrayRef<int64_t> shape) -> Value {
      return mlir::memref::ViewOp::create(b, loc, MemRefType::get(shape, f32),
                                          bytes, index(b, loc, 0),
                                          mlir::ValueRange{});
    };
    emitPaddedCopy(b, loc, input,
                   view({g.input[0], paddedHeight, paddedWidth, channels}),
                   arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f)),
                   [](OpBuilder &, Location, Value v) { return v; });
    input = view({positions, channels});
    out = mlir::memref::CollapseShapeOp::create(
        b, loc, out,
        llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1, 2}, {3}});
  } else {
    // A and the output as [M, K] and [M, N].
    llvm::SmallVector<mlir::ReassociationIndices> rows{{0, 1}, {2}};
    input = mlir::memref::CollapseShapeOp::create(b, loc, input, rows);
    out = mlir::memref::CollapseShapeOp::create(b, loc, out, rows);
  }
  emitTiles(b, loc, target.floatRows, getRangeTileBlocks(2),
            packedType.getNumElements() * 4 <= kL2Bytes,
            [&](OpBuilder &tb, Location l, Value m0, int64_t rows, Value block0,
                int64_t vectors, bool partial) {
              emitTile(tb, l, input, out, m0, rows, block0, vectors, partial);
            });
  // (Buffer deallocation frees a padded copy.)
  mlir::func::ReturnOp::create(b, loc);
  return getKernel(func);
}

} // namespace

Kernel buildFloatKernel(mlir::ModuleOp module, const Chain &chain,
                        const KernelTarget &target, std::string name) {
  return FloatKernelBuilder(module, chain, target, std::move(name)).build();
}

} // namespace qfx::codegen
