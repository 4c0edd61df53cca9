//===- MicroKernels.h - One GEMM microkernel per instruction ---*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The innermost layer of qfx-codegen's GEMM kernels, as IREE's ukernels are
// of its data-tiled matmuls: a microkernel computes the int32 sums of one
// tile (`rows` rows of A by `vectors` column blocks of the packed weights)
// over a range of k groups, from A and the weights packed in the layouts it
// defines. PackWeights.cpp packs the weights (in the IR), DotKernels.cpp
// packs A, loops over tiles (and a direct convolution's taps) and
// requantizes; the instruction lives only here, one
// implementation per MicroKernelKind, chosen by the target's table row
// (Kernels.h). tools/qfx-microkernels builds each one alone over random
// tiles for test/Codegen/Inputs/microkernel-test.c.
//
// The packed weights are the same for all: [column blocks][k groups][lane]
// [group] (a column's `group` k values in one lane; for SMMLA, 16 bytes are
// the 8x2 block of a column pair; for AMX, 16 groups are a tile's rows).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_CODEGEN_MICROKERNELS_H
#define QFX_LIB_CODEGEN_MICROKERNELS_H

#include "Kernels.h"

#include <memory>

namespace qfx::codegen {

/// One call of a microkernel: sums[r][v] (a vector of the target's lanes of
/// int32) = init + sum over groups g in [first, end) of A's group g of row r
/// times the weights' group weightGroup0 + g of column block block0 + v.
struct MicroKernelTile {
  int64_t rows = 0, vectors = 0;
  /// A as the microkernel reads it (MicroKernel::viewA's second view).
  mlir::Value a;
  /// The dot products: where each row's group 0 is in `a`, a row of its
  /// [positions, groups] int32 view (a matmul's row, a direct convolution's
  /// window plus tap), or with `elementRows` an element of its element view.
  /// SMMLA and AMX: one value, the tile's first row.
  llvm::SmallVector<mlir::Value> rowAt;
  bool elementRows = false;
  /// The packed weights and the tile's first column block.
  mlir::Value weights, block0;
  /// The groups summed; AMX: multiples of 16.
  mlir::Value first, end;
  /// Where group 0 of A is in the weights' groups (null: group 0).
  mlir::Value weightGroup0;
};

/// A GEMM microkernel: A's packed layout and the tile's products.
class MicroKernel {
public:
  explicit MicroKernel(const KernelTarget &target) : target(target) {}
  virtual ~MicroKernel() = default;

  /// Packed A holds M rounded up to a multiple of this, zero beyond M.
  virtual int64_t getRowMultiple() const { return 1; }
  /// The rows packed A holds for `rows` rows of A.
  int64_t getPackedRows(int64_t rows) const {
    int64_t multiple = getRowMultiple();
    return (rows + multiple - 1) / multiple * multiple;
  }
  /// Packed A and the weights hold k groups rounded up to a multiple of
  /// this, zero beyond K.
  virtual int64_t getGroupMultiple() const { return 1; }
  /// Whether the sums start from `init` (else from zero, `init` unused).
  virtual bool takesInitialSums() const { return false; }
  /// Whether the microkernel reads A through row positions that a direct
  /// convolution can point into a padded copy of its input (rowAt per row).
  virtual bool readsRowPositions() const { return false; }
  /// Packed A of `rows` (a multiple of getRowMultiple()) by `groups` k
  /// groups over `bytes` ([bytes] i8 of getPackedABytes): the view storeA
  /// writes elements through, and the one emitProducts reads.
  virtual std::pair<mlir::Value, mlir::Value> viewA(OpBuilder &b, Location loc,
                                                    Value bytes, int64_t rows,
                                                    int64_t groups) const;
  int64_t getPackedABytes(int64_t rows, int64_t groups) const {
    return rows * groups * target.group * target.elementBits / 8;
  }
  /// Stores element `v` (the target's element type) of A's row `m`, column
  /// `k` into `elements`, viewA's first view.
  virtual void storeA(OpBuilder &b, Location loc, Value v, Value elements,
                      Value m, Value k) const;
  /// Hands the tile's sums to `consume`, one vector of `lanes` int32 per
  /// row and column block, row-major; `init` as many (used where
  /// takesInitialSums()). The sums are values only inside `consume` (AMX's
  /// pass through a stack buffer freed after it).
  using Consumer = llvm::function_ref<void(OpBuilder &, Location,
                                           llvm::ArrayRef<Value> sums)>;
  virtual void emitProducts(OpBuilder &b, Location loc, mlir::ModuleOp module,
                            const MicroKernelTile &tile, mlir::ValueRange init,
                            Consumer consume) const = 0;

  const KernelTarget &target;
};

/// The microkernel of `target`: its table row's MicroKernelKind's
/// implementation.
std::unique_ptr<MicroKernel> makeMicroKernel(const KernelTarget &target);

} // namespace qfx::codegen

#endif // QFX_LIB_CODEGEN_MICROKERNELS_H
