//===- MicroKernelTests.cpp - The microkernels, tested alone --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/MicroKernelTests.h"

#include "MicroKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <random>

namespace qfx::codegen {
namespace {

struct TileCase {
  int64_t rows, vectors, groups;
};

/// The tiles: the largest and the smallest, then random ones (groups up to
/// 48 of the microkernel's multiple).
std::vector<TileCase> getCases(const KernelTarget &target,
                               const MicroKernel &microKernel, unsigned count,
                               uint32_t seed) {
  int64_t multiple = microKernel.getGroupMultiple();
  std::vector<TileCase> cases = {{target.rows, target.vectors, multiple},
                                 {1, 1, multiple}};
  std::mt19937 random(seed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(random() % (hi - lo + 1));
  };
  while (cases.size() < count)
    cases.push_back({pick(1, target.rows), pick(1, target.vectors),
                     pick(1, std::max<int64_t>(48 / multiple, 2)) * multiple});
  cases.resize(count);
  return cases;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// @tile_N(a, weights, sums): packs A as the microkernel does, runs it once
/// over all groups from zero sums and stores the sums.
mlir::func::FuncOp buildTile(mlir::ModuleOp module, const MicroKernel &kernel,
                             const TileCase &tile, size_t number) {
  const KernelTarget &target = kernel.target;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = module.getLoc();
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
  Type element = b.getIntegerType(target.elementBits);
  auto bytes = MemRefType::get({mlir::ShapedType::kDynamic}, i8);
  auto func =
      mlir::func::FuncOp::create(b, loc, "tile_" + std::to_string(number),
                                 b.getFunctionType({bytes, bytes, bytes}, {}));
  func.setPrivate();
  b.setInsertionPointToStart(func.addEntryBlock());
  auto view = [&](Value source, llvm::ArrayRef<int64_t> shape, Type type) {
    return mlir::memref::ViewOp::create(b, loc, MemRefType::get(shape, type),
                                        source, index(b, loc, 0),
                                        mlir::ValueRange{})
        .getResult();
  };
  int64_t k = tile.groups * target.group;
  int64_t packedRows = kernel.getPackedRows(tile.rows);
  Value a = view(func.getArgument(0), {tile.rows, k}, element);
  Value packed = mlir::memref::AllocOp::create(
      b, loc,
      MemRefType::get({kernel.getPackedABytes(packedRows, tile.groups)}, i8),
      mlir::ValueRange{}, b.getI64IntegerAttr(64));
  Value elements, read;
  std::tie(elements, read) =
      kernel.viewA(b, loc, packed, packedRows, tile.groups);
  mlir::linalg::FillOp::create(b, loc,
                               mlir::ValueRange{arith::ConstantOp::create(
                                   b, loc, b.getIntegerAttr(element, 0))},
                               mlir::ValueRange{elements});
  auto loop = [&](OpBuilder &ob, int64_t count,
                  llvm::function_ref<void(OpBuilder &, Value)> body) {
    mlir::scf::ForOp::create(
        ob, loc, index(ob, loc, 0), index(ob, loc, count), index(ob, loc, 1),
        mlir::ValueRange{},
        [&](OpBuilder &lb, Location, Value iv, mlir::ValueRange) {
          body(lb, iv);
          mlir::scf::YieldOp::create(lb, loc);
        });
  };
  loop(b, tile.rows, [&](OpBuilder &rb, Value m) {
    loop(rb, k, [&](OpBuilder &kb, Value kk) {
      Value v =
          mlir::memref::LoadOp::create(kb, loc, a, mlir::ValueRange{m, kk});
      kernel.storeA(kb, loc, v, elements, m, kk);
    });
  });

  MicroKernelTile operands;
  operands.rows = tile.rows;
  operands.vectors = tile.vectors;
  operands.a = read;
  if (kernel.readsRowPositions())
    for (int64_t r = 0; r < tile.rows; ++r)
      operands.rowAt.push_back(index(b, loc, r));
  else
    operands.rowAt.push_back(index(b, loc, 0));
  operands.weights =
      view(func.getArgument(1),
           {tile.vectors, tile.groups, target.group * target.lanes}, element);
  operands.block0 = index(b, loc, 0);
  operands.first = index(b, loc, 0);
  operands.end = index(b, loc, tile.groups);
  auto accType = VectorType::get({target.lanes}, i32);
  Value zero = arith::ConstantOp::create(
      b, loc, accType, mlir::DenseElementsAttr::get(accType, int32_t{0}));
  llvm::SmallVector<Value> init(tile.rows * tile.vectors, zero);
  Value sums =
      view(func.getArgument(2), {tile.rows, tile.vectors * target.lanes}, i32);
  kernel.emitProducts(
      b, loc, module, operands, init,
      [&](OpBuilder &sb, Location l, llvm::ArrayRef<Value> values) {
        for (int64_t r = 0; r < tile.rows; ++r)
          for (int64_t v = 0; v < tile.vectors; ++v)
            mlir::vector::StoreOp::create(
                sb, l, values[r * tile.vectors + v], sums,
                mlir::ValueRange{index(sb, l, r),
                                 index(sb, l, v * target.lanes)});
      });
  mlir::func::ReturnOp::create(b, loc);
  return func;
}

} // namespace
} // namespace qfx::codegen

llvm::Expected<std::string> qfx::buildMicroKernelTests(mlir::ModuleOp module,
                                                       NativeTarget target,
                                                       unsigned count,
                                                       uint32_t seed) {
  using namespace qfx::codegen;
  const KernelTarget *kernels = getKernels(target);
  if (!kernels)
    return llvm::createStringError(
        "target " + getNativeTargetInfo(target).name.str() +
        " has no microkernel (this machine's, for host)");
  if (count < 2)
    return llvm::createStringError("expected at least 2 tiles");
  std::unique_ptr<MicroKernel> microKernel = makeMicroKernel(*kernels);
  const MicroKernel &kernel = *microKernel;
  std::vector<TileCase> cases = getCases(*kernels, kernel, count, seed);
  llvm::SmallVector<mlir::func::FuncOp> tiles;
  for (auto [i, tile] : llvm::enumerate(cases))
    tiles.push_back(buildTile(module, kernel, tile, i));

  // The entry point: tile `case`.
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = module.getLoc();
  auto bytes = MemRefType::get({mlir::ShapedType::kDynamic}, b.getI8Type());
  auto entry = mlir::func::FuncOp::create(
      b, loc, kMicroKernelTestsEntry,
      b.getFunctionType({b.getI64Type(), bytes, bytes, bytes}, {}));
  b.setInsertionPointToStart(entry.addEntryBlock());
  llvm::SmallVector<int64_t> numbers(cases.size());
  std::iota(numbers.begin(), numbers.end(), 0);
  auto which = mlir::scf::IndexSwitchOp::create(
      b, loc, mlir::TypeRange{},
      arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                 entry.getArgument(0)),
      numbers, numbers.size());
  auto fill = [&](mlir::Region &region, mlir::func::FuncOp callee) {
    OpBuilder cb = OpBuilder::atBlockEnd(&region.emplaceBlock());
    if (callee)
      mlir::func::CallOp::create(cb, loc, callee,
                                 entry.getArguments().drop_front());
    mlir::scf::YieldOp::create(cb, loc);
  };
  for (auto [region, tile] : llvm::zip(which.getCaseRegions(), tiles))
    fill(region, tile);
  fill(which.getDefaultRegion(), nullptr);
  mlir::func::ReturnOp::create(b, loc);

  std::string header;
  llvm::raw_string_ostream os(header);
  os << "/* " << getNativeTargetInfo(kernels->target).name << "'s "
     << "microkernel: " << count << " tiles of seed " << seed
     << " (qfx-microkernels). */\n"
     << "#include <stdint.h>\n"
     << "#define QFX_UK_LANES " << kernels->lanes << "\n"
     << "#define QFX_UK_GROUP " << kernels->group << "\n"
     << "#define QFX_UK_ELEMENT_BITS " << kernels->elementBits << "\n"
     << "#define QFX_UK_UNSIGNED_A " << (kernels->unsignedA ? 1 : 0) << "\n"
     << "#define QFX_UK_TILES " << count << "\n"
     << "static const struct { int64_t rows, vectors, groups; } "
        "qfx_uk_tiles[] = {\n";
  for (const TileCase &tile : cases)
    os << llvm::formatv("  {{{0}, {1}, {2}},\n", tile.rows, tile.vectors,
                        tile.groups);
  os << "};\n"
     << "/* Each memref<?xi8> as (allocated, aligned, offset, size, "
        "stride). */\n"
     << "void " << kMicroKernelTestsEntry
     << "(int64_t, void *, void *, int64_t, int64_t, int64_t, void *, "
        "void *, int64_t, int64_t, int64_t, void *, void *, int64_t, "
        "int64_t, int64_t);\n"
     << "static inline void qfx_uk_run(int64_t tile, void *a, int64_t "
        "a_bytes, void *weights, int64_t weight_bytes, void *sums, int64_t "
        "sum_bytes) {\n"
     << "  " << kMicroKernelTestsEntry
     << "(tile, a, a, 0, a_bytes, 1, weights, weights, 0, weight_bytes, 1, "
        "sums, sums, 0, sum_bytes, 1);\n"
     << "}\n";
  return header;
}
