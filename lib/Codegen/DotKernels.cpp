//===- DotKernels.cpp - int8 matmul/conv chains to dot-product kernels ----===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen's GEMM kernels: an int8 TOSA matmul or conv2d (a GEMM over
// its input's windows) with a constant weight and its requantize epilogue
// (qfx-lower's Linear and Conv2d) becomes a call of a generated kernel that
// computes the same integers with a dot-product instruction: vpdpbusd (AVX-512
// VNNI), vpmaddwd (AVX2) or SDOT (AArch64); or with SMMLA (AArch64 I8MM), the
// same sums from 2x8 by 8x2 blocks.
//
// The instruction is the microkernel's (MicroKernels.h) and the weights come
// packed (qfx-pack-weights, PackWeights.cpp); this file packs A, loops over
// tiles (and a direct convolution's taps) and requantizes.
//
// With vpdpbusd, which multiplies unsigned by signed bytes, the kernel
// computes acc = sum_k (a + 128) * w (flipping the top bit of the int8
// activation adds 128); then the TOSA chain's value (sum_k (a - za) * w +
// conv bias) * 2^f + bias as (acc << f) + C[n], with C[n] folding the zero
// point, the 128 and both biases, all modulo 2^32 as TOSA's int32 arithmetic
// is; then tosa.rescale's arithmetic. The signed instructions need no 128.
//
//===----------------------------------------------------------------------===//

#include "MicroKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tosa = mlir::tosa;
namespace vector = mlir::vector;

namespace qfx::codegen {
namespace {

/// Builds the kernel of one chain: globals for the packed weights and the
/// epilogue constants, and a function (A: memref<1xMxKxi8>, O:
/// memref<1xMxNxi8>).
class KernelBuilder : KernelBuilderBase {
public:
  KernelBuilder(mlir::ModuleOp module, const Chain &chain,
                const KernelTarget &target, std::string name)
      : KernelBuilderBase(module, chain, target, std::move(name)),
        microKernel(makeMicroKernel(target)), group(target.group),
        direct(readsDirectly(chain, *microKernel)), tileBlocks(target.vectors) {
    const WeightPacking &packing = *chain.packing;
    groupsPerTap = packing.tapGroups;
    k4 = packing.getGroups();
    if (!direct)
      return;
    const ConvGeometry &g = *chain.conv;
    int64_t c = g.input[3];
    paddedHeight = g.pad[0] + g.input[1] + g.pad[1];
    paddedWidth = g.pad[2] + g.input[2] + g.pad[3];
    taps = packing.taps;
    // A kernel row's KW positions of C channels are contiguous in the
    // padded copy (without dilation), read as one run of KW * C values.
    // Its last group reads past the row: the copy has columns enough on
    // the right for that.
    rowTaps = taps != g.kh * g.kw;
    if (rowTaps) {
      channels = c;
      paddedWidth += (group - 1 + c - 1) / c;
    } else {
      channels = groupsPerTap * group;
    }
  }

  /// Whether the kernel reads a convolution's input directly, tap by tap
  /// from a padded copy (the microkernels that read A through row
  /// positions, with weights packed per tap or per kernel row, or a 1x1
  /// convolution), rather than as im2col rows.
  static bool readsDirectly(const Chain &chain,
                            const MicroKernel &microKernel) {
    return chain.conv && microKernel.readsRowPositions() &&
           (chain.packing->taps > 1 || chain.conv->kh * chain.conv->kw == 1);
  }

  Kernel build();

private:
  void createGlobals(OpBuilder &b, Location loc);
  /// One tile of `rows` rows from `m0` and `vectors` column blocks from
  /// `block0` (a partial last block when `partial`).
  void emitTile(OpBuilder &b, Location loc, Value a, Value out, Value m0,
                int64_t rows, Value block0, int64_t vectors, bool partial);
  /// Each column block's epilogue on its rows' `sums` (row-major).
  void emitEpilogues(OpBuilder &b, Location loc, Value out, Value m0,
                     int64_t rows, Value block0, int64_t vectors, bool partial,
                     llvm::ArrayRef<Value> sums);
  /// Fills `rows` (the kernel's copy of A) with A's rows as toElement makes
  /// them.
  void emitFlippedCopy(OpBuilder &b, Location loc, Value a, Value rows);
  /// Fills `rows` with the conv input's im2col rows as toElement makes them;
  /// padding reads the input zero point.
  void emitIm2col(OpBuilder &b, Location loc, Value input, Value rows);
  /// Fills `padded` ([N, padded H, padded W, channels]) with the conv input
  /// as toElement makes it, inside a border of the input zero point.
  void emitPaddedCopy(OpBuilder &b, Location loc, Value input, Value padded);
  /// Where row `m` of A starts in what the microkernel reads: the row, or
  /// for a direct convolution, the padded input position of output pixel
  /// m's window.
  Value emitRowStart(OpBuilder &b, Location loc, Value m);
  /// How far tap `tap`'s input is from its window's start, in positions.
  Value emitTapOffset(OpBuilder &b, Location loc, Value tap);

  std::unique_ptr<MicroKernel> microKernel;
  /// Elements of A and of the weights in one instruction's group.
  const int64_t group;
  /// A convolution read from a padded copy of its input, without im2col
  /// (the dot-product targets): K is `taps` runs of `channels` (C rounded
  /// up to a group), each read at the tap's offset from the window.
  const bool direct;
  /// A direct convolution whose taps are kernel rows: K is `taps` runs of
  /// KW * C values, each in `groupsPerTap` groups read from C-channel
  /// positions of the padded copy (`channels` is C).
  bool rowTaps = false;
  int64_t taps = 1, channels = 0, paddedHeight = 0, paddedWidth = 0;
  /// Groups of `group` k values, in all and per tap.
  int64_t k4, groupsPerTap;
  MemRefType packedType;
  /// Column blocks of the main tiles: the target's, or one where the blocks
  /// of a tile would read different channels (groups no wider than a block).
  int64_t tileBlocks;
};

void KernelBuilder::createGlobals(OpBuilder &b, Location loc) {
  Type element = b.getIntegerType(target.elementBits);
  packedType = MemRefType::get({blocks, k4, group * kLanes}, element);

  // The packed weights (qfx-pack-weights): [block][k / group][lane]
  // [group], zero beyond K and N (and beyond each tap's run).
  std::vector<int16_t> packed;
  if (target.elementBits == 8)
    llvm::append_range(packed, chain.packed.getValues<int8_t>());
  else
    llvm::append_range(packed, chain.packed.getValues<int16_t>());
  std::vector<int64_t> columnSums(chain.n, 0);
  for (int64_t block = 0; block < blocks; ++block)
    for (int64_t kg = 0; kg < k4; ++kg)
      for (int64_t lane = 0; lane < kLanes; ++lane) {
        int64_t nn = block * kLanes + lane;
        if (nn >= chain.n)
          break;
        auto first =
            packed.begin() + ((block * k4 + kg) * kLanes + lane) * group;
        for (int64_t e = 0; e < group; ++e)
          columnSums[nn] += first[e];
      }
  // The microkernels that read A by row positions skip, per column block,
  // the groups of a tap whose weights are all zero (the packed weights'
  // layout does not change).
  if (microKernel->readsRowPositions()) {
    createRanges(b, loc, groupsPerTap, k4, [&](int64_t block, int64_t kg) {
      auto first = packed.begin() + (block * k4 + kg) * group * kLanes;
      return std::any_of(first, first + group * kLanes,
                         [](int16_t w) { return w != 0; });
    });
    tileBlocks = getRangeTileBlocks(target.vectors);
  }
  createGlobal(b, loc, "_weights", packedType, chain.packed);
  // The zero-point term (a - za) * w = a * w - za * w, and the 128 that an
  // unsigned A adds.
  int64_t offset = target.unsignedA ? 128 : 0;
  std::vector<int64_t> compensation(chain.n);
  for (int64_t nn = 0; nn < chain.n; ++nn)
    compensation[nn] = (offset + chain.inputZp) * columnSums[nn];
  createEpilogueGlobals(b, loc, compensation);
}

void KernelBuilder::emitTile(OpBuilder &b, Location loc, Value a, Value out,
                             Value m0, int64_t rows, Value block0,
                             int64_t vectors, bool partial) {
  MicroKernelTile tile;
  tile.rows = rows;
  tile.vectors = vectors;
  tile.a = a;
  tile.weights = getConstant("_weights");
  tile.block0 = block0;
  if (!microKernel->readsRowPositions()) {
    tile.rowAt = {m0};
    tile.first = index(b, loc, 0);
    tile.end = index(b, loc, k4);
    microKernel->emitProducts(
        b, loc, module, tile, {},
        [&](OpBuilder &sb, Location l, llvm::ArrayRef<Value> sums) {
          emitEpilogues(sb, l, out, m0, rows, block0, vectors, partial, sums);
        });
    return;
  }
  // Each column block's sums start from its C (or zeros).
  llvm::SmallVector<Value> blockSums, init;
  for (int64_t v = 0; v < vectors; ++v)
    blockSums.push_back(emitInitialSums(
        b, loc, arith::AddIOp::create(b, loc, block0, index(b, loc, v))));
  for (int64_t r = 0; r < rows; ++r)
    init.append(blockSums);
  // The groups of each tap the tile's column blocks read: all, or the
  // union of their `_ranges`.
  std::tie(tile.first, tile.end) =
      emitTileRange(b, loc, block0, vectors, groupsPerTap);
  // Where each row of the tile starts; per tap (one for a matmul), the
  // microkernel over the groups of k values of the tap.
  llvm::SmallVector<Value> starts;
  for (int64_t r = 0; r < rows; ++r)
    starts.push_back(emitRowStart(
        b, loc, arith::AddIOp::create(b, loc, m0, index(b, loc, r))));
  auto tapLoop = mlir::scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, taps), index(b, loc, 1), init,
      [&](OpBuilder &tb, Location tl, Value tap, mlir::ValueRange tapAccs) {
        Value offset = emitTapOffset(tb, tl, tap);
        // A row's group 0 in the tap: its position, or with kernel-row
        // taps the element its position starts at.
        MicroKernelTile tapTile = tile;
        tapTile.elementRows = rowTaps;
        for (Value start : starts) {
          Value at = arith::AddIOp::create(tb, tl, start, offset);
          if (rowTaps)
            at = arith::MulIOp::create(tb, tl, at, index(tb, tl, channels));
          tapTile.rowAt.push_back(at);
        }
        tapTile.weightGroup0 =
            arith::MulIOp::create(tb, tl, tap, index(tb, tl, groupsPerTap));
        microKernel->emitProducts(
            tb, tl, module, tapTile, tapAccs,
            [](OpBuilder &yb, Location l, llvm::ArrayRef<Value> sums) {
              mlir::scf::YieldOp::create(yb, l, sums);
            });
      });
  emitEpilogues(b, loc, out, m0, rows, block0, vectors, partial,
                llvm::SmallVector<Value>(tapLoop.getResults()));
}

void KernelBuilder::emitEpilogues(OpBuilder &b, Location loc, Value out,
                                  Value m0, int64_t rows, Value block0,
                                  int64_t vectors, bool partial,
                                  llvm::ArrayRef<Value> sums) {
  // Each column block's epilogue: its rows' sums.
  for (int64_t v = 0; v < vectors; ++v) {
    llvm::SmallVector<Value> rowSums;
    for (int64_t r = 0; r < rows; ++r)
      rowSums.push_back(sums[r * vectors + v]);
    // (The dot products' sums start from C; SMMLA's and AMX's from zero.)
    emitEpilogue(b, loc, out,
                 arith::AddIOp::create(b, loc, block0, index(b, loc, v)), m0,
                 rowSums, partial,
                 microKernel->takesInitialSums() && sumsStartFromBias());
  }
}

Value KernelBuilder::emitRowStart(OpBuilder &b, Location loc, Value m) {
  if (!direct)
    return m;
  return emitWindowStart(b, loc, m, paddedHeight, paddedWidth);
}

Value KernelBuilder::emitTapOffset(OpBuilder &b, Location loc, Value tap) {
  if (!direct)
    return index(b, loc, 0);
  if (rowTaps)
    return arith::MulIOp::create(
        b, loc, tap, index(b, loc, chain.conv->dilation[0] * paddedWidth));
  return KernelBuilderBase::emitTapOffset(b, loc, tap, paddedWidth);
}

void KernelBuilder::emitPaddedCopy(OpBuilder &b, Location loc, Value input,
                                   Value padded) {
  Value top = emitTopBit(b, loc);
  // The border (and the channels beyond C, whose weights are zero) reads the
  // input zero point, as TOSA's convolution pads.
  KernelBuilderBase::emitPaddedCopy(b, loc, input, padded,
                                    emitPaddingElement(b, loc),
                                    [&](OpBuilder &cb, Location cl, Value v) {
                                      return toElement(cb, cl, v, top);
                                    });
}

void KernelBuilder::emitFlippedCopy(OpBuilder &b, Location loc, Value a,
                                    Value rows) {
  Value a2 = mlir::memref::CollapseShapeOp::create(
      b, loc, a, llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}, {2}});
  Value top = emitTopBit(b, loc);
  // Rows in parallel; LLVM vectorizes the inner loop.
  forEach(b, loc, {chain.m}, {1},
          [&](OpBuilder &pb, Location l, mlir::ValueRange row) {
            mlir::scf::ForOp::create(
                pb, l, index(pb, l, 0), index(pb, l, chain.k), index(pb, l, 1),
                mlir::ValueRange{},
                [&](OpBuilder &ib, Location il, Value kk, mlir::ValueRange) {
                  Value v = mlir::memref::LoadOp::create(
                      ib, il, a2, mlir::ValueRange{row.front(), kk});
                  microKernel->storeA(ib, il, toElement(ib, il, v, top), rows,
                                      row.front(), kk);
                  mlir::scf::YieldOp::create(ib, il);
                });
          });
}

void KernelBuilder::emitIm2col(OpBuilder &b, Location loc, Value input,
                               Value rows) {
  namespace ar = mlir::arith;
  const ConvGeometry &g = *chain.conv;
  int64_t channels = g.input[3], taps = g.kh * g.kw;
  Value top = emitTopBit(b, loc);
  Value padding = emitPaddingElement(b, loc);
  auto c = [&](OpBuilder &ob, Location l, int64_t v) {
    return index(ob, l, v);
  };
  auto loop = [&](OpBuilder &ob, Location l, int64_t count,
                  llvm::function_ref<void(OpBuilder &, Location, Value)> fn) {
    mlir::scf::ForOp::create(
        ob, l, c(ob, l, 0), c(ob, l, count), c(ob, l, 1), mlir::ValueRange{},
        [&](OpBuilder &ib, Location il, Value iv, mlir::ValueRange) {
          fn(ib, il, iv);
          mlir::scf::YieldOp::create(ib, il);
        });
  };
  // Output pixels in parallel.
  forEach(b, loc, {chain.m}, {1},
          [&](OpBuilder &pb, Location l, mlir::ValueRange pixels) {
            Value pixel = pixels.front();
            Value n, ih0, iw0;
            std::tie(n, ih0, iw0) = emitPixelOrigin(pb, l, pixel);
            loop(pb, l, taps, [&](OpBuilder &tb, Location tl, Value tap) {
              Value kh = ar::DivUIOp::create(tb, tl, tap, c(tb, tl, g.kw));
              Value kw = ar::RemUIOp::create(tb, tl, tap, c(tb, tl, g.kw));
              Value ih = ar::AddIOp::create(
                  tb, tl, ih0,
                  ar::MulIOp::create(tb, tl, kh, c(tb, tl, g.dilation[0])));
              Value iw = ar::AddIOp::create(
                  tb, tl, iw0,
                  ar::MulIOp::create(tb, tl, kw, c(tb, tl, g.dilation[1])));
              Value inside =
                  ar::AndIOp::create(tb, tl, emitWithin(tb, tl, ih, g.input[1]),
                                     emitWithin(tb, tl, iw, g.input[2]));
              Value base = ar::MulIOp::create(tb, tl, tap, c(tb, tl, channels));
              mlir::scf::IfOp::create(
                  tb, tl, inside,
                  [&](OpBuilder &ib, Location il) {
                    loop(ib, il, channels,
                         [&](OpBuilder &cb, Location cl, Value ch) {
                           Value v = mlir::memref::LoadOp::create(
                               cb, cl, input, mlir::ValueRange{n, ih, iw, ch});
                           microKernel->storeA(
                               cb, cl, toElement(cb, cl, v, top), rows, pixel,
                               ar::AddIOp::create(cb, cl, base, ch));
                         });
                    mlir::scf::YieldOp::create(ib, il);
                  },
                  [&](OpBuilder &ib, Location il) {
                    loop(ib, il, channels,
                         [&](OpBuilder &cb, Location cl, Value ch) {
                           microKernel->storeA(
                               cb, cl, padding, rows, pixel,
                               ar::AddIOp::create(cb, cl, base, ch));
                         });
                    mlir::scf::YieldOp::create(ib, il);
                  });
            });
          });
}

Kernel KernelBuilder::build() {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  createGlobals(b, loc);
  Type i8 = b.getIntegerType(8);
  mlir::func::FuncOp func = createFunction(b, loc);
  Value a = body->getArgument(0);
  // The output as [M, N] rows.
  Value out = mlir::memref::CollapseShapeOp::create(
      b, loc, body->getArgument(1),
      chain.conv ? llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1, 2}, {3}}
                 : llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}, {2}});

  // What the microkernel reads: A in the target's element type (int8 with
  // the top bit flipped, i.e. + 128, where its A is unsigned; int16 on AVX2),
  // packed in the microkernel's layout (MicroKernel::viewA), M and K rounded
  // up to its multiples and zero beyond (the padded weights are zero there).
  // A direct convolution reads a zero-point-padded copy of its input
  // instead, [N, padded H, padded W, C rounded up to a group], as elements
  // and as int32 groups ([positions, groups]); with kernel-row taps, [N,
  // padded H, padded W, C] read as elements.
  Type element = b.getIntegerType(target.elementBits);
  int64_t copiedRows = microKernel->getPackedRows(chain.m);
  int64_t positions =
      direct ? chain.conv->input[0] * paddedHeight * paddedWidth : 0;
  int64_t bytesOfA = direct ? positions * channels * target.elementBits / 8
                            : microKernel->getPackedABytes(copiedRows, k4);
  Value bytes = mlir::memref::AllocOp::create(
      b, loc, MemRefType::get({bytesOfA}, i8), mlir::ValueRange{},
      b.getI64IntegerAttr(64));
  auto view = [&](llvm::ArrayRef<int64_t> shape, Type type) -> Value {
    return mlir::memref::ViewOp::create(b, loc, MemRefType::get(shape, type),
                                        bytes, index(b, loc, 0),
                                        mlir::ValueRange{});
  };
  Value a2;
  if (direct) {
    const ConvGeometry &g = *chain.conv;
    emitPaddedCopy(
        b, loc, a,
        view({g.input[0], paddedHeight, paddedWidth, channels}, element));
    a2 = rowTaps ? view({positions * channels}, element)
                 : view({positions, groupsPerTap}, b.getI32Type());
  } else {
    Value rowsOfA;
    std::tie(rowsOfA, a2) = microKernel->viewA(b, loc, bytes, copiedRows, k4);
    if (k4 * group != chain.k || copiedRows != chain.m) {
      Value zero =
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, 0));
      mlir::linalg::FillOp::create(b, loc, mlir::ValueRange{zero},
                                   mlir::ValueRange{rowsOfA});
    }
    if (chain.conv)
      emitIm2col(b, loc, a, rowsOfA);
    else
      emitFlippedCopy(b, loc, a, rowsOfA);
  }

  emitTiles(b, loc, target.rows, tileBlocks,
            packedType.getNumElements() * target.elementBits / 8 <= kL2Bytes,
            [&](OpBuilder &tb, Location l, Value m0, int64_t rows, Value block0,
                int64_t vectors, bool partial) {
              emitTile(tb, l, a2, out, m0, rows, block0, vectors, partial);
            });
  // (Buffer deallocation frees the padded copy.)
  mlir::func::ReturnOp::create(b, loc);
  return getKernel(func);
}

} // namespace

WeightPacking getWeightPacking(const Chain &chain, const KernelTarget &target) {
  // The float kernels (FloatKernels.cpp): k values one at a time, a
  // convolution read tap by tap from its padded input.
  if (chain.f32)
    return chain.conv ? WeightPacking{target.floatLanes, 1,
                                      chain.conv->kh * chain.conv->kw,
                                      chain.conv->input[3]}
                      : WeightPacking{target.floatLanes, 1, 1, chain.k};
  std::unique_ptr<MicroKernel> microKernel = makeMicroKernel(target);
  int64_t group = target.group;
  auto groups = [&](int64_t elements) {
    return (elements + group - 1) / group;
  };
  if (!chain.conv || !microKernel->readsRowPositions()) {
    // K in one run, as a matmul's or an im2col row.
    int64_t multiple = microKernel->getGroupMultiple();
    return {target.lanes, group, 1,
            (groups(chain.k) + multiple - 1) / multiple * multiple};
  }
  const ConvGeometry &g = *chain.conv;
  int64_t c = g.input[3];
  // Where C is not a whole number of groups (a stem's 3 channels), a tap
  // is a kernel row when that takes fewer groups (7x7: 6, not 7).
  if (c % group && g.dilation[1] == 1 && groups(g.kw * c) < g.kw * groups(c))
    return {target.lanes, group, g.kh, groups(g.kw * c)};
  return {target.lanes, group, g.kh * g.kw, groups(c)};
}

bool readsPacking(const Chain &chain, const KernelTarget &target) {
  if (!chain.packing)
    return false;
  const WeightPacking &packing = *chain.packing;
  if (chain.f32)
    return packing == getWeightPacking(chain, target);
  if (packing.lanes != target.lanes || packing.group != target.group ||
      chain.packed.getElementType().getIntOrFloatBitWidth() !=
          static_cast<unsigned>(target.elementBits))
    return false;
  if (packing == getWeightPacking(chain, target))
    return true;
  // K as one run: every microkernel reads it as a GEMM (a convolution's
  // im2col rows), if it is padded to its multiple of groups.
  std::unique_ptr<MicroKernel> microKernel = makeMicroKernel(target);
  return packing.taps == 1 &&
         packing.tapGroups % microKernel->getGroupMultiple() == 0;
}

Kernel buildDotKernel(mlir::ModuleOp module, const Chain &chain,
                      const KernelTarget &target, std::string name) {
  return KernelBuilder(module, chain, target, std::move(name)).build();
}

} // namespace qfx::codegen
