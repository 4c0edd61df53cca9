//===- Kernels.h - qfx-codegen's chains, targets and kernel pieces -*- C++
//-*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// What the kernels of qfx-codegen share: what they replace (a qfx.contract,
// read into a Chain, or an int8 max pool), the targets' instructions, and
// the pieces of every kernel (constant globals, the requantizing epilogue,
// the direct convolution's padded input, the tiles and the loops that run on
// threads).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_CODEGEN_KERNELS_H
#define QFX_LIB_CODEGEN_KERNELS_H

#include "qfx/Codegen/Targets.h"
#include "qfx/Support/LLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace qfx {
class ContractOp;
} // namespace qfx

namespace qfx::codegen {

// With qfx/Support/LLVM.h's names (Value, Type, OpBuilder, ...), those the
// kernel builders use most.
using mlir::MemRefType;
using mlir::RankedTensorType;
using mlir::VectorType;
namespace arith = mlir::arith;

/// The microkernel implementations (MicroKernels.h): what instruction a
/// target's GEMM tiles are built from.
enum class MicroKernelKind {
  /// A dot-product instruction that multiplies groups of A and weight
  /// elements (4 bytes or 2 int16 in 32 bits) and sums each group into one
  /// of `lanes` int32 lanes: vpdpbusd, vpmaddwd, SDOT.
  Dot,
  /// A matrix instruction (SMMLA) that multiplies a 2x8 block of A by an 8x2
  /// block of weights into a 2x2 block of int32.
  Matrix,
  /// AMX: tdpbusd on 16-row tiles of A (64 k values a row) and of the packed
  /// weights (16 groups of 4 k values a row), into 16x16 int32 tiles.
  Tiles,
};

/// A row of the table of targets' kernels: the instruction and the shapes
/// of its microkernel, and of the other kernels.
struct KernelTarget {
  /// The registry's target these are the kernels of.
  NativeTarget target;
  llvm::StringLiteral prefix; // of the kernels' function names
  /// Output columns of one column block (one vector of int32 a row).
  int64_t lanes;
  /// The LLVM intrinsic: (acc, a, b) -> acc, or (a, b) -> sums when
  /// `accumulates` is false (then added to acc).
  llvm::StringLiteral dot;
  bool accumulates;
  /// Bits of one A / weight element: 8 or 16.
  int64_t elementBits;
  /// The k values one instruction sums a lane (a row of a 2x8 block with
  /// `matrix`): A and the weights are padded to a multiple.
  int64_t group;
  /// The instruction multiplies unsigned A bytes: A is made unsigned by
  /// flipping its top bit (+128), compensated in the folded constant.
  bool unsignedA;
  /// The tiles run as scf.parallel (OpenMP threads).
  bool parallel;
  /// Column blocks of the microkernel.
  int64_t vectors;
  /// The GEMM microkernel's implementation.
  MicroKernelKind microKernel;
  /// Rows of the microkernel.
  int64_t rows;
  /// The float convolution kernels (FloatKernels.cpp): f32 lanes of a
  /// vector register, and rows of the microkernel (of two vectors).
  int64_t floatLanes;
  int64_t floatRows;
  /// An LLVM intrinsic that rounds `lanes` floats half to even into int32
  /// in one instruction, (floats, passthru, mask, rounding) -> int32; empty
  /// for LLVM's roundeven and a conversion (two instructions on x86).
  llvm::StringLiteral roundToInt = "";
  /// The target whose kernels run the depthwise convolutions and pools
  /// (the vector kernels), where not this one's (AMX: VNNI's).
  const KernelTarget *vectorKernels = nullptr;

  bool is(MicroKernelKind kind) const { return microKernel == kind; }
  /// This target's kernels for depthwise convolutions and pools.
  const KernelTarget &getVectorKernels() const {
    return vectorKernels ? *vectorKernels : *this;
  }
};

// vcvtps2dq with its rounding mode in the instruction ({rn-sae}: half to
// even, whatever MXCSR says).
inline constexpr llvm::StringLiteral kAvx512RoundToInt =
    "llvm.x86.avx512.mask.cvtps2dq.512";

// vpdpbusd: unsigned x signed bytes, 16 lanes of a zmm register.
inline constexpr KernelTarget kVnni{NativeTarget::X86Avx512Vnni,
                                    "qfx_vnni_",
                                    16,
                                    "llvm.x86.avx512.vpdpbusd.512",
                                    /*accumulates=*/true,
                                    /*elementBits=*/8,
                                    /*group=*/4,
                                    /*unsignedA=*/true,
                                    /*parallel=*/true,
                                    /*vectors=*/2,
                                    /*microKernel=*/MicroKernelKind::Dot,
                                    /*rows=*/8,
                                    /*floatLanes=*/16,
                                    /*floatRows=*/8,
                                    /*roundToInt=*/kAvx512RoundToInt};
// AVX2 without VNNI: vpmaddwd on sign-extended int16 pairs (exact; the byte
// form vpmaddubsw saturates), then an add; 8 lanes of a ymm register.
inline constexpr KernelTarget kAvx2{NativeTarget::X86Avx2,
                                    "qfx_avx2_",
                                    8,
                                    "llvm.x86.avx2.pmadd.wd",
                                    /*accumulates=*/false,
                                    /*elementBits=*/16,
                                    /*group=*/2,
                                    /*unsignedA=*/false,
                                    /*parallel=*/true,
                                    /*vectors=*/2,
                                    /*microKernel=*/MicroKernelKind::Dot,
                                    /*rows=*/8,
                                    /*floatLanes=*/8,
                                    /*floatRows=*/4};
// SDOT: signed x signed bytes, 4 lanes of a NEON register. (No OpenMP
// runtime is assumed on AArch64.)
inline constexpr KernelTarget kSdot{NativeTarget::AArch64DotProd,
                                    "qfx_sdot_",
                                    4,
                                    "llvm.aarch64.neon.sdot.v4i32.v16i8",
                                    /*accumulates=*/true,
                                    /*elementBits=*/8,
                                    /*group=*/4,
                                    /*unsignedA=*/false,
                                    /*parallel=*/false,
                                    /*vectors=*/2,
                                    /*microKernel=*/MicroKernelKind::Dot,
                                    /*rows=*/8,
                                    /*floatLanes=*/4,
                                    /*floatRows=*/8};
// SMMLA (I8MM): a signed 2x8 by 8x2 byte product into 2x2 int32 lanes; a
// column block is 8 columns (4 column pairs), so that an 8-row tile holds 16
// accumulator registers.
inline constexpr KernelTarget kI8mm{NativeTarget::AArch64I8mm,
                                    "qfx_i8mm_",
                                    8,
                                    "llvm.aarch64.neon.smmla.v4i32.v16i8",
                                    /*accumulates=*/true,
                                    /*elementBits=*/8,
                                    /*group=*/8,
                                    /*unsignedA=*/false,
                                    /*parallel=*/false,
                                    /*vectors=*/1,
                                    /*microKernel=*/MicroKernelKind::Matrix,
                                    /*rows=*/8,
                                    /*floatLanes=*/4,
                                    /*floatRows=*/8};

// AMX-INT8 (tdpbusd, unsigned A like vpdpbusd): 32x32 microkernels of four
// 16x16 tiles; the `dot` field is unused (the amx dialect's ops).
inline constexpr KernelTarget kAmx{NativeTarget::X86Amx,
                                   "qfx_amx_",
                                   16,
                                   /*dot=*/"",
                                   /*accumulates=*/true,
                                   /*elementBits=*/8,
                                   /*group=*/4,
                                   /*unsignedA=*/true,
                                   /*parallel=*/true,
                                   /*vectors=*/2,
                                   /*microKernel=*/MicroKernelKind::Tiles,
                                   /*rows=*/32,
                                   /*floatLanes=*/16,
                                   /*floatRows=*/8,
                                   /*roundToInt=*/kAvx512RoundToInt,
                                   /*vectorKernels=*/&kVnni};

/// The kernels of `target`; none for NativeTarget::None (or a host without
/// an instruction the kernels use).
const KernelTarget *getKernels(NativeTarget target);

/// The packed weights' budget in L2 (a quarter of the development
/// machine's 1 MB per core): a kernel whose packed weights fit splits its
/// rows between threads rather than its column blocks.
inline constexpr int64_t kL2Bytes = 256 * 1024;

/// The attribute of the private declarations that stand for LLVM
/// intrinsics until qfx-lower-intrinsic-calls.
inline constexpr llvm::StringLiteral kIntrinsicAttr = "qfx_llvm_intrinsic";

/// A convolution's geometry (NHWC input and output).
struct ConvGeometry {
  llvm::SmallVector<int64_t, 4> input;  // N, H, W, C
  llvm::SmallVector<int64_t, 4> output; // N, OH, OW, O
  int64_t kh = 1, kw = 1;
  llvm::SmallVector<int64_t, 4> pad; // top, bottom, left, right
  llvm::SmallVector<int64_t, 2> stride, dilation;
  /// A depthwise convolution's output channels per input channel (output
  /// channel o reads input channel o / multiplier); 0 for a conv2d.
  int64_t multiplier = 0;
};

/// How a GEMM's weights are packed for a microkernel: the parameters of
/// #qfx.weight_packing (QFXAttrs.td): [blocks][taps * tapGroups][lanes]
/// [group], K read as `taps` runs each padded to `tapGroups` groups.
struct WeightPacking {
  int64_t lanes = 0, group = 0, taps = 1, tapGroups = 0;

  bool operator==(const WeightPacking &other) const {
    return lanes == other.lanes && group == other.group && taps == other.taps &&
           tapGroups == other.tapGroups;
  }
  int64_t getGroups() const { return taps * tapGroups; }
};

/// A contraction (qfx.contract: int8 with its epilogue, or `f32`) or an int8
/// max pool, and what its kernel needs of it: the matmul as a GEMM
/// ([M, K] x [K, N]), a conv2d as a GEMM over im2col rows (M = N * OH * OW,
/// K = KH * KW * C), a depthwise convolution as M output pixels of N
/// channels, K taps each.
struct Chain {
  /// The op the kernel replaces: its first operand is A ([1, M, K], or the
  /// NHWC input), read when it is replaced (an earlier replacement may have
  /// changed it).
  mlir::Operation *op = nullptr;
  std::optional<ConvGeometry> conv;
  int64_t m = 0, n = 0, k = 0;
  int64_t inputZp = 0;
  /// The weights as [K, N]: a depthwise convolution's (an int8 GEMM's are
  /// `packed` instead).
  std::vector<int8_t> weight;
  /// A matmul or conv2d with a constant weight: its weights packed for a
  /// microkernel as `packing` says ([blocks, k groups, lanes * group] of
  /// int8 or int16, or f32); none until qfx-pack-weights has packed the
  /// contraction.
  std::optional<WeightPacking> packing;
  mlir::DenseElementsAttr packed;
  std::vector<int32_t> accBias; // [N], added before the fraction bits
  int fractionBits = 0;
  std::vector<int32_t> bias;        // [N], zero without a bias
  std::vector<int32_t> multipliers; // [N]
  std::vector<int32_t> shifts;      // [N]
  /// A float requantization (#qfx.requantize, PyTorch's engines) instead of
  /// tosa.rescale's: x = float(acc) + floatBias[n], times
  /// floatMultipliers[n], plus floatZp, clamped to [floatLo, floatHi],
  /// rounded half to even, plus outputZp.
  bool floatEpilogue = false;
  /// No epilogue: the kernel stores the int32 sums with the accumulator
  /// bias (what follows stays, as a global average pool's rounding
  /// division).
  bool raw = false;
  std::vector<float> floatBias;        // [N]
  std::vector<float> floatMultipliers; // [N]
  float floatZp = 0, floatLo = 0, floatHi = 0;
  int64_t outputZp = 0;
  int64_t lo = -128, hi = 127;
  /// A float contraction (FloatKernels.cpp): f32 input, weight, bias and
  /// output, no epilogue; its weights `packed`, `floatBias` [N] (a matmul's
  /// zeros).
  bool f32 = false;
  /// A float matmul whose weight is an operand, not a constant (attention's
  /// Q K^T and its weights times V): `batch` products of [M, K] by [K, N];
  /// the weight, [batch, K, N], is the kernel's third argument, packed by
  /// the kernel on every call (none `packed`).
  bool runtimeWeight = false;
  int64_t batch = 1;
  /// An int8 max_pool2d (PoolKernels.cpp): the window as `conv`'s kernel
  /// size, M output pixels of N channels, K taps; no constants, no epilogue.
  bool maxPool = false;

  bool isDepthwise() const { return conv && conv->multiplier > 0; }
};

/// The integers of a constant operand, if it is one.
std::optional<std::vector<int64_t>> getInts(mlir::Value value);
/// The one integer of a constant operand whose elements are all equal.
std::optional<int64_t> getScalar(mlir::Value value);
/// Per-channel values: one per channel, or one for all.
bool broadcastTo(const std::vector<int64_t> &values, int64_t n,
                 std::vector<int32_t> &out);

/// The chain of a qfx.contract the kernels take: static shapes, a constant
/// weight with zero point 0 (and constant bias), a matmul of one batch, a
/// conv2d or depthwise_conv2d; int8 with its epilogue or without (the int32
/// sums), or float32 (matmul and conv2d, and a batched matmul by a weight
/// computed at run time).
std::optional<Chain> matchContract(ContractOp op);
/// Whether a chain is a GEMM by a constant weight (an int8 or float matmul
/// or conv2d contraction), whose kernels read packed weights.
inline bool isPackedGemm(const Chain &chain) {
  return !chain.maxPool && !chain.isDepthwise() && !chain.runtimeWeight;
}

/// The packing the GEMM kernels of `target` read `chain`'s weights in
/// (DotKernels.cpp).
WeightPacking getWeightPacking(const Chain &chain, const KernelTarget &target);
/// Whether `target`'s GEMM kernel reads the chain's packing: the target's
/// own, or (any microkernel) K as one run padded to its group multiple.
bool readsPacking(const Chain &chain, const KernelTarget &target);

/// qfx-pack-weights (PackWeights.cpp): gives each GEMM contraction of
/// `module` that `target`'s kernels take and that has no packed weights
/// the ops that pack its weight (collapse, transpose, widen, pad,
/// linalg.pack) and their #qfx.weight_packing.
void packContractWeights(mlir::ModuleOp module, const KernelTarget &target);
/// Evaluates each contraction's packing ops on its constant weight into the
/// constant it reads (the ops left unused are erased); an error on a
/// contraction whose packed operand is not computed from constants by
/// those ops.
mlir::LogicalResult foldPackedWeights(mlir::ModuleOp module);

/// A max pool's chain (PoolKernels.cpp), the pool alone.
std::optional<Chain> matchMaxPool(mlir::Operation *op);

/// The types of the kernel's arguments: A (or the NHWC input), the output
/// and a runtime weight.
mlir::MemRefType getInputType(const Chain &chain);
mlir::MemRefType getOutputType(const Chain &chain);
mlir::MemRefType getRuntimeWeightType(const Chain &chain);

/// Threads only pay off beyond a few microseconds of work: an OpenMP fork
/// and join costs about that (docs/performance.md, "Measured decisions").
inline constexpr int64_t kParallelMacs = int64_t{1} << 22;

/// A kernel function, (input, output, [runtime weight,] constants...) -> (),
/// and the globals a chain's call passes it as its constants. Chains of the
/// same geometry and epilogue build the same function (their weights,
/// epilogue constants, zero points and clamps are constants): qfx-codegen
/// keeps the first and calls it with each chain's globals.
struct Kernel {
  mlir::func::FuncOp func;
  llvm::SmallVector<mlir::memref::GlobalOp> constants;
};

/// Replaces the chain with a call of its kernel.
void replaceChain(const Chain &chain, const Kernel &kernel);

/// A private declaration standing for an LLVM intrinsic until
/// qfx-lower-intrinsic-calls (bufferization and buffer deallocation accept a
/// call, not an op with unknown memory effects); made once per module.
mlir::func::FuncOp getIntrinsic(mlir::ModuleOp module,
                                llvm::StringRef intrinsic,
                                llvm::ArrayRef<mlir::Type> operands,
                                mlir::Type result);

/// The kernels: (A or input, output, constants...) -> ().
Kernel buildDotKernel(mlir::ModuleOp module, const Chain &chain,
                      const KernelTarget &target, std::string name);
Kernel buildDepthwiseKernel(mlir::ModuleOp module, const Chain &chain,
                            const KernelTarget &target, std::string name);
Kernel buildFloatKernel(mlir::ModuleOp module, const Chain &chain,
                        const KernelTarget &target, std::string name);
Kernel buildMaxPoolKernel(mlir::ModuleOp module, const Chain &chain,
                          const KernelTarget &target, std::string name);

/// What every kernel builder has: the chain and target, the kernel's name
/// (and its globals' prefix), and the epilogue.
class KernelBuilderBase {
protected:
  KernelBuilderBase(mlir::ModuleOp module, const Chain &chain,
                    const KernelTarget &target, std::string name);

  mlir::Value index(mlir::OpBuilder &b, mlir::Location loc, int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  /// A private constant global NAME_SUFFIX of `type` holding `values` (of
  /// its shape), one of the kernel's constants (made before
  /// createFunction).
  void createGlobal(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::StringRef suffix, mlir::MemRefType type,
                    mlir::DenseElementsAttr values) {
    constants.push_back(mlir::memref::GlobalOp::create(
        b, loc, (name + suffix).str(), b.getStringAttr("private"), type, values,
        /*constant=*/true, b.getI64IntegerAttr(64)));
  }
  template <typename T>
  void createGlobal(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::StringRef suffix, mlir::MemRefType type,
                    llvm::ArrayRef<T> values) {
    auto tensorType =
        mlir::RankedTensorType::get(type.getShape(), type.getElementType());
    createGlobal(b, loc, suffix, type,
                 mlir::DenseElementsAttr::get(tensorType, values));
  }
  /// The packed weights `_weights` of `type` (int8 or int16 elements, the
  /// target's), from `values` held as int16.
  void createWeightsGlobal(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::MemRefType type,
                           const std::vector<int16_t> &values) {
    if (type.getElementTypeBitWidth() == 8)
      createGlobal(
          b, loc, "_weights", type,
          llvm::ArrayRef(std::vector<int8_t>(values.begin(), values.end())));
    else
      createGlobal(b, loc, "_weights", type, llvm::ArrayRef(values));
  }
  /// The kernel's function, (input, output, constants...) -> (), with the
  /// builder at the start of its body: the constants are arguments, so
  /// that chains whose kernels differ only in their constants share one
  /// function (see Kernel).
  mlir::func::FuncOp createFunction(mlir::OpBuilder &b, mlir::Location loc);
  /// The argument of the constant NAME_SUFFIX.
  mlir::Value getConstant(llvm::StringRef suffix);
  /// The epilogue's scalars (its `_scalars` constant, int32; the float
  /// ones' bits), loaded where they are used: i32, f32 for the Float ones.
  enum Scalar {
    FractionBits,
    OutputZp,
    Lo,
    Hi,
    InputZp,
    FloatZp,
    FloatLo,
    FloatHi,
    NumScalars
  };
  mlir::Value getScalar(mlir::OpBuilder &b, mlir::Location loc, Scalar which);
  /// The kernel as qfx-codegen calls it.
  Kernel getKernel(mlir::func::FuncOp func) const {
    return Kernel{func, constants};
  }
  mlir::func::FuncOp getIntrinsic(llvm::StringRef intrinsic,
                                  llvm::ArrayRef<mlir::Type> operands,
                                  mlir::Type result) {
    return codegen::getIntrinsic(module, intrinsic, operands, result);
  }
  /// The epilogue's constants, [blocks][lanes] per output channel: C[n] =
  /// ((accBias[n] - compensation[n]) << f) + bias[n] modulo 2^32, as TOSA's
  /// int32 arithmetic is; the rescale's multipliers and shifts, or the float
  /// requantization's bias and multipliers.
  void createEpilogueGlobals(mlir::OpBuilder &b, mlir::Location loc,
                             llvm::ArrayRef<int64_t> compensation);
  /// tosa.rescale's arithmetic (or the float requantization) on
  /// (sums[r] << f) + C of column block `block` (sums[r] where `fromBias`:
  /// they started from C), the output zero point and
  /// the clamp, stored as int8 in row `row0 + r` of `out` ([rows, N]); lane
  /// by lane for a partial block.
  void emitEpilogue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value out,
                    mlir::Value block, mlir::Value row0,
                    llvm::ArrayRef<mlir::Value> sums, bool partial,
                    bool fromBias = false);
  /// What column block `block`'s sums may start from: C where the chain
  /// has no fraction bits (then the epilogue, told `fromBias`, adds
  /// nothing: one vector instruction fewer a row), else zeros.
  mlir::Value emitInitialSums(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value block);
  bool sumsStartFromBias() const { return chain.fractionBits == 0; }
  /// A convolution's output pixel (n * OH + oh) * OW + ow: n and the top
  /// left corner of its window in the input, (oh * stride - pad top,
  /// ow * stride - pad left).
  std::tuple<mlir::Value, mlir::Value, mlir::Value>
  emitPixelOrigin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value pixel);
  /// Whether 0 <= v < size.
  mlir::Value emitWithin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         int64_t size);
  /// An int8 value of A (or a convolution's input) as a dot-product kernel
  /// reads it: top bit flipped (`top` is -128) where the target's A is
  /// unsigned, widened where its elements are wider.
  mlir::Value toElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        mlir::Value top);
  /// The int8 -128 that flips the top bit.
  mlir::Value emitTopBit(mlir::OpBuilder &b, mlir::Location loc);
  /// The input zero point as toElement makes it: what padding reads.
  mlir::Value emitPaddingElement(mlir::OpBuilder &b, mlir::Location loc);
  /// A direct convolution's padded copy of its input ([N, paddedHeight,
  /// paddedWidth, channels]), read as [positions, channels]: where output
  /// pixel `m`'s window starts, in positions.
  mlir::Value emitWindowStart(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value m, int64_t paddedHeight,
                              int64_t paddedWidth);
  /// How far tap `tap`'s input is from its window's start, in positions.
  mlir::Value emitTapOffset(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value tap, int64_t paddedWidth);
  /// A weight zero at either end of each tap for some column blocks (a
  /// grouped convolution's block-diagonal weight, as the exporter writes
  /// it): per block, [first, end) of the positions of a tap (of `perTap`;
  /// `positions` in all, tap after tap) where `nonzero(block, position)` in
  /// some tap ([perTap, 0) for a block without weights). Those become the
  /// kernel's constant `_ranges` ([blocks, 2] int32), and its tiles read
  /// only their blocks' ranges, when that saves at least a quarter of a tap
  /// for some block; else there are none.
  void createRanges(mlir::OpBuilder &b, mlir::Location loc, int64_t perTap,
                    int64_t positions,
                    llvm::function_ref<bool(int64_t, int64_t)> nonzero);
  /// With `_ranges`, the column blocks of the main tiles: `vectors`, or
  /// one where two blocks' union costs more than their ranges apart (a
  /// tile of one block does about 3/4 of the work per position of a tile
  /// of two: as many broadcasts of A, half the products).
  int64_t getRangeTileBlocks(int64_t vectors) const;
  /// The positions of a tap (of `perTap`) the tile's `vectors` column
  /// blocks from `block0` read: the union of their ranges, or all.
  std::pair<mlir::Value, mlir::Value>
  emitTileRange(mlir::OpBuilder &b, mlir::Location loc, mlir::Value block0,
                int64_t vectors, int64_t perTap);
  /// Fills `padded` ([N, padded H, padded W, channels]) with the input's
  /// elements as `convert` makes them, each channel `repeat` times in a row
  /// (a depthwise multiplier's), inside a border of `padding` (padding too
  /// in the channels beyond the input's).
  void
  emitPaddedCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                 mlir::Value padded, mlir::Value padding,
                 llvm::function_ref<mlir::Value(mlir::OpBuilder &,
                                                mlir::Location, mlir::Value)>
                     convert,
                 int64_t repeat = 1);
  /// The tiles of a GEMM kernel over M rows and `blocks` column blocks:
  /// `rows` x `tileBlocks` tiles (the last rows' among them, in the same
  /// loop), then the blocks left over one at a time, a partial last block
  /// last. The tiles of the main blocks run on threads (forEach), split by
  /// column blocks (each thread keeps its weight panels in cache) or, when
  /// `rowsOuter` (the weights fit in L2 anyway), by rows, so that each
  /// thread reads only its part of A.
  void emitTiles(
      mlir::OpBuilder &b, mlir::Location loc, int64_t rows, int64_t tileBlocks,
      bool rowsOuter,
      llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value m0,
                              int64_t rows, mlir::Value block0, int64_t vectors,
                              bool partial)>
          tile);
  /// scf.parallel on targets with threads (for chains with enough work,
  /// unless `tilesOnThreads` is false: the caller's loop has the threads),
  /// else nested scf.for.
  void forEach(mlir::OpBuilder &b, mlir::Location loc,
               llvm::ArrayRef<int64_t> upper, llvm::ArrayRef<int64_t> steps,
               llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                       mlir::ValueRange)>
                   body);

  mlir::ModuleOp module;
  const Chain &chain;
  const KernelTarget &target;
  /// Lanes of a column block: the target's, its float lanes for an f32
  /// chain.
  const int64_t kLanes;
  std::string name;
  /// Column blocks of `kLanes`.
  const int64_t blocks;
  /// Whether forEach may run its loop on threads.
  bool tilesOnThreads = true;
  /// createRanges's ranges, [first, end) per block (empty: none).
  std::vector<int32_t> ranges;
  mlir::MemRefType constType, i64Type, floatType;
  /// The globals createGlobal made, in argument order; the function's body.
  llvm::SmallVector<mlir::memref::GlobalOp> constants;
  mlir::Block *body = nullptr;
};

} // namespace qfx::codegen

#endif // QFX_LIB_CODEGEN_KERNELS_H
