//===- MicroKernels.cpp - One GEMM microkernel per instruction ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "MicroKernels.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace vector = mlir::vector;

namespace qfx::codegen {
namespace {

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// `group0 + g`, or `g` without a group0.
Value offsetBy(OpBuilder &b, Location loc, Value group0, Value g) {
  return group0 ? arith::AddIOp::create(b, loc, group0, g).getResult() : g;
}

Value view(OpBuilder &b, Location loc, Value bytes,
           llvm::ArrayRef<int64_t> shape, Type type) {
  return mlir::memref::ViewOp::create(b, loc, MemRefType::get(shape, type),
                                      bytes, index(b, loc, 0),
                                      mlir::ValueRange{});
}

/// vpdpbusd (AVX-512 VNNI), vpmaddwd (AVX2), SDOT: per k group, the group of
/// each row of A (one int32: 4 bytes or 2 int16) broadcast straight from
/// memory to every lane, times each column block's weights.
class DotMicroKernel : public MicroKernel {
public:
  using MicroKernel::MicroKernel;

  bool takesInitialSums() const override { return true; }
  bool readsRowPositions() const override { return true; }

  std::pair<Value, Value> viewA(OpBuilder &b, Location loc, Value bytes,
                                int64_t rows, int64_t groups) const override {
    // Elements to fill, int32 groups to broadcast from.
    return {view(b, loc, bytes, {rows, groups * target.group},
                 b.getIntegerType(target.elementBits)),
            view(b, loc, bytes, {rows, groups}, b.getI32Type())};
  }

  void emitProducts(OpBuilder &b, Location loc, mlir::ModuleOp module,
                    const MicroKernelTile &tile, mlir::ValueRange init,
                    Consumer consume) const override {
    Type i32 = b.getI32Type();
    int64_t lanes = target.lanes, group = target.group;
    auto accType = VectorType::get({lanes}, i32);
    // A group vector: `group` elements per lane.
    auto bytesType =
        VectorType::get({group * lanes}, b.getIntegerType(target.elementBits));
    // LLVM's signature: (<lanes x i32> acc, <group lanes x iN> a, <group
    // lanes x iN> b), or without acc.
    mlir::func::FuncOp dot =
        target.accumulates
            ? getIntrinsic(module, target.dot, {accType, bytesType, bytesType},
                           accType)
            : getIntrinsic(module, target.dot, {bytesType, bytesType}, accType);
    auto loop = mlir::scf::ForOp::create(
        b, loc, tile.first, tile.end, index(b, loc, 1), init,
        [&](OpBuilder &lb, Location l, Value kg, mlir::ValueRange accs) {
          Value kk = offsetBy(lb, l, tile.weightGroup0, kg);
          llvm::SmallVector<Value> weightVectors;
          for (int64_t v = 0; v < tile.vectors; ++v) {
            Value block =
                arith::AddIOp::create(lb, l, tile.block0, index(lb, l, v));
            weightVectors.push_back(vector::LoadOp::create(
                lb, l, bytesType, tile.weights,
                mlir::ValueRange{block, kk, index(lb, l, 0)}));
          }
          llvm::SmallVector<Value> next;
          for (int64_t r = 0; r < tile.rows; ++r) {
            // The group of A at (row, group kg), as one int32 (with element
            // rows, of the elements, unaligned).
            Value word;
            if (tile.elementRows) {
              Value element = arith::AddIOp::create(
                  lb, l, tile.rowAt[r],
                  arith::MulIOp::create(lb, l, kg, index(lb, l, group)));
              Value groupOfA = vector::LoadOp::create(
                  lb, l,
                  VectorType::get({group},
                                  lb.getIntegerType(target.elementBits)),
                  tile.a, mlir::ValueRange{element});
              word = vector::ExtractOp::create(
                  lb, l,
                  vector::BitCastOp::create(lb, l, VectorType::get({1}, i32),
                                            groupOfA),
                  llvm::ArrayRef<int64_t>{0});
            } else {
              word = mlir::memref::LoadOp::create(
                  lb, l, tile.a, mlir::ValueRange{tile.rowAt[r], kg});
            }
            Value broadcast = vector::BitCastOp::create(
                lb, l, bytesType,
                vector::BroadcastOp::create(lb, l, accType, word));
            for (int64_t v = 0; v < tile.vectors; ++v) {
              Value acc = accs[r * tile.vectors + v];
              if (target.accumulates) {
                next.push_back(
                    mlir::func::CallOp::create(
                        lb, l, dot,
                        mlir::ValueRange{acc, broadcast, weightVectors[v]})
                        .getResult(0));
                continue;
              }
              Value sums =
                  mlir::func::CallOp::create(
                      lb, l, dot, mlir::ValueRange{broadcast, weightVectors[v]})
                      .getResult(0);
              next.push_back(arith::AddIOp::create(lb, l, acc, sums));
            }
          }
          mlir::scf::YieldOp::create(lb, l, next);
        });
    consume(b, loc, llvm::SmallVector<Value>(loop.getResults()));
  }
};

/// SMMLA (I8MM): per k group (8 bytes), a 2x8 block of each pair of rows of
/// A times the 8x2 block of each column pair, into 2x2 int32 blocks that
/// are shuffled into rows at the end. Packed A is [M / 2][groups][2][8].
class MatrixMicroKernel : public MicroKernel {
public:
  using MicroKernel::MicroKernel;

  int64_t getRowMultiple() const override { return 2; }

  std::pair<Value, Value> viewA(OpBuilder &b, Location loc, Value bytes,
                                int64_t rows, int64_t groups) const override {
    Value pairs = view(b, loc, bytes, {rows / 2, groups, 2 * target.group},
                       b.getIntegerType(8));
    return {pairs, pairs};
  }

  void storeA(OpBuilder &b, Location loc, Value v, Value elements, Value m,
              Value k) const override {
    auto divide = [&](Value x, int64_t d) -> std::pair<Value, Value> {
      return {arith::DivUIOp::create(b, loc, x, index(b, loc, d)),
              arith::RemUIOp::create(b, loc, x, index(b, loc, d))};
    };
    auto [pair, half] = divide(m, 2);
    auto [step, inStep] = divide(k, target.group);
    Value offset = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, half, index(b, loc, target.group)),
        inStep);
    mlir::memref::StoreOp::create(b, loc, v, elements,
                                  mlir::ValueRange{pair, step, offset});
  }

  void emitProducts(OpBuilder &b, Location loc, mlir::ModuleOp module,
                    const MicroKernelTile &tile, mlir::ValueRange,
                    Consumer consume) const override {
    Type i32 = b.getI32Type();
    // SMMLA's operands: a 2x2 int32 block [r0c0, r0c1, r1c0, r1c1], two rows
    // of 8 bytes of A, two columns of 8 bytes of weights.
    auto blockType = VectorType::get({4}, i32);
    auto bytesType = VectorType::get({16}, b.getIntegerType(8));
    int64_t rows = tile.rows, vectors = tile.vectors;
    int64_t pairs = (rows + 1) / 2, columnPairs = target.lanes / 2;
    Value zero = arith::ConstantOp::create(
        b, loc, blockType, mlir::DenseElementsAttr::get(blockType, int32_t{0}));
    mlir::func::FuncOp mmla = getIntrinsic(
        module, target.dot, {blockType, bytesType, bytesType}, blockType);
    Value pair0 =
        arith::DivUIOp::create(b, loc, tile.rowAt.front(), index(b, loc, 2));
    // Accumulator (p, v, q): row pair p, column block v, column pair q.
    auto at = [&](int64_t p, int64_t v, int64_t q) {
      return (p * vectors + v) * columnPairs + q;
    };
    llvm::SmallVector<Value> init(pairs * vectors * columnPairs, zero);
    auto loop = mlir::scf::ForOp::create(
        b, loc, tile.first, tile.end, index(b, loc, 1), init,
        [&](OpBuilder &lb, Location l, Value kg, mlir::ValueRange accs) {
          Value kk = offsetBy(lb, l, tile.weightGroup0, kg);
          llvm::SmallVector<Value> weightVectors;
          for (int64_t v = 0; v < vectors; ++v) {
            Value block =
                arith::AddIOp::create(lb, l, tile.block0, index(lb, l, v));
            for (int64_t q = 0; q < columnPairs; ++q)
              weightVectors.push_back(vector::LoadOp::create(
                  lb, l, bytesType, tile.weights,
                  mlir::ValueRange{block, kk, index(lb, l, q * 16)}));
          }
          llvm::SmallVector<Value> next(accs.begin(), accs.end());
          for (int64_t p = 0; p < pairs; ++p) {
            Value pair = arith::AddIOp::create(lb, l, pair0, index(lb, l, p));
            Value rowPair = vector::LoadOp::create(
                lb, l, bytesType, tile.a,
                mlir::ValueRange{pair, kg, index(lb, l, 0)});
            for (int64_t v = 0; v < vectors; ++v)
              for (int64_t q = 0; q < columnPairs; ++q)
                next[at(p, v, q)] =
                    mlir::func::CallOp::create(
                        lb, l, mmla,
                        mlir::ValueRange{accs[at(p, v, q)], rowPair,
                                         weightVectors[v * columnPairs + q]})
                        .getResult(0);
          }
          mlir::scf::YieldOp::create(lb, l, next);
        });
    // A row of a column block: its half of each column pair's 2x2 block.
    llvm::SmallVector<Value> sums;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        int64_t half = r % 2 * 2;
        llvm::SmallVector<Value> quarters;
        for (int64_t q = 0; q < columnPairs; q += 2)
          quarters.push_back(vector::ShuffleOp::create(
              b, loc, loop.getResult(at(r / 2, v, q)),
              loop.getResult(at(r / 2, v, q + 1)),
              llvm::ArrayRef<int64_t>{half, half + 1, half + 4, half + 5}));
        assert(quarters.size() == 2 && "an SMMLA column block is 8 columns");
        sums.push_back(vector::ShuffleOp::create(
            b, loc, quarters[0], quarters[1],
            llvm::ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
      }
    consume(b, loc, sums);
  }
};

/// AMX tiles: 16 rows of 64 bytes (of A: 64 k values; of the packed
/// weights: 16 groups of 4 k values for 16 columns), 16x16 int32 results.
constexpr int64_t kTileRows = 16;
constexpr int64_t kTileGroups = 16;

/// AMX (tdpbusd, A unsigned): per 64 k values, 16-row tiles of A and of each
/// column block's weights into 16x16 int32 tiles, stored to a stack buffer
/// and read back a row at a time. Packed A is [M rounded up to 16][K
/// rounded up to 64].
class TileMicroKernel : public MicroKernel {
public:
  using MicroKernel::MicroKernel;

  int64_t getRowMultiple() const override { return kTileRows; }
  int64_t getGroupMultiple() const override { return kTileGroups; }

  void emitProducts(OpBuilder &b, Location loc, mlir::ModuleOp,
                    const MicroKernelTile &tile, mlir::ValueRange,
                    Consumer consume) const override {
    Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
    int64_t lanes = target.lanes, rows = tile.rows, vectors = tile.vectors;
    auto accType = VectorType::get({lanes}, i32);
    // The tiles' results pass through a stack buffer, freed after
    // `consume` (the tile runs in a loop).
    auto scope = mlir::memref::AllocaScopeOp::create(b, loc, mlir::TypeRange{});
    OpBuilder sb = OpBuilder::atBlockEnd(&scope.getBodyRegion().emplaceBlock());
    Value scratch = mlir::memref::AllocaOp::create(
        sb, loc, MemRefType::get({2 * kTileRows, target.vectors * lanes}, i32),
        sb.getI64IntegerAttr(64));
    auto bytesTile = mlir::amx::TileType::get({kTileRows, 64}, i8);
    auto sumsTile = mlir::amx::TileType::get({kTileRows, lanes}, i32);
    int64_t aTiles = (rows + kTileRows - 1) / kTileRows;
    Value m0 = tile.rowAt.front();
    llvm::SmallVector<Value> init;
    for (int64_t i = 0; i < aTiles * vectors; ++i)
      init.push_back(mlir::amx::TileZeroOp::create(sb, loc, sumsTile));
    auto inTiles = [&](OpBuilder &ob, Value groups) -> Value {
      return arith::DivUIOp::create(ob, loc, groups,
                                    index(ob, loc, kTileGroups));
    };
    // Per 64 k values: `aTiles` tiles of A, `vectors` of weights, and their
    // products (tdpbusd: A unsigned, the weights signed).
    auto loop = mlir::scf::ForOp::create(
        sb, loc, inTiles(sb, tile.first), inTiles(sb, tile.end),
        index(sb, loc, 1), init,
        [&](OpBuilder &lb, Location l, Value kt, mlir::ValueRange accs) {
          Value firstGroup =
              arith::MulIOp::create(lb, l, kt, index(lb, l, kTileGroups));
          Value column = arith::MulIOp::create(lb, l, kt, index(lb, l, 64));
          llvm::SmallVector<Value> weightTiles, aTilesValues;
          for (int64_t v = 0; v < vectors; ++v)
            weightTiles.push_back(mlir::amx::TileLoadOp::create(
                lb, l, bytesTile, tile.weights,
                mlir::ValueRange{
                    arith::AddIOp::create(lb, l, tile.block0, index(lb, l, v)),
                    offsetBy(lb, l, tile.weightGroup0, firstGroup),
                    index(lb, l, 0)}));
          for (int64_t i = 0; i < aTiles; ++i)
            aTilesValues.push_back(mlir::amx::TileLoadOp::create(
                lb, l, bytesTile, tile.a,
                mlir::ValueRange{arith::AddIOp::create(
                                     lb, l, m0, index(lb, l, i * kTileRows)),
                                 column}));
          llvm::SmallVector<Value> next;
          for (int64_t i = 0; i < aTiles; ++i)
            for (int64_t v = 0; v < vectors; ++v) {
              auto product = mlir::amx::TileMulIOp::create(
                  lb, l, sumsTile, aTilesValues[i], weightTiles[v],
                  accs[i * vectors + v]);
              product.setIsZextLhs(true);
              next.push_back(product);
            }
          mlir::scf::YieldOp::create(lb, l, next);
        });
    for (int64_t i = 0; i < aTiles; ++i)
      for (int64_t v = 0; v < vectors; ++v)
        mlir::amx::TileStoreOp::create(
            sb, loc, scratch,
            mlir::ValueRange{index(sb, loc, i * kTileRows),
                             index(sb, loc, v * lanes)},
            loop.getResult(i * vectors + v));
    llvm::SmallVector<Value> sums;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        sums.push_back(vector::LoadOp::create(
            sb, loc, accType, scratch,
            mlir::ValueRange{index(sb, loc, r), index(sb, loc, v * lanes)}));
    consume(sb, loc, sums);
    mlir::memref::AllocaScopeReturnOp::create(sb, loc);
  }
};

} // namespace

std::pair<Value, Value> MicroKernel::viewA(OpBuilder &b, Location loc,
                                           Value bytes, int64_t rows,
                                           int64_t groups) const {
  Value elements = view(b, loc, bytes, {rows, groups * target.group},
                        b.getIntegerType(target.elementBits));
  return {elements, elements};
}

void MicroKernel::storeA(OpBuilder &b, Location loc, Value v, Value elements,
                         Value m, Value k) const {
  mlir::memref::StoreOp::create(b, loc, v, elements, mlir::ValueRange{m, k});
}

std::unique_ptr<MicroKernel> makeMicroKernel(const KernelTarget &target) {
  switch (target.microKernel) {
  case MicroKernelKind::Dot:
    return std::make_unique<DotMicroKernel>(target);
  case MicroKernelKind::Matrix:
    return std::make_unique<MatrixMicroKernel>(target);
  case MicroKernelKind::Tiles:
    return std::make_unique<TileMicroKernel>(target);
  }
  llvm_unreachable("unknown MicroKernelKind");
}

} // namespace qfx::codegen
