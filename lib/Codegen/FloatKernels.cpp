//===- FloatKernels.cpp - qfx-codegen's f32 contraction kernels -----------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen's float kernels: a tosa.conv2d on f32 with a constant weight
// and bias, and a tosa.matmul on f32 with a constant weight (the
// convolutions and Linears of an observed model, which calibration runs,
// and those a quantized model leaves in float) or, batched, with a weight
// computed at run time (attention's matmuls, which PyTorch's quantized
// matmul computes in float), as register-blocked GEMMs: a convolution over
// its windows, read from a zero-padded copy of the input as the int8
// kernels read theirs, a matmul over A's rows; a runtime weight is packed
// as the constant ones are, on every call. Each output
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
  /// from `block0` of the packed `weights` ([blocks, K, lanes]), stored into
  /// `out` ([M, N]); a partial last block lane by lane. The sums start from
  /// `bias` ([blocks, lanes]), or from 0 without one.
  void emitTile(OpBuilder &b, Location loc, Value input, Value weights,
                Value bias, Value out, Value m0, int64_t rows, Value block0,
                int64_t vectors, bool partial);
  /// The tiles of one [M, K] x [K, N] product.
  void emitTiles(OpBuilder &b, Location loc, Value input, Value weights,
                 Value bias, Value out);
  /// A matmul by a runtime weight: per batch, the weight packed as the
  /// constant ones are, then its tiles; the batches on threads when each
  /// alone is too small for them.
  void emitRuntimeMatmul(OpBuilder &b, Location loc);
  /// Copies `weight` ([K, N]) into `packed` ([blocks, K, lanes]), zeros
  /// beyond N.
  void emitPacking(OpBuilder &b, Location loc, Value weight, Value packed);

  /// A convolution reads `taps` runs of `channels` per output pixel from its
  /// padded input ([positions, channels]); a matmul one run of K from A.
  int64_t taps, channels, paddedHeight = 0, paddedWidth = 0;
  /// The weights, [block][k][lane], zero beyond N.
  MemRefType packedType;
};

void FloatKernelBuilder::emitTile(OpBuilder &b, Location loc, Value input,
                                  Value weights, Value bias, Value out,
                                  Value m0, int64_t rows, Value block0,
                                  int64_t vectors, bool partial) {
  auto vectorType = VectorType::get({kLanes}, b.getF32Type());
  llvm::SmallVector<Value> blockIndex, init;
  for (int64_t v = 0; v < vectors; ++v)
    blockIndex.push_back(
        arith::AddIOp::create(b, loc, block0, index(b, loc, v)));
  // Every sum starts from its channel's bias, as TOSA's convolution does,
  // or from 0.0, as the generic lowering's matmul.
  Value zeros;
  if (!bias)
    zeros = arith::ConstantOp::create(
        b, loc, mlir::DenseElementsAttr::get(vectorType, 0.0f));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v)
      init.push_back(
          bias ? vector::LoadOp::create(
                     b, loc, vectorType, bias,
                     mlir::ValueRange{blockIndex[v], index(b, loc, 0)})
               : zeros);
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

void FloatKernelBuilder::emitTiles(OpBuilder &b, Location loc, Value input,
                                   Value weights, Value bias, Value out) {
  KernelBuilderBase::emitTiles(b, loc, target.floatRows, getRangeTileBlocks(2),
                               packedType.getNumElements() * 4 <= kL2Bytes,
                               [&](OpBuilder &tb, Location l, Value m0,
                                   int64_t rows, Value block0, int64_t vectors,
                                   bool partial) {
                                 emitTile(tb, l, input, weights, bias, out, m0,
                                          rows, block0, vectors, partial);
                               });
}

void FloatKernelBuilder::emitPacking(OpBuilder &b, Location loc, Value weight,
                                     Value packed) {
  auto vectorType = VectorType::get({kLanes}, b.getF32Type());
  int64_t fullBlocks = chain.n / kLanes, valid = chain.n % kLanes;
  mlir::scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, chain.k), index(b, loc, 1),
      mlir::ValueRange{},
      [&](OpBuilder &kb, Location l, Value kk, mlir::ValueRange) {
        if (fullBlocks > 0)
          mlir::scf::ForOp::create(
              kb, l, index(kb, l, 0), index(kb, l, fullBlocks), index(kb, l, 1),
              mlir::ValueRange{},
              [&](OpBuilder &bb, Location bl, Value block, mlir::ValueRange) {
                Value column0 =
                    arith::MulIOp::create(bb, bl, block, index(bb, bl, kLanes));
                Value row = vector::LoadOp::create(
                    bb, bl, vectorType, weight, mlir::ValueRange{kk, column0});
                vector::StoreOp::create(
                    bb, bl, row, packed,
                    mlir::ValueRange{block, kk, index(bb, bl, 0)});
                mlir::scf::YieldOp::create(bb, bl);
              });
        if (valid) {
          // The last block lane by lane, zeros beyond N.
          Value block = index(kb, l, fullBlocks);
          vector::StoreOp::create(
              kb, l,
              arith::ConstantOp::create(
                  kb, l, mlir::DenseElementsAttr::get(vectorType, 0.0f)),
              packed, mlir::ValueRange{block, kk, index(kb, l, 0)});
          for (int64_t lane = 0; lane < valid; ++lane)
            mlir::memref::StoreOp::create(
                kb, l,
                mlir::memref::LoadOp::create(
                    kb, l, weight,
                    mlir::ValueRange{kk,
                                     index(kb, l, fullBlocks * kLanes + lane)}),
                packed, mlir::ValueRange{block, kk, index(kb, l, lane)});
        }
        mlir::scf::YieldOp::create(kb, l);
      });
}

void FloatKernelBuilder::emitRuntimeMatmul(OpBuilder &b, Location loc) {
  Type f32 = b.getF32Type();
  Value input = body->getArgument(0), out = body->getArgument(1),
        weight = body->getArgument(2);
  // The packed weights of every batch: each batch's are its own, so that
  // batches run on threads at once.
  Value packed = mlir::memref::AllocOp::create(
      b, loc, MemRefType::get({chain.batch, blocks, chain.k, kLanes}, f32),
      mlir::ValueRange{}, b.getI64IntegerAttr(64));
  // Batch `batch`'s [rows, columns] matrix of a [batch, rows, columns]
  // buffer (its [blocks, K, lanes] of `packed`).
  auto slice = [&](OpBuilder &sb, Location l, Value buffer, Value batch) {
    auto type = llvm::cast<MemRefType>(buffer.getType());
    llvm::SmallVector<mlir::OpFoldResult> offsets{batch},
        sizes{sb.getIndexAttr(1)}, strides(type.getRank(), sb.getIndexAttr(1));
    for (int64_t size : type.getShape().drop_front()) {
      offsets.push_back(sb.getIndexAttr(0));
      sizes.push_back(sb.getIndexAttr(size));
    }
    MemRefType sliceType = mlir::memref::SubViewOp::inferRankReducedResultType(
        type.getShape().drop_front(), type, offsets, sizes, strides);
    return mlir::memref::SubViewOp::create(sb, l, sliceType, buffer, offsets,
                                           sizes, strides)
        .getResult();
  };
  auto product = [&](OpBuilder &pb, Location l, Value batch) {
    Value weights = slice(pb, l, packed, batch);
    emitPacking(pb, l, slice(pb, l, weight, batch), weights);
    emitTiles(pb, l, slice(pb, l, input, batch), weights, /*bias=*/nullptr,
              slice(pb, l, out, batch));
  };
  Value zero = index(b, loc, 0), batches = index(b, loc, chain.batch),
        one = index(b, loc, 1);
  // The tiles of one batch take threads where that batch alone has the
  // work for them; else the batches do, where all have.
  int64_t perBatch = chain.m * chain.n * chain.k;
  if (target.parallel && perBatch < kParallelMacs &&
      chain.batch * perBatch >= kParallelMacs) {
    tilesOnThreads = false;
    mlir::scf::ParallelOp::create(
        b, loc, mlir::ValueRange{zero}, mlir::ValueRange{batches},
        mlir::ValueRange{one},
        [&](OpBuilder &pb, Location l, mlir::ValueRange ivs) {
          product(pb, l, ivs[0]);
        });
  } else {
    mlir::scf::ForOp::create(
        b, loc, zero, batches, one, mlir::ValueRange{},
        [&](OpBuilder &fb, Location l, Value batch, mlir::ValueRange) {
          product(fb, l, batch);
          mlir::scf::YieldOp::create(fb, l);
        });
  }
}

Kernel FloatKernelBuilder::build() {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  if (chain.runtimeWeight) {
    mlir::func::FuncOp func = createFunction(b, loc);
    emitRuntimeMatmul(b, loc);
    // (Buffer deallocation frees the packed weights.)
    mlir::func::ReturnOp::create(b, loc);
    return getKernel(func);
  }
  // Weights [block][k][lane] (qfx-pack-weights) and the bias [block][lane],
  // zero beyond N.
  createGlobal(b, loc, "_weights", packedType, chain.packed);
  auto packed = chain.packed.getValues<float>();
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
  emitTiles(b, loc, input, getConstant("_weights"), getConstant("_bias"), out);
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
