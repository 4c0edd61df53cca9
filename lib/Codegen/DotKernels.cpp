//===- DotKernels.cpp - int8 matmul/conv chains to dot-product kernels ----===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-codegen: an int8 TOSA matmul or conv2d with a constant weight and its
// requantize epilogue (qfx-lower's Linear and Conv2d) becomes a call of a
// generated kernel that computes the same integers with a dot-product
// instruction: vpdpbusd (AVX-512 VNNI), vpmaddwd (AVX2) or SDOT (AArch64).
//
// With vpdpbusd, which multiplies unsigned by signed bytes, the kernel
// computes acc = sum_k (a + 128) * w (flipping the top bit of the int8
// activation adds 128); then the TOSA chain's value (sum_k (a - za) * w +
// conv bias) * 2^f + bias as (acc << f) + C[n], with C[n] folding the zero
// point, the 128 and both biases, all modulo 2^32 as TOSA's int32 arithmetic
// is; then tosa.rescale's arithmetic. The signed instructions need no 128.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace qfx {
#define GEN_PASS_DEF_QFXCODEGEN
#define GEN_PASS_DEF_QFXLOWERINTRINSICCALLS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using mlir::Attribute;
using mlir::Block;
using mlir::Location;
using mlir::MemRefType;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
using mlir::VectorType;
namespace arith = mlir::arith;
namespace tosa = mlir::tosa;
namespace vector = mlir::vector;

namespace {

/// What a target's kernels are built from: a dot-product instruction that
/// multiplies groups of A and weight elements (4 bytes or 2 int16 in 32
/// bits) and sums each group into one of `lanes` int32 lanes; or a matrix
/// instruction (SMMLA) that multiplies a 2x8 block of A by an 8x2 block of
/// weights into a 2x2 block of int32.
struct KernelTarget {
  llvm::StringLiteral name;
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
  /// SMMLA: A is read as pairs of rows, interleaved by 8 k values.
  bool matrix;
};

// vpdpbusd: unsigned x signed bytes, 16 lanes of a zmm register.
constexpr KernelTarget kVnni{"x86-64-avx512vnni",
                             "qfx_vnni_matmul_",
                             16,
                             "llvm.x86.avx512.vpdpbusd.512",
                             /*accumulates=*/true,
                             /*elementBits=*/8,
                             /*group=*/4,
                             /*unsignedA=*/true,
                             /*parallel=*/true,
                             /*vectors=*/2,
                             /*matrix=*/false};
// SDOT: signed x signed bytes, 4 lanes of a NEON register. (No OpenMP
// runtime is assumed on AArch64.)
constexpr KernelTarget kSdot{"aarch64-dotprod",
                             "qfx_sdot_matmul_",
                             4,
                             "llvm.aarch64.neon.sdot.v4i32.v16i8",
                             /*accumulates=*/true,
                             /*elementBits=*/8,
                             /*group=*/4,
                             /*unsignedA=*/false,
                             /*parallel=*/false,
                             /*vectors=*/2,
                             /*matrix=*/false};
// SMMLA (I8MM): a signed 2x8 by 8x2 byte product into 2x2 int32 lanes; a
// column block is 8 columns (4 column pairs), so that an 8-row tile holds 16
// accumulator registers.
constexpr KernelTarget kI8mm{"aarch64-i8mm",
                             "qfx_i8mm_matmul_",
                             8,
                             "llvm.aarch64.neon.smmla.v4i32.v16i8",
                             /*accumulates=*/true,
                             /*elementBits=*/8,
                             /*group=*/8,
                             /*unsignedA=*/false,
                             /*parallel=*/false,
                             /*vectors=*/1,
                             /*matrix=*/true};
// AVX2 without VNNI: vpmaddwd on sign-extended int16 pairs (exact; the byte
// form vpmaddubsw saturates), then an add; 8 lanes of a ymm register.
constexpr KernelTarget kAvx2{
    "x86-64-avx2",         "qfx_avx2_matmul_", 8, "llvm.x86.avx2.pmadd.wd",
    /*accumulates=*/false,
    /*elementBits=*/16,
    /*group=*/2,
    /*unsignedA=*/false,
    /*parallel=*/true,
    /*vectors=*/2,
    /*matrix=*/false};

constexpr int64_t kRows = 8; // rows of the microkernel
constexpr llvm::StringLiteral kIntrinsicAttr = "qfx_llvm_intrinsic";

/// A convolution's geometry (NHWC input, OHWI weights): its GEMM has M =
/// N * OH * OW rows and K = KH * KW * C, read from the input by im2col.
struct ConvGeometry {
  llvm::SmallVector<int64_t, 4> input;  // N, H, W, C
  llvm::SmallVector<int64_t, 4> output; // N, OH, OW, O
  int64_t kh = 1, kw = 1;
  llvm::SmallVector<int64_t, 4> pad; // top, bottom, left, right
  llvm::SmallVector<int64_t, 2> stride, dilation;
};

/// An int8 matmul or conv2d chain and what the kernel needs of it.
struct MatmulChain {
  /// The matmul or conv2d: its first operand is A ([1, M, K] i8, or the
  /// conv's NHWC input), read when the chain is replaced (an earlier chain's
  /// replacement may have changed it).
  Operation *start = nullptr;
  std::optional<ConvGeometry> conv;
  int64_t m = 0, n = 0, k = 0;
  int64_t inputZp = 0;
  std::vector<int8_t> weight;   // [K, N]
  std::vector<int32_t> accBias; // [N], added before the fraction bits
  int fractionBits = 0;
  std::vector<int32_t> bias;        // [N], zero without a bias
  std::vector<int32_t> multipliers; // [N]
  std::vector<int32_t> shifts;      // [N]
  int64_t outputZp = 0;
  int64_t lo = -128, hi = 127;
  Operation *last = nullptr;
  llvm::SmallVector<Operation *> ops;
};

/// The integers of a constant operand, if it is one.
std::optional<std::vector<int64_t>> getInts(Value value) {
  mlir::DenseIntElementsAttr attr;
  if (!mlir::matchPattern(value, mlir::m_Constant(&attr)))
    return std::nullopt;
  std::vector<int64_t> values;
  for (const llvm::APInt &v : attr.getValues<llvm::APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

std::optional<int64_t> getScalar(Value value) {
  std::optional<std::vector<int64_t>> values = getInts(value);
  if (!values || values->empty() || !llvm::all_equal(*values))
    return std::nullopt;
  return values->front();
}

/// Per-channel values: one per channel, or one for all.
bool broadcastTo(const std::vector<int64_t> &values, int64_t n,
                 std::vector<int32_t> &out) {
  if (values.size() != 1 && values.size() != static_cast<size_t>(n))
    return false;
  out.resize(n);
  for (int64_t c = 0; c < n; ++c)
    out[c] = static_cast<int32_t>(values[values.size() == 1 ? 0 : c]);
  return true;
}

Operation *singleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

/// The chain's start: a matmul with a constant weight.
std::optional<MatmulChain> matchStart(tosa::MatMulOp matmul) {
  MatmulChain chain;
  auto aType = llvm::cast<RankedTensorType>(matmul.getA().getType());
  auto bType = llvm::cast<RankedTensorType>(matmul.getB().getType());
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !aType.getElementType().isInteger(8) ||
      !bType.getElementType().isInteger(8) || aType.getDimSize(0) != 1 ||
      bType.getDimSize(0) != 1)
    return std::nullopt;
  chain.start = matmul;
  chain.m = aType.getDimSize(1);
  chain.k = aType.getDimSize(2);
  chain.n = bType.getDimSize(2);
  std::optional<std::vector<int64_t>> weight = getInts(matmul.getB());
  std::optional<int64_t> aZp = getScalar(matmul.getAZp());
  std::optional<int64_t> bZp = getScalar(matmul.getBZp());
  if (!weight || !aZp || !bZp || *bZp != 0)
    return std::nullopt;
  chain.inputZp = *aZp;
  chain.weight.assign(weight->begin(), weight->end());
  chain.accBias.assign(chain.n, 0);
  chain.ops.push_back(matmul);
  return chain;
}

/// The chain's start: a conv2d with a constant weight and bias, as a GEMM
/// over im2col rows ([KH, KW, C] per output pixel, the weight's order).
std::optional<MatmulChain> matchStart(tosa::Conv2DOp conv) {
  auto inType = llvm::cast<RankedTensorType>(conv.getInput().getType());
  auto wType = llvm::cast<RankedTensorType>(conv.getWeight().getType());
  auto outType = llvm::cast<RankedTensorType>(conv.getType());
  if (!inType.hasStaticShape() || !wType.hasStaticShape() ||
      !outType.hasStaticShape() || !inType.getElementType().isInteger(8) ||
      !wType.getElementType().isInteger(8) ||
      !outType.getElementType().isInteger(32))
    return std::nullopt;
  std::optional<std::vector<int64_t>> weight = getInts(conv.getWeight());
  std::optional<std::vector<int64_t>> bias = getInts(conv.getBias());
  std::optional<int64_t> inZp = getScalar(conv.getInputZp());
  std::optional<int64_t> wZp = getScalar(conv.getWeightZp());
  if (!weight || !bias || !inZp || !wZp || *wZp != 0)
    return std::nullopt;
  MatmulChain chain;
  ConvGeometry g;
  g.input.assign(inType.getShape().begin(), inType.getShape().end());
  g.output.assign(outType.getShape().begin(), outType.getShape().end());
  g.kh = wType.getDimSize(1);
  g.kw = wType.getDimSize(2);
  g.pad.assign(conv.getPad().begin(), conv.getPad().end());
  g.stride.assign(conv.getStride().begin(), conv.getStride().end());
  g.dilation.assign(conv.getDilation().begin(), conv.getDilation().end());
  chain.start = conv;
  chain.m = g.output[0] * g.output[1] * g.output[2];
  chain.n = g.output[3];
  chain.k = g.kh * g.kw * g.input[3];
  chain.conv = std::move(g);
  chain.inputZp = *inZp;
  // OHWI: weight[o][k] with k = (kh * KW + kw) * C + c; the GEMM wants
  // [K, N].
  chain.weight.resize(chain.k * chain.n);
  for (int64_t o = 0; o < chain.n; ++o)
    for (int64_t kk = 0; kk < chain.k; ++kk)
      chain.weight[kk * chain.n + o] =
          static_cast<int8_t>((*weight)[o * chain.k + kk]);
  if (!broadcastTo(*bias, chain.n, chain.accBias))
    return std::nullopt;
  chain.ops.push_back(conv);
  return chain;
}

/// The requantizing epilogue after the chain's start.
std::optional<MatmulChain> matchEpilogue(MatmulChain chain) {
  Operation *start = chain.start;
  Value current = start->getResult(0);
  Operation *next = singleUser(current);
  if (auto mul = llvm::dyn_cast_or_null<tosa::MulOp>(next)) {
    Value other =
        mul.getInput1() == current ? mul.getInput2() : mul.getInput1();
    std::optional<int64_t> factor = getScalar(other);
    std::optional<int64_t> shift = getScalar(mul.getShift());
    if (!factor || !shift || *shift != 0 || *factor <= 0 ||
        !llvm::isPowerOf2_64(*factor) || *factor > (1 << 16))
      return std::nullopt;
    chain.fractionBits = llvm::Log2_64(*factor);
    chain.ops.push_back(mul);
    current = mul.getResult();
    next = singleUser(current);
  }
  chain.bias.assign(chain.n, 0);
  if (auto add = llvm::dyn_cast_or_null<tosa::AddOp>(next)) {
    Value other =
        add.getInput1() == current ? add.getInput2() : add.getInput1();
    std::optional<std::vector<int64_t>> bias = getInts(other);
    auto otherType = llvm::cast<RankedTensorType>(other.getType());
    if (!bias ||
        otherType.getNumElements() != static_cast<int64_t>(bias->size()) ||
        (otherType.getRank() > 0 && otherType.getShape().back() != chain.n &&
         bias->size() != 1) ||
        !broadcastTo(*bias, chain.n, chain.bias))
      return std::nullopt;
    chain.ops.push_back(add);
    current = add.getResult();
    next = singleUser(current);
  }
  auto rescale = llvm::dyn_cast_or_null<tosa::RescaleOp>(next);
  if (!rescale || !rescale.getScale32() ||
      rescale.getRoundingMode() != tosa::RoundingMode::SINGLE_ROUND ||
      rescale.getInputUnsigned() || rescale.getOutputUnsigned() ||
      !llvm::cast<RankedTensorType>(rescale.getType())
           .getElementType()
           .isInteger(8))
    return std::nullopt;
  std::optional<std::vector<int64_t>> multipliers =
      getInts(rescale.getMultiplier());
  std::optional<std::vector<int64_t>> shifts = getInts(rescale.getShift());
  std::optional<int64_t> inZp = getScalar(rescale.getInputZp());
  std::optional<int64_t> outZp = getScalar(rescale.getOutputZp());
  if (!multipliers || !shifts || !inZp || *inZp != 0 || !outZp ||
      !broadcastTo(*multipliers, chain.n, chain.multipliers) ||
      !broadcastTo(*shifts, chain.n, chain.shifts) ||
      llvm::any_of(chain.shifts, [](int32_t s) { return s < 1 || s > 62; }))
    return std::nullopt;
  chain.outputZp = *outZp;
  chain.ops.push_back(rescale);
  chain.last = rescale;
  current = rescale.getResult();
  if (auto clamp = llvm::dyn_cast_or_null<tosa::ClampOp>(singleUser(current))) {
    auto lo = llvm::dyn_cast<mlir::IntegerAttr>(clamp.getMinValAttr());
    auto hi = llvm::dyn_cast<mlir::IntegerAttr>(clamp.getMaxValAttr());
    if (lo && hi) {
      chain.lo = std::max<int64_t>(chain.lo, lo.getInt());
      chain.hi = std::min<int64_t>(chain.hi, hi.getInt());
      chain.ops.push_back(clamp);
      chain.last = clamp;
    }
  }
  return chain;
}

MemRefType getInputType(const MatmulChain &chain) {
  Type i8 = mlir::IntegerType::get(chain.start->getContext(), 8);
  if (chain.conv)
    return MemRefType::get(chain.conv->input, i8);
  return MemRefType::get({1, chain.m, chain.k}, i8);
}

MemRefType getOutputType(const MatmulChain &chain) {
  Type i8 = mlir::IntegerType::get(chain.start->getContext(), 8);
  if (chain.conv)
    return MemRefType::get(chain.conv->output, i8);
  return MemRefType::get({1, chain.m, chain.n}, i8);
}

/// Builds the kernel of one chain: globals for the packed weights and the
/// epilogue constants, and a function (A: memref<1xMxKxi8>, O:
/// memref<1xMxNxi8>).
class KernelBuilder {
public:
  KernelBuilder(mlir::ModuleOp module, const MatmulChain &chain,
                const KernelTarget &target, std::string name)
      : module(module), chain(chain), target(target), kLanes(target.lanes),
        group(target.group), name(std::move(name)),
        blocks((chain.n + kLanes - 1) / kLanes),
        k4((chain.k + group - 1) / group) {}

  mlir::func::FuncOp build();

private:
  void createGlobals(OpBuilder &b, Location loc);
  Value getGlobal(OpBuilder &b, Location loc, llvm::StringRef suffix,
                  MemRefType type);
  /// One tile of `rows` rows from `m0` and `vectors` column blocks from
  /// `block0` (a partial last block when `partial`).
  void emitTile(OpBuilder &b, Location loc, Value a, Value out, Value m0,
                int64_t rows, Value block0, int64_t vectors, bool partial);
  /// The tile's int32 sums with a dot-product instruction, or with SMMLA:
  /// one vector of `kLanes` a row and column block, row-major.
  llvm::SmallVector<Value> emitDotProducts(OpBuilder &b, Location loc, Value a,
                                           Value m0, int64_t rows, Value block0,
                                           int64_t vectors);
  llvm::SmallVector<Value> emitMatrixProducts(OpBuilder &b, Location loc,
                                              Value a, Value m0, int64_t rows,
                                              Value block0, int64_t vectors);
  /// Stores element `v` of A's row `m`, column `k` in the kernel's copy.
  void storeA(OpBuilder &b, Location loc, Value v, Value rows, Value m,
              Value k);
  Value index(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::func::FuncOp getIntrinsic(llvm::StringRef intrinsic,
                                  llvm::ArrayRef<Type> operands, Type result);
  /// An int8 value of A as the kernel reads it: top bit flipped (`top` is
  /// -128) where A is unsigned, widened where elements are wider.
  Value toElement(OpBuilder &b, Location loc, Value v, Value top);
  /// Fills `rows` (the kernel's copy of A) with A's rows as toElement makes
  /// them.
  void emitFlippedCopy(OpBuilder &b, Location loc, Value a, Value rows);
  /// Fills `rows` with the conv input's im2col rows as toElement makes them;
  /// padding reads the input zero point.
  void emitIm2col(OpBuilder &b, Location loc, Value input, Value rows);

  /// scf.parallel on targets with threads, else nested scf.for.
  void forEach(
      OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> upper,
      llvm::ArrayRef<int64_t> steps,
      llvm::function_ref<void(OpBuilder &, Location, mlir::ValueRange)> body);

  mlir::ModuleOp module;
  const MatmulChain &chain;
  const KernelTarget &target;
  const int64_t kLanes;
  /// Elements of A and of the weights in one 32-bit group.
  const int64_t group;
  std::string name;
  /// Column blocks of `kLanes`; groups of `group` k values.
  int64_t blocks, k4;
  MemRefType packedType, constType, i64Type;
};

void KernelBuilder::createGlobals(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type element = b.getIntegerType(target.elementBits);
  packedType = MemRefType::get({blocks, k4, group * kLanes}, element);
  constType = MemRefType::get({blocks, kLanes}, i32);
  i64Type = MemRefType::get({blocks, kLanes}, i64);

  // Packed weights: [block][k / group][lane][group], the k values of one
  // column's group in one lane (for SMMLA, 16 bytes are the 8x2 block of a
  // column pair); zero beyond K and N.
  std::vector<int16_t> packed(blocks * k4 * group * kLanes, 0);
  std::vector<int64_t> columnSums(chain.n, 0);
  for (int64_t kk = 0; kk < chain.k; ++kk)
    for (int64_t nn = 0; nn < chain.n; ++nn) {
      int8_t w = chain.weight[kk * chain.n + nn];
      columnSums[nn] += w;
      int64_t block = nn / kLanes, lane = nn % kLanes;
      packed[((block * k4 + kk / group) * kLanes + lane) * group + kk % group] =
          w;
    }
  std::vector<int32_t> folded(blocks * kLanes, 0);
  std::vector<int64_t> multipliers(blocks * kLanes, 0),
      shifts(blocks * kLanes, 1);
  for (int64_t nn = 0; nn < chain.n; ++nn) {
    int64_t offset = target.unsignedA ? 128 : 0;
    uint64_t compensation =
        static_cast<uint64_t>((offset + chain.inputZp) * columnSums[nn]);
    // ((accBias - compensation) << f) + bias, modulo 2^32 as TOSA's int32.
    uint64_t beforeShift =
        static_cast<uint64_t>(static_cast<int64_t>(chain.accBias[nn])) -
        compensation;
    folded[nn] = static_cast<int32_t>(static_cast<uint32_t>(
        (beforeShift << chain.fractionBits) +
        static_cast<uint64_t>(static_cast<int64_t>(chain.bias[nn]))));
    multipliers[nn] = chain.multipliers[nn];
    shifts[nn] = chain.shifts[nn];
  }
  // A private constant global NAME_SUFFIX of `type` holding `values`.
  auto global = [&](llvm::StringRef suffix, MemRefType type, auto values) {
    auto tensorType =
        RankedTensorType::get(type.getShape(), type.getElementType());
    mlir::memref::GlobalOp::create(
        b, loc, (name + suffix).str(), b.getStringAttr("private"), type,
        mlir::DenseElementsAttr::get(tensorType, llvm::ArrayRef(values)),
        /*constant=*/true, b.getI64IntegerAttr(64));
  };
  if (target.elementBits == 8)
    global("_weights", packedType,
           std::vector<int8_t>(packed.begin(), packed.end()));
  else
    global("_weights", packedType, packed);
  global("_bias", constType, folded);
  global("_multipliers", i64Type, multipliers);
  global("_shifts", i64Type, shifts);
}

/// A private declaration standing for an LLVM intrinsic until
/// qfx-lower-intrinsic-calls: bufferization and buffer deallocation accept a
/// call, not an op with unknown memory effects.
mlir::func::FuncOp KernelBuilder::getIntrinsic(llvm::StringRef intrinsic,
                                               llvm::ArrayRef<Type> operands,
                                               Type result) {
  std::string symbol = "qfx.intrinsic." + intrinsic.str();
  if (auto existing = module.lookupSymbol<mlir::func::FuncOp>(symbol))
    return existing;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto decl = mlir::func::FuncOp::create(b, module.getLoc(), symbol,
                                         b.getFunctionType(operands, {result}));
  decl.setPrivate();
  decl->setAttr(kIntrinsicAttr, b.getStringAttr(intrinsic));
  return decl;
}

Value KernelBuilder::getGlobal(OpBuilder &b, Location loc,
                               llvm::StringRef suffix, MemRefType type) {
  return mlir::memref::GetGlobalOp::create(b, loc, type, name + suffix.str());
}

llvm::SmallVector<Value>
KernelBuilder::emitDotProducts(OpBuilder &b, Location loc, Value a, Value m0,
                               int64_t rows, Value block0, int64_t vectors) {
  Type i32 = b.getI32Type();
  auto accType = VectorType::get({kLanes}, i32);
  // A group vector: `group` elements per lane.
  auto bytesType =
      VectorType::get({group * kLanes}, b.getIntegerType(target.elementBits));
  Value zero = arith::ConstantOp::create(
      b, loc, accType, mlir::DenseElementsAttr::get(accType, int32_t{0}));
  Value weights = getGlobal(b, loc, "_weights", packedType);
  llvm::SmallVector<Value> init(rows * vectors, zero);
  // LLVM's signature: (<lanes x i32> acc, <group lanes x iN> a, <group lanes
  // x iN> b), or without acc.
  mlir::func::FuncOp dot =
      target.accumulates
          ? getIntrinsic(target.dot, {accType, bytesType, bytesType}, accType)
          : getIntrinsic(target.dot, {bytesType, bytesType}, accType);

  auto loop = mlir::scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, k4), index(b, loc, 1), init,
      [&](OpBuilder &lb, Location l, Value kk, mlir::ValueRange accs) {
        llvm::SmallVector<Value> weightVectors;
        for (int64_t v = 0; v < vectors; ++v) {
          Value block = arith::AddIOp::create(lb, l, block0, index(lb, l, v));
          weightVectors.push_back(vector::LoadOp::create(
              lb, l, bytesType, weights,
              mlir::ValueRange{block, kk, index(lb, l, 0)}));
        }
        llvm::SmallVector<Value> next;
        for (int64_t r = 0; r < rows; ++r) {
          Value row = arith::AddIOp::create(lb, l, m0, index(lb, l, r));
          // The group of A at (row, group kk), as one int32 of the i32 view:
          // a broadcast straight from memory.
          Value word =
              mlir::memref::LoadOp::create(lb, l, a, mlir::ValueRange{row, kk});
          Value broadcast = vector::BitCastOp::create(
              lb, l, bytesType,
              vector::BroadcastOp::create(lb, l, accType, word));
          for (int64_t v = 0; v < vectors; ++v) {
            Value acc = accs[r * vectors + v];
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
  return llvm::SmallVector<Value>(loop.getResults());
}

llvm::SmallVector<Value>
KernelBuilder::emitMatrixProducts(OpBuilder &b, Location loc, Value a, Value m0,
                                  int64_t rows, Value block0, int64_t vectors) {
  Type i32 = b.getI32Type();
  // SMMLA's operands: a 2x2 int32 block [r0c0, r0c1, r1c0, r1c1], two rows
  // of 8 bytes of A, two columns of 8 bytes of weights.
  auto blockType = VectorType::get({4}, i32);
  auto bytesType = VectorType::get({16}, b.getIntegerType(8));
  int64_t pairs = (rows + 1) / 2, columnPairs = kLanes / 2;
  Value zero = arith::ConstantOp::create(
      b, loc, blockType, mlir::DenseElementsAttr::get(blockType, int32_t{0}));
  Value weights = getGlobal(b, loc, "_weights", packedType);
  mlir::func::FuncOp mmla =
      getIntrinsic(target.dot, {blockType, bytesType, bytesType}, blockType);
  Value pair0 = arith::DivUIOp::create(b, loc, m0, index(b, loc, 2));
  // Accumulator (p, v, q): row pair p, column block v, column pair q.
  auto at = [&](int64_t p, int64_t v, int64_t q) {
    return (p * vectors + v) * columnPairs + q;
  };
  llvm::SmallVector<Value> init(pairs * vectors * columnPairs, zero);
  auto loop = mlir::scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, k4), index(b, loc, 1), init,
      [&](OpBuilder &lb, Location l, Value kk, mlir::ValueRange accs) {
        llvm::SmallVector<Value> weightVectors;
        for (int64_t v = 0; v < vectors; ++v) {
          Value block = arith::AddIOp::create(lb, l, block0, index(lb, l, v));
          for (int64_t q = 0; q < columnPairs; ++q)
            weightVectors.push_back(vector::LoadOp::create(
                lb, l, bytesType, weights,
                mlir::ValueRange{block, kk, index(lb, l, q * 16)}));
        }
        llvm::SmallVector<Value> next(accs.begin(), accs.end());
        for (int64_t p = 0; p < pairs; ++p) {
          Value pair = arith::AddIOp::create(lb, l, pair0, index(lb, l, p));
          Value rowPair = vector::LoadOp::create(
              lb, l, bytesType, a, mlir::ValueRange{pair, kk, index(lb, l, 0)});
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
  return sums;
}

void KernelBuilder::emitTile(OpBuilder &b, Location loc, Value a, Value out,
                             Value m0, int64_t rows, Value block0,
                             int64_t vectors, bool partial) {
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type(), i64 = b.getI64Type();
  auto accType = VectorType::get({kLanes}, i32);
  auto wideType = VectorType::get({kLanes}, i64);
  llvm::SmallVector<Value> sums =
      target.matrix ? emitMatrixProducts(b, loc, a, m0, rows, block0, vectors)
                    : emitDotProducts(b, loc, a, m0, rows, block0, vectors);

  // Epilogue: tosa.rescale's arithmetic on (acc << f) + C, the clamp, and
  // the store (masked for a partial block).
  Value folded = getGlobal(b, loc, "_bias", constType);
  Value multipliers = getGlobal(b, loc, "_multipliers", i64Type);
  Value shifts = getGlobal(b, loc, "_shifts", i64Type);
  auto splat32 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, accType,
        mlir::DenseElementsAttr::get(accType, static_cast<int32_t>(v)));
  };
  Value fraction = splat32(chain.fractionBits);
  Value outZp = splat32(chain.outputZp), lo = splat32(chain.lo),
        hi = splat32(chain.hi);
  for (int64_t v = 0; v < vectors; ++v) {
    Value block = arith::AddIOp::create(b, loc, block0, index(b, loc, v));
    llvm::SmallVector<Value, 2> at{block, index(b, loc, 0)};
    Value c = vector::LoadOp::create(b, loc, accType, folded, at);
    Value mult = vector::LoadOp::create(b, loc, wideType, multipliers, at);
    Value shift = vector::LoadOp::create(b, loc, wideType, shifts, at);
    // The rounding addend 2^(shift - 1), once per block.
    Value one = arith::ConstantOp::create(
        b, loc, wideType, mlir::DenseElementsAttr::get(wideType, int64_t{1}));
    Value round = arith::ShLIOp::create(
        b, loc, one, arith::SubIOp::create(b, loc, shift, one));
    Value column = arith::MulIOp::create(b, loc, block, index(b, loc, kLanes));
    for (int64_t r = 0; r < rows; ++r) {
      Value acc = arith::AddIOp::create(
          b, loc,
          arith::ShLIOp::create(b, loc, sums[r * vectors + v], fraction), c);
      Value wide = arith::ExtSIOp::create(b, loc, wideType, acc);
      wide = arith::MulIOp::create(b, loc, wide, mult);
      wide = arith::AddIOp::create(b, loc, wide, round);
      wide = arith::ShRSIOp::create(b, loc, wide, shift);
      Value result = arith::TruncIOp::create(b, loc, accType, wide);
      result = arith::AddIOp::create(b, loc, result, outZp);
      result = arith::MinSIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, result, lo), hi);
      Value bytes = arith::TruncIOp::create(
          b, loc, VectorType::get({kLanes}, i8), result);
      Value row = arith::AddIOp::create(b, loc, m0, index(b, loc, r));
      llvm::SmallVector<Value, 2> where{row, column};
      if (!partial) {
        vector::StoreOp::create(b, loc, bytes, out, where);
        continue;
      }
      // The last block's lanes one by one. (A vector.maskedstore with one
      // active lane is miscompiled by LLVM 22's x86 backend into a 4-byte
      // store.)
      for (int64_t lane = 0; lane < chain.n % kLanes; ++lane) {
        where[1] = arith::AddIOp::create(b, loc, column, index(b, loc, lane));
        Value element = vector::ExtractOp::create(
            b, loc, bytes, llvm::ArrayRef<int64_t>{lane});
        mlir::memref::StoreOp::create(b, loc, element, out, where);
      }
    }
  }
}

void KernelBuilder::forEach(
    OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> upper,
    llvm::ArrayRef<int64_t> steps,
    llvm::function_ref<void(OpBuilder &, Location, mlir::ValueRange)> body) {
  llvm::SmallVector<Value> lowers, uppers, stepValues;
  for (auto [u, st] : llvm::zip_equal(upper, steps)) {
    lowers.push_back(index(b, loc, 0));
    uppers.push_back(index(b, loc, u));
    stepValues.push_back(index(b, loc, st));
  }
  // Threads only pay off beyond a few microseconds of work: an OpenMP fork
  // and join costs about that (the digits example's GEMMs ran 2x slower on
  // two threads).
  constexpr int64_t kParallelMacs = int64_t{1} << 22;
  if (target.parallel && chain.m * chain.n * chain.k >= kParallelMacs) {
    mlir::scf::ParallelOp::create(b, loc, lowers, uppers, stepValues, body);
    return;
  }
  mlir::scf::LoopNest nest =
      mlir::scf::buildLoopNest(b, loc, lowers, uppers, stepValues);
  OpBuilder inner = OpBuilder::atBlockTerminator(nest.loops.back().getBody());
  llvm::SmallVector<Value> ivs;
  for (mlir::scf::ForOp loop : nest.loops)
    ivs.push_back(loop.getInductionVar());
  body(inner, loc, ivs);
}

Value KernelBuilder::toElement(OpBuilder &b, Location loc, Value v, Value top) {
  if (target.unsignedA)
    v = arith::XOrIOp::create(b, loc, v, top);
  if (target.elementBits > 8)
    v = arith::ExtSIOp::create(b, loc, b.getIntegerType(target.elementBits), v);
  return v;
}

void KernelBuilder::storeA(OpBuilder &b, Location loc, Value v, Value rows,
                           Value m, Value k) {
  if (!target.matrix) {
    mlir::memref::StoreOp::create(b, loc, v, rows, mlir::ValueRange{m, k});
    return;
  }
  // [m / 2][k / 8][m % 2][k % 8]: a pair of rows, 8 k values each.
  auto divide = [&](Value x, int64_t d) -> std::pair<Value, Value> {
    return {arith::DivUIOp::create(b, loc, x, index(b, loc, d)),
            arith::RemUIOp::create(b, loc, x, index(b, loc, d))};
  };
  auto [pair, half] = divide(m, 2);
  auto [step, inStep] = divide(k, group);
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, half, index(b, loc, group)),
      inStep);
  mlir::memref::StoreOp::create(b, loc, v, rows,
                                mlir::ValueRange{pair, step, offset});
}

void KernelBuilder::emitFlippedCopy(OpBuilder &b, Location loc, Value a,
                                    Value rows) {
  Value a2 = mlir::memref::CollapseShapeOp::create(
      b, loc, a, llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}, {2}});
  Value top = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(b.getIntegerType(8), -128));
  // Rows in parallel; LLVM vectorizes the inner loop.
  forEach(b, loc, {chain.m}, {1},
          [&](OpBuilder &pb, Location l, mlir::ValueRange row) {
            mlir::scf::ForOp::create(
                pb, l, index(pb, l, 0), index(pb, l, chain.k), index(pb, l, 1),
                mlir::ValueRange{},
                [&](OpBuilder &ib, Location il, Value kk, mlir::ValueRange) {
                  Value v = mlir::memref::LoadOp::create(
                      ib, il, a2, mlir::ValueRange{row.front(), kk});
                  storeA(ib, il, toElement(ib, il, v, top), rows, row.front(),
                         kk);
                  mlir::scf::YieldOp::create(ib, il);
                });
          });
}

void KernelBuilder::emitIm2col(OpBuilder &b, Location loc, Value input,
                               Value rows) {
  namespace ar = mlir::arith;
  const ConvGeometry &g = *chain.conv;
  int64_t channels = g.input[3], taps = g.kh * g.kw;
  Type i8 = b.getIntegerType(8);
  Value top = ar::ConstantOp::create(b, loc, b.getIntegerAttr(i8, -128));
  Value padding = toElement(
      b, loc,
      ar::ConstantOp::create(
          b, loc, b.getIntegerAttr(i8, static_cast<int8_t>(chain.inputZp))),
      top);
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
            Value plane = c(pb, l, g.output[1] * g.output[2]);
            Value n = ar::DivUIOp::create(pb, l, pixel, plane);
            Value rest = ar::RemUIOp::create(pb, l, pixel, plane);
            Value oh = ar::DivUIOp::create(pb, l, rest, c(pb, l, g.output[2]));
            Value ow = ar::RemUIOp::create(pb, l, rest, c(pb, l, g.output[2]));
            Value ih0 = ar::SubIOp::create(
                pb, l, ar::MulIOp::create(pb, l, oh, c(pb, l, g.stride[0])),
                c(pb, l, g.pad[0]));
            Value iw0 = ar::SubIOp::create(
                pb, l, ar::MulIOp::create(pb, l, ow, c(pb, l, g.stride[1])),
                c(pb, l, g.pad[2]));
            loop(pb, l, taps, [&](OpBuilder &tb, Location tl, Value tap) {
              Value kh = ar::DivUIOp::create(tb, tl, tap, c(tb, tl, g.kw));
              Value kw = ar::RemUIOp::create(tb, tl, tap, c(tb, tl, g.kw));
              Value ih = ar::AddIOp::create(
                  tb, tl, ih0,
                  ar::MulIOp::create(tb, tl, kh, c(tb, tl, g.dilation[0])));
              Value iw = ar::AddIOp::create(
                  tb, tl, iw0,
                  ar::MulIOp::create(tb, tl, kw, c(tb, tl, g.dilation[1])));
              auto within = [&](Value v, int64_t size) -> Value {
                return ar::AndIOp::create(
                    tb, tl,
                    ar::CmpIOp::create(tb, tl, ar::CmpIPredicate::sge, v,
                                       c(tb, tl, 0)),
                    ar::CmpIOp::create(tb, tl, ar::CmpIPredicate::slt, v,
                                       c(tb, tl, size)));
              };
              Value inside = ar::AndIOp::create(tb, tl, within(ih, g.input[1]),
                                                within(iw, g.input[2]));
              Value base = ar::MulIOp::create(tb, tl, tap, c(tb, tl, channels));
              mlir::scf::IfOp::create(
                  tb, tl, inside,
                  [&](OpBuilder &ib, Location il) {
                    loop(ib, il, channels,
                         [&](OpBuilder &cb, Location cl, Value ch) {
                           Value v = mlir::memref::LoadOp::create(
                               cb, cl, input, mlir::ValueRange{n, ih, iw, ch});
                           storeA(cb, cl, toElement(cb, cl, v, top), rows,
                                  pixel, ar::AddIOp::create(cb, cl, base, ch));
                         });
                    mlir::scf::YieldOp::create(ib, il);
                  },
                  [&](OpBuilder &ib, Location il) {
                    loop(ib, il, channels,
                         [&](OpBuilder &cb, Location cl, Value ch) {
                           storeA(cb, cl, padding, rows, pixel,
                                  ar::AddIOp::create(cb, cl, base, ch));
                         });
                    mlir::scf::YieldOp::create(ib, il);
                  });
            });
          });
}

mlir::func::FuncOp KernelBuilder::build() {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  createGlobals(b, loc);
  Type i8 = b.getIntegerType(8);
  auto func = mlir::func::FuncOp::create(
      b, loc, name,
      b.getFunctionType({getInputType(chain), getOutputType(chain)}, {}));
  func.setPrivate();
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value a = body->getArgument(0);
  // The output as [M, N] rows.
  Value out = mlir::memref::CollapseShapeOp::create(
      b, loc, body->getArgument(1),
      chain.conv ? llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1, 2}, {3}}
                 : llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}, {2}});

  // The rows the microkernel reads: A in the target's element type (int8
  // with the top bit flipped, i.e. + 128, on VNNI; int16 on AVX2) in a
  // [M, K rounded up to a group] copy, zero beyond K (the padded weights are
  // zero there): one buffer, seen as elements to fill and as int32 groups to
  // broadcast from, so that the inner loop only broadcasts. For SMMLA, rows
  // in pairs, [M / 2][K / 8][2][8], so that one load reads a 2x8 block (and
  // a zero row after an odd M).
  Type element = b.getIntegerType(target.elementBits);
  int64_t copiedRows = target.matrix ? chain.m + chain.m % 2 : chain.m;
  Value bytes = mlir::memref::AllocOp::create(
      b, loc,
      MemRefType::get({copiedRows * k4 * group * target.elementBits / 8}, i8),
      mlir::ValueRange{}, b.getI64IntegerAttr(64));
  auto view = [&](llvm::ArrayRef<int64_t> shape, Type type) -> Value {
    return mlir::memref::ViewOp::create(b, loc, MemRefType::get(shape, type),
                                        bytes, index(b, loc, 0),
                                        mlir::ValueRange{});
  };
  Value rowsOfA = target.matrix ? view({copiedRows / 2, k4, 2 * group}, i8)
                                : view({chain.m, k4 * group}, element);
  // What the microkernel reads: the pairs of rows, or the int32 groups.
  Value a2 = target.matrix ? rowsOfA : view({chain.m, k4}, b.getI32Type());
  if (chain.k % group || copiedRows != chain.m) {
    Value zero =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, 0));
    mlir::linalg::FillOp::create(b, loc, mlir::ValueRange{zero},
                                 mlir::ValueRange{rowsOfA});
  }
  if (chain.conv)
    emitIm2col(b, loc, a, rowsOfA);
  else
    emitFlippedCopy(b, loc, a, rowsOfA);

  int64_t fullBlocks = chain.n / kLanes;
  int64_t pairedBlocks = fullBlocks - fullBlocks % target.vectors;
  int64_t mainRows = chain.m - chain.m % kRows;
  // For each group of column blocks (the weights stay in cache), every row.
  auto forRows = [&](OpBuilder &ob, Location l, Value block0, int64_t vectors,
                     bool partial) {
    if (mainRows > 0)
      mlir::scf::ForOp::create(
          ob, l, index(ob, l, 0), index(ob, l, mainRows), index(ob, l, kRows),
          mlir::ValueRange{},
          [&](OpBuilder &ib, Location il, Value m0, mlir::ValueRange) {
            emitTile(ib, il, a2, out, m0, kRows, block0, vectors, partial);
            mlir::scf::YieldOp::create(ib, il);
          });
    if (chain.m % kRows)
      emitTile(ob, l, a2, out, index(ob, l, mainRows), chain.m % kRows, block0,
               vectors, partial);
  };
  // The tiles of the column-block pairs are independent: an scf.parallel
  // over them, which the lowering runs on OpenMP threads. Threads split the
  // column pairs (each keeps its weight panels in cache) unless the packed
  // weights fit in L2 anyway: then the rows, so that each thread reads only
  // its part of A.
  constexpr int64_t kL2Bytes = 256 * 1024;
  bool rowsOuter =
      packedType.getNumElements() * target.elementBits / 8 <= kL2Bytes;
  if (pairedBlocks > 0 && mainRows > 0) {
    llvm::SmallVector<int64_t, 2> upper{pairedBlocks, mainRows};
    llvm::SmallVector<int64_t, 2> steps{target.vectors, kRows};
    if (rowsOuter) {
      std::swap(upper[0], upper[1]);
      std::swap(steps[0], steps[1]);
    }
    forEach(
        b, loc, upper, steps,
        [&](OpBuilder &ob, Location l, mlir::ValueRange ivs) {
          Value block0 = ivs[rowsOuter ? 1 : 0], m0 = ivs[rowsOuter ? 0 : 1];
          emitTile(ob, l, a2, out, m0, kRows, block0, target.vectors, false);
        });
  }
  if (pairedBlocks > 0 && chain.m % kRows)
    forEach(b, loc, {pairedBlocks}, {target.vectors},
            [&](OpBuilder &ob, Location l, mlir::ValueRange ivs) {
              emitTile(ob, l, a2, out, index(ob, l, mainRows), chain.m % kRows,
                       ivs[0], target.vectors, false);
            });
  for (int64_t block = pairedBlocks; block < fullBlocks; ++block)
    forRows(b, loc, index(b, loc, block), 1, false);
  if (chain.n % kLanes)
    forRows(b, loc, index(b, loc, fullBlocks), 1, true);
  // (Buffer deallocation frees the padded copy.)
  mlir::func::ReturnOp::create(b, loc);
  return func;
}

/// Replaces the chain with a call of its kernel.
void replaceChain(const MatmulChain &chain, mlir::func::FuncOp kernel) {
  OpBuilder b(chain.last);
  Location loc = chain.last->getLoc();
  Value a = mlir::bufferization::ToBufferOp::create(b, loc, getInputType(chain),
                                                    chain.start->getOperand(0),
                                                    /*read_only=*/true);
  Value out = mlir::memref::AllocOp::create(b, loc, getOutputType(chain));
  mlir::func::CallOp::create(b, loc, kernel, mlir::ValueRange{a, out});
  auto resultType =
      llvm::cast<RankedTensorType>(chain.last->getResult(0).getType());
  Value result = mlir::bufferization::ToTensorOp::create(
      b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
  // The kernel's output stands for the chain's: keep what the last op said
  // it quantizes to (quant-run --compare reads it).
  if (Attribute quantized = chain.last->getAttr("qfx.quantized"))
    result.getDefiningOp()->setAttr("qfx.quantized", quantized);
  chain.last->getResult(0).replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(chain.ops))
    op->erase();
}

/// The kernels for this machine, if it has an instruction qfx-codegen uses.
const KernelTarget *getHostTarget() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512vnni") && features.lookup("avx512bw"))
    return &kVnni;
  if (features.lookup("avx2"))
    return &kAvx2;
  if (features.lookup("i8mm"))
    return &kI8mm;
  if (features.lookup("dotprod"))
    return &kSdot;
  return nullptr;
}

struct QFXCodegenPass : qfx::impl::QFXCodegenBase<QFXCodegenPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    const KernelTarget *kernels = nullptr;
    if (target == "host")
      kernels = getHostTarget();
    else if (target == kVnni.name)
      kernels = &kVnni;
    else if (target == kSdot.name)
      kernels = &kSdot;
    else if (target == kI8mm.name)
      kernels = &kI8mm;
    else if (target == kAvx2.name)
      kernels = &kAvx2;
    else if (target != "none") {
      module.emitError() << "qfx-codegen: unknown target '" << target
                         << "', expected x86-64-avx512vnni, x86-64-avx2, "
                            "aarch64-dotprod, aarch64-i8mm, host or none";
      return signalPassFailure();
    }
    if (!kernels)
      return;
    std::vector<MatmulChain> chains;
    module.walk([&](Operation *op) {
      std::optional<MatmulChain> start;
      if (auto matmul = llvm::dyn_cast<tosa::MatMulOp>(op))
        start = matchStart(matmul);
      else if (auto conv = llvm::dyn_cast<tosa::Conv2DOp>(op))
        start = matchStart(conv);
      if (!start)
        return;
      if (std::optional<MatmulChain> chain = matchEpilogue(std::move(*start)))
        chains.push_back(std::move(*chain));
    });
    mlir::SymbolTable symbols(module);
    for (auto [i, chain] : llvm::enumerate(chains)) {
      std::string name = kernels->prefix.str() + std::to_string(i);
      while (symbols.lookup(name))
        name += "_";
      mlir::func::FuncOp kernel =
          KernelBuilder(module, chain, *kernels, name).build();
      replaceChain(chain, kernel);
    }
  }
};

struct QFXLowerIntrinsicCallsPass
    : qfx::impl::QFXLowerIntrinsicCallsBase<QFXLowerIntrinsicCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    llvm::SmallVector<mlir::func::FuncOp> declarations;
    for (auto func : module.getOps<mlir::func::FuncOp>())
      if (func.isExternal() && func->hasAttr(kIntrinsicAttr))
        declarations.push_back(func);
    for (mlir::func::FuncOp decl : declarations) {
      auto intrinsic = decl->getAttrOfType<mlir::StringAttr>(kIntrinsicAttr);
      std::optional<mlir::SymbolTable::UseRange> uses =
          mlir::SymbolTable::getSymbolUses(decl, module);
      for (const mlir::SymbolTable::SymbolUse &use : *uses) {
        auto call = llvm::dyn_cast<mlir::func::CallOp>(use.getUser());
        if (!call) {
          use.getUser()->emitError()
              << "qfx-lower-intrinsic-calls: " << decl.getName()
              << " is used other than by func.call";
          return signalPassFailure();
        }
        OpBuilder b(call);
        auto replacement = mlir::LLVM::CallIntrinsicOp::create(
            b, call.getLoc(), call.getResultTypes(), intrinsic,
            call.getOperands(), mlir::LLVM::FastmathFlagsAttr{});
        call->replaceAllUsesWith(replacement);
        call.erase();
      }
      decl.erase();
    }
  }
};

} // namespace
