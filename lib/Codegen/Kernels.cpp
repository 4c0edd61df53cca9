//===- Kernels.cpp - qfx-codegen's chains and kernel pieces ---------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Support/DenseValues.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <functional>

namespace tosa = mlir::tosa;
namespace vector = mlir::vector;

namespace qfx::codegen {

std::optional<std::vector<int64_t>> getInts(Value value) {
  mlir::DenseIntElementsAttr attr;
  if (!mlir::matchPattern(value, mlir::m_Constant(&attr)))
    return std::nullopt;
  return getIntValues(attr);
}

/// The floats of a constant operand, if it is one.
static std::optional<std::vector<float>> getFloats(Value value) {
  mlir::DenseFPElementsAttr attr;
  if (!mlir::matchPattern(value, mlir::m_Constant(&attr)) ||
      !attr.getElementType().isF32())
    return std::nullopt;
  return std::vector<float>(attr.getValues<float>().begin(),
                            attr.getValues<float>().end());
}

/// Per-channel floats: one per channel, or one for all.
static bool broadcastFloats(const std::vector<float> &values, int64_t n,
                            std::vector<float> &out) {
  if (values.size() != 1 && values.size() != static_cast<size_t>(n))
    return false;
  out.resize(n);
  for (int64_t c = 0; c < n; ++c)
    out[c] = values[values.size() == 1 ? 0 : c];
  return true;
}

std::optional<int64_t> getScalar(Value value) {
  std::optional<std::vector<int64_t>> values = getInts(value);
  if (!values || values->empty() || !llvm::all_equal(*values))
    return std::nullopt;
  return values->front();
}

bool broadcastTo(const std::vector<int64_t> &values, int64_t n,
                 std::vector<int32_t> &out) {
  if (values.size() != 1 && values.size() != static_cast<size_t>(n))
    return false;
  out.resize(n);
  for (int64_t c = 0; c < n; ++c)
    out[c] = static_cast<int32_t>(values[values.size() == 1 ? 0 : c]);
  return true;
}

/// The geometry of a convolution contraction (not its kernel's size:
/// `kh`, `kw`, `multiplier` unset).
static ConvGeometry getConvGeometry(ContractOp op) {
  ConvGeometry g;
  g.input.assign(op.getInput().getType().getShape().begin(),
                 op.getInput().getType().getShape().end());
  g.output.assign(op.getOutput().getType().getShape().begin(),
                  op.getOutput().getType().getShape().end());
  g.pad.assign(op.getPad()->begin(), op.getPad()->end());
  g.stride.assign(op.getStride()->begin(), op.getStride()->end());
  g.dilation.assign(op.getDilation()->begin(), op.getDilation()->end());
  return g;
}

std::optional<Chain> matchContract(ContractOp op) {
  RankedTensorType inType = op.getInput().getType(),
                   wType = op.getWeight().getType(),
                   outType = op.getOutput().getType();
  if (!inType.hasStaticShape() || !wType.hasStaticShape() ||
      !outType.hasStaticShape() || op.getWeightZp() != 0 ||
      op.getKind() == ContractionKind::TransposeConv2d)
    return std::nullopt;
  Chain chain;
  chain.op = op;
  chain.f32 = op.isFloat();
  chain.n = op.getNumChannels();
  chain.inputZp = op.getInputZp();
  // A GEMM's weights as its kernel reads them, packed (qfx-pack-weights);
  // a depthwise convolution's as they are.
  mlir::DenseElementsAttr weight;
  bool constantWeight =
      mlir::matchPattern(op.getWeight(), mlir::m_Constant(&weight));
  if (op.getKind() == ContractionKind::DepthwiseConv2d) {
    // (int8 only: the float kernels are GEMMs.)
    std::optional<std::vector<int64_t>> values = getInts(op.getWeight());
    if (chain.f32 || !values)
      return std::nullopt;
    chain.weight.assign(values->begin(), values->end());
  } else if (constantWeight) {
    if (Value packed = op.getPackedWeight()) {
      if (!mlir::matchPattern(packed, mlir::m_Constant(&chain.packed)))
        return std::nullopt;
      WeightPackingAttr packing = *op.getWeightPacking();
      chain.packing = WeightPacking{packing.getLanes(), packing.getGroup(),
                                    packing.getTaps(), packing.getTapGroups()};
    }
  } else if (chain.f32 && op.getKind() == ContractionKind::Matmul) {
    // A float matmul may multiply by a value computed at run time.
    chain.runtimeWeight = true;
  } else {
    return std::nullopt;
  }
  chain.accBias.assign(chain.n, 0);
  chain.floatBias.assign(chain.n, 0.0f);
  if (Value bias = op.getBias()) {
    // A float matmul's sums start from 0.0 (as the generic lowering's
    // fill), so its bias stays a separate add.
    if (chain.f32 && op.getKind() == ContractionKind::Matmul)
      return std::nullopt;
    bool known = false;
    if (chain.f32) {
      std::optional<std::vector<float>> values = getFloats(bias);
      known = values && broadcastFloats(*values, chain.n, chain.floatBias);
    } else {
      std::optional<std::vector<int64_t>> values = getInts(bias);
      known = values && broadcastTo(*values, chain.n, chain.accBias);
    }
    if (!known)
      return std::nullopt;
  }
  switch (op.getKind()) {
  case ContractionKind::Matmul:
    // [1, M, K] x [1, K, N]: the weight is [K, N] already; a runtime weight
    // is one [K, N] per batch.
    chain.batch = inType.getDimSize(0);
    if (chain.runtimeWeight ? wType.getDimSize(0) != chain.batch
                            : chain.batch != 1)
      return std::nullopt;
    chain.m = inType.getDimSize(1);
    chain.k = inType.getDimSize(2);
    break;
  case ContractionKind::Conv2d: {
    chain.conv = getConvGeometry(op);
    ConvGeometry &g = *chain.conv;
    g.kh = wType.getDimSize(1);
    g.kw = wType.getDimSize(2);
    chain.m = g.output[0] * g.output[1] * g.output[2];
    chain.k = g.kh * g.kw * g.input[3];
    break;
  }
  case ContractionKind::DepthwiseConv2d: {
    // [KH, KW, C, M]: taps of C * M output channels (int8 only: the float
    // kernels are GEMMs).
    if (chain.f32)
      return std::nullopt;
    chain.conv = getConvGeometry(op);
    ConvGeometry &g = *chain.conv;
    g.kh = wType.getDimSize(0);
    g.kw = wType.getDimSize(1);
    g.multiplier = wType.getDimSize(3);
    chain.m = g.output[0] * g.output[1] * g.output[2];
    chain.k = g.kh * g.kw;
    break;
  }
  case ContractionKind::TransposeConv2d:
    return std::nullopt;
  }
  // The epilogue.
  chain.bias.assign(chain.n, 0);
  std::optional<Attribute> epilogue = op.getEpilogue();
  chain.raw = !chain.f32 && !epilogue;
  if (!epilogue)
    return chain;
  if (auto rescale = llvm::dyn_cast<RescaleAttr>(*epilogue)) {
    auto ints = [](mlir::DenseI32ArrayAttr values) {
      return std::vector<int64_t>(values.asArrayRef().begin(),
                                  values.asArrayRef().end());
    };
    chain.fractionBits = rescale.getFractionBits();
    if ((!rescale.getBias().empty() &&
         !broadcastTo(ints(rescale.getBias()), chain.n, chain.bias)) ||
        !broadcastTo(ints(rescale.getMultipliers()), chain.n,
                     chain.multipliers) ||
        !broadcastTo(ints(rescale.getShifts()), chain.n, chain.shifts))
      return std::nullopt;
    chain.outputZp = rescale.getOutputZp();
    chain.lo = rescale.getMin();
    chain.hi = rescale.getMax();
    return chain;
  }
  auto requantize = llvm::cast<RequantizeAttr>(*epilogue);
  auto floats = [](mlir::DenseF32ArrayAttr values) {
    return std::vector<float>(values.asArrayRef().begin(),
                              values.asArrayRef().end());
  };
  chain.floatEpilogue = true;
  if ((!requantize.getBias().empty() &&
       !broadcastFloats(floats(requantize.getBias()), chain.n,
                        chain.floatBias)) ||
      !broadcastFloats(floats(requantize.getMultipliers()), chain.n,
                       chain.floatMultipliers))
    return std::nullopt;
  chain.floatZp = requantize.getZeroPoint().convertToFloat();
  chain.floatLo = requantize.getMin().convertToFloat();
  chain.floatHi = requantize.getMax().convertToFloat();
  chain.outputZp = requantize.getOutputZp();
  return chain;
}

/// The element type of a chain's input and output.
static Type getElementType(const Chain &chain, bool output) {
  mlir::MLIRContext *context = chain.op->getContext();
  return chain.f32 ? Type(mlir::Float32Type::get(context))
                   : Type(mlir::IntegerType::get(context,
                                                 output && chain.raw ? 32 : 8));
}

MemRefType getInputType(const Chain &chain) {
  if (chain.conv)
    return MemRefType::get(chain.conv->input, getElementType(chain, false));
  return MemRefType::get({chain.batch, chain.m, chain.k},
                         getElementType(chain, false));
}

MemRefType getOutputType(const Chain &chain) {
  if (chain.conv)
    return MemRefType::get(chain.conv->output, getElementType(chain, true));
  return MemRefType::get({chain.batch, chain.m, chain.n},
                         getElementType(chain, true));
}

MemRefType getRuntimeWeightType(const Chain &chain) {
  return MemRefType::get({chain.batch, chain.k, chain.n},
                         getElementType(chain, false));
}

void replaceChain(const Chain &chain, const Kernel &kernel) {
  Operation *op = chain.op;
  OpBuilder b(op);
  Location loc = op->getLoc();
  llvm::SmallVector<Value> arguments;
  arguments.push_back(mlir::bufferization::ToBufferOp::create(
      b, loc, getInputType(chain), op->getOperand(0),
      /*read_only=*/true));
  Value out = mlir::memref::AllocOp::create(b, loc, getOutputType(chain));
  arguments.push_back(out);
  if (chain.runtimeWeight)
    arguments.push_back(mlir::bufferization::ToBufferOp::create(
        b, loc, getRuntimeWeightType(chain), op->getOperand(1),
        /*read_only=*/true));
  for (mlir::memref::GlobalOp global : kernel.constants)
    arguments.push_back(mlir::memref::GetGlobalOp::create(
        b, loc, global.getType(), global.getSymName()));
  mlir::func::CallOp::create(b, loc, kernel.func, arguments);
  auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  Value result = mlir::bufferization::ToTensorOp::create(
      b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
  // The kernel's output stands for the op's: keep what the op said it
  // quantizes to (quant-run --compare reads it).
  if (Attribute quantized = op->getAttr(QFXDialect::getQuantizedAttrName()))
    result.getDefiningOp()->setAttr(QFXDialect::getQuantizedAttrName(),
                                    quantized);
  op->getResult(0).replaceAllUsesWith(result);
  // The packed weights are the kernel's global now.
  Operation *packed = nullptr;
  if (auto contract = llvm::dyn_cast<ContractOp>(op);
      contract && contract.getPackedWeight())
    packed = contract.getPackedWeight().getDefiningOp();
  op->erase();
  if (packed && mlir::isOpTriviallyDead(packed))
    packed->erase();
}

KernelBuilderBase::KernelBuilderBase(mlir::ModuleOp module, const Chain &chain,
                                     const KernelTarget &target,
                                     std::string name)
    : module(module), chain(chain), target(target),
      kLanes(chain.f32 ? target.floatLanes : target.lanes),
      name(std::move(name)), blocks((chain.n + kLanes - 1) / kLanes) {
  mlir::Builder b(module.getContext());
  constType = MemRefType::get({blocks, kLanes}, b.getI32Type());
  i64Type = MemRefType::get({blocks, kLanes}, b.getI64Type());
  floatType = MemRefType::get({blocks, kLanes}, b.getF32Type());
}

mlir::func::FuncOp getIntrinsic(mlir::ModuleOp module,
                                llvm::StringRef intrinsic,
                                llvm::ArrayRef<Type> operands, Type result) {
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

mlir::func::FuncOp KernelBuilderBase::createFunction(OpBuilder &b,
                                                     Location loc) {
  llvm::SmallVector<Type> arguments{getInputType(chain), getOutputType(chain)};
  if (chain.runtimeWeight)
    arguments.push_back(getRuntimeWeightType(chain));
  for (mlir::memref::GlobalOp global : constants)
    arguments.push_back(global.getType());
  auto func = mlir::func::FuncOp::create(b, loc, name,
                                         b.getFunctionType(arguments, {}));
  func.setPrivate();
  body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  return func;
}

Value KernelBuilderBase::getScalar(OpBuilder &b, Location loc, Scalar which) {
  Value scalar = mlir::memref::LoadOp::create(b, loc, getConstant("_scalars"),
                                              index(b, loc, which));
  if (which >= FloatZp)
    scalar = arith::BitcastOp::create(b, loc, b.getF32Type(), scalar);
  return scalar;
}

Value KernelBuilderBase::getConstant(llvm::StringRef suffix) {
  std::string symbol = name + suffix.str();
  for (auto [i, global] : llvm::enumerate(constants))
    if (global.getSymName() == symbol)
      return body->getArgument((chain.runtimeWeight ? 3 : 2) + i);
  llvm_unreachable("a kernel reads a constant it did not create");
}

std::tuple<Value, Value, Value>
KernelBuilderBase::emitPixelOrigin(OpBuilder &b, Location loc, Value pixel) {
  const ConvGeometry &g = *chain.conv;
  Value plane = index(b, loc, g.output[1] * g.output[2]);
  Value n = arith::DivUIOp::create(b, loc, pixel, plane);
  Value rest = arith::RemUIOp::create(b, loc, pixel, plane);
  Value oh = arith::DivUIOp::create(b, loc, rest, index(b, loc, g.output[2]));
  Value ow = arith::RemUIOp::create(b, loc, rest, index(b, loc, g.output[2]));
  Value ih0 = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, oh, index(b, loc, g.stride[0])),
      index(b, loc, g.pad[0]));
  Value iw0 = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, ow, index(b, loc, g.stride[1])),
      index(b, loc, g.pad[2]));
  return {n, ih0, iw0};
}

Value KernelBuilderBase::emitWithin(OpBuilder &b, Location loc, Value v,
                                    int64_t size) {
  return arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v,
                            index(b, loc, 0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v,
                            index(b, loc, size)));
}

void KernelBuilderBase::createEpilogueGlobals(
    OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> compensation) {
  std::vector<int32_t> folded(blocks * kLanes, 0);
  for (int64_t nn = 0; nn < chain.n; ++nn) {
    uint64_t beforeShift =
        static_cast<uint64_t>(static_cast<int64_t>(chain.accBias[nn])) -
        static_cast<uint64_t>(compensation[nn]);
    folded[nn] = static_cast<int32_t>(static_cast<uint32_t>(
        (beforeShift << chain.fractionBits) +
        static_cast<uint64_t>(static_cast<int64_t>(chain.bias[nn]))));
  }
  createGlobal(b, loc, "_bias", constType, llvm::ArrayRef(folded));
  std::vector<int32_t> scalars(NumScalars);
  scalars[FractionBits] = chain.fractionBits;
  scalars[OutputZp] = static_cast<int32_t>(chain.outputZp);
  scalars[Lo] = static_cast<int32_t>(chain.lo);
  scalars[Hi] = static_cast<int32_t>(chain.hi);
  scalars[InputZp] = static_cast<int32_t>(chain.inputZp);
  scalars[FloatZp] = llvm::bit_cast<int32_t>(chain.floatZp);
  scalars[FloatLo] = llvm::bit_cast<int32_t>(chain.floatLo);
  scalars[FloatHi] = llvm::bit_cast<int32_t>(chain.floatHi);
  createGlobal(b, loc, "_scalars",
               MemRefType::get({NumScalars}, b.getI32Type()),
               llvm::ArrayRef(scalars));
  // Per channel, padded to whole blocks.
  auto padded = [&](const auto &values, auto fill) {
    std::vector<decltype(fill)> result(blocks * kLanes, fill);
    std::copy(values.begin(), values.end(), result.begin());
    return result;
  };
  if (chain.floatEpilogue) {
    createGlobal(b, loc, "_float_bias", floatType,
                 llvm::ArrayRef(padded(chain.floatBias, 0.0f)));
    createGlobal(b, loc, "_float_multipliers", floatType,
                 llvm::ArrayRef(padded(chain.floatMultipliers, 0.0f)));
    return;
  }
  createGlobal(b, loc, "_multipliers", constType,
               llvm::ArrayRef(padded(chain.multipliers, int32_t{0})));
  createGlobal(b, loc, "_shifts", i64Type,
               llvm::ArrayRef(padded(chain.shifts, int64_t{1})));
}

void KernelBuilderBase::emitEpilogue(OpBuilder &b, Location loc, Value out,
                                     Value block, Value row0,
                                     llvm::ArrayRef<Value> sums, bool partial,
                                     bool fromBias) {
  assert((!fromBias || sumsStartFromBias()) && "the sums need a shift first");
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type(), i64 = b.getI64Type(),
       f32 = b.getF32Type();
  auto accType = VectorType::get({kLanes}, i32);
  auto wideType = VectorType::get({kLanes}, i64);
  auto floatVector = VectorType::get({kLanes}, f32);
  auto splat = [&](Scalar which) -> Value {
    Value scalar = getScalar(b, loc, which);
    return vector::BroadcastOp::create(
        b, loc, scalar.getType().isF32() ? floatVector : accType, scalar);
  };
  // (Without fraction bits, no shift: it is a scalar, not a constant LLVM
  // would fold.)
  Value fraction = chain.fractionBits ? splat(FractionBits) : Value();
  Value outZp = splat(OutputZp);
  Value lo = chain.floatEpilogue ? Value() : splat(Lo),
        hi = chain.floatEpilogue ? Value() : splat(Hi);
  llvm::SmallVector<Value, 2> at{block, index(b, loc, 0)};
  Value c = fromBias ? Value()
                     : vector::LoadOp::create(b, loc, accType,
                                              getConstant("_bias"), at);
  // The requantization of one row's int32 accumulators, before the output
  // zero point.
  std::function<Value(Value)> requantize;
  if (chain.floatEpilogue) {
    Value bias = vector::LoadOp::create(b, loc, floatVector,
                                        getConstant("_float_bias"), at);
    Value mult = vector::LoadOp::create(b, loc, floatVector,
                                        getConstant("_float_multipliers"), at);
    Value zp = splat(FloatZp);
    // The clamp after the output zero point folded into the float one:
    // with A = lo - output zp and B = hi - output zp (integers), clamping
    // round(clamp(x, floatLo, floatHi)) to [A, B] is rounding
    // clamp(x, clamp(floatLo, A, B), clamp(floatHi, A, B)) (rounding is
    // monotone and keeps integers), two vector instructions fewer a row.
    auto offsetBound = [&](Scalar which) -> Value {
      return arith::SIToFPOp::create(
          b, loc, f32,
          arith::SubIOp::create(b, loc, getScalar(b, loc, which),
                                getScalar(b, loc, OutputZp)));
    };
    Value lowest = offsetBound(Lo), highest = offsetBound(Hi);
    auto bound = [&](Scalar which) -> Value {
      auto clampTo = [&](Value v, Value limit, arith::CmpFPredicate keep) {
        return arith::SelectOp::create(
            b, loc, arith::CmpFOp::create(b, loc, keep, v, limit), v, limit);
      };
      Value v =
          clampTo(getScalar(b, loc, which), lowest, arith::CmpFPredicate::OGT);
      v = clampTo(v, highest, arith::CmpFPredicate::OLT);
      return vector::BroadcastOp::create(b, loc, floatVector, v);
    };
    Value floatLo = bound(FloatLo), floatHi = bound(FloatHi);
    // The target's rounding conversion: all lanes, half to even without
    // exceptions (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC).
    mlir::func::FuncOp roundToInt;
    Value zeroInts, allLanes, nearestEven;
    if (!target.roundToInt.empty()) {
      Type mask = b.getIntegerType(kLanes);
      roundToInt = getIntrinsic(target.roundToInt,
                                {floatVector, accType, mask, i32}, accType);
      zeroInts = arith::ConstantOp::create(
          b, loc, accType, mlir::DenseElementsAttr::get(accType, int32_t{0}));
      allLanes = arith::ConstantOp::create(b, loc, b.getIntegerAttr(mask, -1));
      nearestEven = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(8));
    }
    // In float32, each op rounded on its own (no fused multiply-add), as
    // the tosa ops it stands for.
    requantize = [=, &b](Value acc) -> Value {
      Value x = arith::SIToFPOp::create(b, loc, floatVector, acc);
      x = arith::AddFOp::create(b, loc, x, bias);
      x = arith::MulFOp::create(b, loc, x, mult);
      x = arith::AddFOp::create(b, loc, x, zp);
      // The clamp as compare and select (vmaxps, vminps): x is never NaN,
      // and a zero of either sign rounds to the same integer. (maximumf
      // and minimumf of bounds that are not constants order NaNs and
      // signed zeros: six instructions each.)
      auto clamp = [&](arith::CmpFPredicate keep, Value bound) {
        return arith::SelectOp::create(
            b, loc, arith::CmpFOp::create(b, loc, keep, x, bound), x, bound);
      };
      x = clamp(arith::CmpFPredicate::OGT, floatLo);
      x = clamp(arith::CmpFPredicate::OLT, floatHi);
      if (roundToInt)
        return mlir::func::CallOp::create(
                   b, loc, roundToInt,
                   mlir::ValueRange{x, zeroInts, allLanes, nearestEven})
            .getResult(0);
      x = mlir::math::RoundEvenOp::create(b, loc, x);
      return arith::FPToSIOp::create(b, loc, accType, x);
    };
  } else {
    // The multipliers as int32 sign-extended: x86 multiplies two
    // sign-extended int32 with vpmuldq (one uop; a 64-bit vpmullq takes
    // three).
    Value mult = arith::ExtSIOp::create(
        b, loc, wideType,
        vector::LoadOp::create(b, loc, accType, getConstant("_multipliers"),
                               at));
    Value shift =
        vector::LoadOp::create(b, loc, wideType, getConstant("_shifts"), at);
    // The rounding addend 2^(shift - 1), once per block.
    Value one = arith::ConstantOp::create(
        b, loc, wideType, mlir::DenseElementsAttr::get(wideType, int64_t{1}));
    Value round = arith::ShLIOp::create(
        b, loc, one, arith::SubIOp::create(b, loc, shift, one));
    requantize = [=, &b](Value acc) -> Value {
      Value wide = arith::ExtSIOp::create(b, loc, wideType, acc);
      wide = arith::MulIOp::create(b, loc, wide, mult);
      wide = arith::AddIOp::create(b, loc, wide, round);
      wide = arith::ShRSIOp::create(b, loc, wide, shift);
      return arith::TruncIOp::create(b, loc, accType, wide);
    };
  }
  Value column = arith::MulIOp::create(b, loc, block, index(b, loc, kLanes));
  for (auto [r, sum] : llvm::enumerate(sums)) {
    Value acc =
        fromBias
            ? sum
            : arith::AddIOp::create(
                  b, loc,
                  fraction ? arith::ShLIOp::create(b, loc, sum, fraction) : sum,
                  c);
    // The int32 result of a raw chain; else requantized to int8.
    Value result = acc;
    if (!chain.raw) {
      result = arith::AddIOp::create(b, loc, requantize(acc), outZp);
      if (!chain.floatEpilogue)
        result = arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, result, lo), hi);
      result = arith::TruncIOp::create(b, loc, VectorType::get({kLanes}, i8),
                                       result);
    }
    Value row = arith::AddIOp::create(b, loc, row0, index(b, loc, r));
    llvm::SmallVector<Value, 2> where{row, column};
    if (!partial) {
      vector::StoreOp::create(b, loc, result, out, where);
      continue;
    }
    // The last block's lanes one by one. (A vector.maskedstore with one
    // active lane is miscompiled by LLVM 22's x86 backend into a 4-byte
    // store.)
    for (int64_t lane = 0; lane < chain.n % kLanes; ++lane) {
      where[1] = arith::AddIOp::create(b, loc, column, index(b, loc, lane));
      Value element = vector::ExtractOp::create(b, loc, result,
                                                llvm::ArrayRef<int64_t>{lane});
      mlir::memref::StoreOp::create(b, loc, element, out, where);
    }
  }
}

Value KernelBuilderBase::emitTopBit(OpBuilder &b, Location loc) {
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(b.getIntegerType(8), -128));
}

Value KernelBuilderBase::emitPaddingElement(OpBuilder &b, Location loc) {
  return toElement(b, loc,
                   arith::TruncIOp::create(b, loc, b.getIntegerType(8),
                                           getScalar(b, loc, InputZp)),
                   emitTopBit(b, loc));
}

Value KernelBuilderBase::toElement(OpBuilder &b, Location loc, Value v,
                                   Value top) {
  if (target.unsignedA)
    v = arith::XOrIOp::create(b, loc, v, top);
  if (target.elementBits > 8)
    v = arith::ExtSIOp::create(b, loc, b.getIntegerType(target.elementBits), v);
  return v;
}

Value KernelBuilderBase::emitInitialSums(OpBuilder &b, Location loc,
                                         Value block) {
  auto accType = VectorType::get({kLanes}, b.getI32Type());
  if (!sumsStartFromBias())
    return arith::ConstantOp::create(
        b, loc, accType, mlir::DenseElementsAttr::get(accType, int32_t{0}));
  return vector::LoadOp::create(b, loc, accType, getConstant("_bias"),
                                mlir::ValueRange{block, index(b, loc, 0)});
}

Value KernelBuilderBase::emitWindowStart(OpBuilder &b, Location loc, Value m,
                                         int64_t paddedHeight,
                                         int64_t paddedWidth) {
  const ConvGeometry &g = *chain.conv;
  // A pointwise convolution's windows (1x1, stride 1, no padding) are its
  // pixels: no division per row of a tile.
  if (g.output[1] == paddedHeight && g.output[2] == paddedWidth)
    return m;
  // (n * padded H + ih0 + pad top) * padded W + iw0 + pad left: the
  // window's top left corner in the padded copy.
  auto [n, ih0, iw0] = emitPixelOrigin(b, loc, m);
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, n, index(b, loc, paddedHeight)),
      arith::AddIOp::create(b, loc, ih0, index(b, loc, g.pad[0])));
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, index(b, loc, paddedWidth)),
      arith::AddIOp::create(b, loc, iw0, index(b, loc, g.pad[2])));
}

Value KernelBuilderBase::emitTapOffset(OpBuilder &b, Location loc, Value tap,
                                       int64_t paddedWidth) {
  const ConvGeometry &g = *chain.conv;
  Value kh = arith::DivUIOp::create(b, loc, tap, index(b, loc, g.kw));
  Value kw = arith::RemUIOp::create(b, loc, tap, index(b, loc, g.kw));
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, kh,
                            index(b, loc, g.dilation[0] * paddedWidth)),
      arith::MulIOp::create(b, loc, kw, index(b, loc, g.dilation[1])));
}

void KernelBuilderBase::createRanges(
    OpBuilder &b, Location loc, int64_t perTap, int64_t positions,
    llvm::function_ref<bool(int64_t, int64_t)> nonzero) {
  std::vector<int32_t> found(2 * blocks);
  bool saves = false;
  for (int64_t block = 0; block < blocks; ++block) {
    int64_t first = perTap, end = 0;
    for (int64_t at = 0; at < positions; ++at)
      if (nonzero(block, at)) {
        first = std::min(first, at % perTap);
        end = std::max(end, at % perTap + 1);
      }
    found[2 * block] = first;
    found[2 * block + 1] = end;
    saves |= 4 * (end - first) <= 3 * perTap;
  }
  if (!saves)
    return;
  ranges = std::move(found);
  createGlobal(b, loc, "_ranges", MemRefType::get({blocks, 2}, b.getI32Type()),
               llvm::ArrayRef(ranges));
}

int64_t KernelBuilderBase::getRangeTileBlocks(int64_t vectors) const {
  if (ranges.empty() || vectors != 2)
    return vectors;
  auto width = [](int64_t first, int64_t end) {
    return std::max<int64_t>(end - first, 0);
  };
  int64_t paired = 0, single = 0;
  for (int64_t block = 0; block + 1 < blocks; block += 2) {
    single += width(ranges[2 * block], ranges[2 * block + 1]) +
              width(ranges[2 * block + 2], ranges[2 * block + 3]);
    paired += width(std::min(ranges[2 * block], ranges[2 * block + 2]),
                    std::max(ranges[2 * block + 1], ranges[2 * block + 3]));
  }
  return 3 * single < 4 * paired ? 1 : vectors;
}

std::pair<Value, Value>
KernelBuilderBase::emitTileRange(OpBuilder &b, Location loc, Value block0,
                                 int64_t vectors, int64_t perTap) {
  if (ranges.empty())
    return {index(b, loc, 0), index(b, loc, perTap)};
  Value table = getConstant("_ranges");
  auto bound = [&](int64_t v, int64_t which) -> Value {
    Value block = arith::AddIOp::create(b, loc, block0, index(b, loc, v));
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        mlir::memref::LoadOp::create(
            b, loc, table, mlir::ValueRange{block, index(b, loc, which)}));
  };
  Value first = bound(0, 0), end = bound(0, 1);
  for (int64_t v = 1; v < vectors; ++v) {
    first = arith::MinUIOp::create(b, loc, first, bound(v, 0));
    end = arith::MaxUIOp::create(b, loc, end, bound(v, 1));
  }
  return {first, end};
}

void KernelBuilderBase::emitPaddedCopy(
    OpBuilder &b, Location loc, Value input, Value padded, Value padding,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> convert,
    int64_t repeat) {
  const ConvGeometry &g = *chain.conv;
  auto type = llvm::cast<MemRefType>(padded.getType());
  int64_t paddedHeight = type.getDimSize(1), paddedWidth = type.getDimSize(2);
  // The padding: all of the copy where it has channels beyond the input's,
  // else only its border (the inside is written once, below).
  auto fill = [&](llvm::ArrayRef<int64_t> offsets,
                  llvm::ArrayRef<int64_t> sizes) {
    if (llvm::is_contained(sizes, 0))
      return;
    Value part = mlir::memref::SubViewOp::create(
        b, loc, padded, offsets, sizes,
        llvm::SmallVector<int64_t>(sizes.size(), 1));
    mlir::linalg::FillOp::create(b, loc, mlir::ValueRange{padding},
                                 mlir::ValueRange{part});
  };
  int64_t images = g.input[0], height = g.input[1], width = g.input[2],
          channels = type.getDimSize(3);
  if (channels != g.input[3] * repeat) {
    mlir::linalg::FillOp::create(b, loc, mlir::ValueRange{padding},
                                 mlir::ValueRange{padded});
  } else {
    int64_t bottom = g.pad[0] + height, right = g.pad[2] + width;
    fill({0, 0, 0, 0}, {images, g.pad[0], paddedWidth, channels});
    fill({0, bottom, 0, 0},
         {images, paddedHeight - bottom, paddedWidth, channels});
    fill({0, g.pad[0], 0, 0}, {images, height, g.pad[2], channels});
    fill({0, g.pad[0], right, 0},
         {images, height, paddedWidth - right, channels});
  }
  // Input rows in parallel; LLVM vectorizes the inner loop.
  forEach(
      b, loc, {images * height}, {1},
      [&](OpBuilder &pb, Location l, mlir::ValueRange rows) {
        Value n =
            arith::DivUIOp::create(pb, l, rows.front(), index(pb, l, height));
        Value row =
            arith::RemUIOp::create(pb, l, rows.front(), index(pb, l, height));
        Value ph = arith::AddIOp::create(pb, l, row, index(pb, l, g.pad[0]));
        mlir::scf::ForOp::create(
            pb, l, index(pb, l, 0), index(pb, l, width), index(pb, l, 1),
            mlir::ValueRange{},
            [&](OpBuilder &wb, Location wl, Value col, mlir::ValueRange) {
              Value pw =
                  arith::AddIOp::create(wb, wl, col, index(wb, wl, g.pad[2]));
              mlir::scf::ForOp::create(
                  wb, wl, index(wb, wl, 0), index(wb, wl, g.input[3]),
                  index(wb, wl, 1), mlir::ValueRange{},
                  [&](OpBuilder &cb, Location cl, Value c, mlir::ValueRange) {
                    Value v = convert(
                        cb, cl,
                        mlir::memref::LoadOp::create(
                            cb, cl, input, mlir::ValueRange{n, row, col, c}));
                    // Channel c at c * repeat, ..., + repeat - 1.
                    Value first = repeat == 1
                                      ? c
                                      : arith::MulIOp::create(
                                            cb, cl, c, index(cb, cl, repeat));
                    for (int64_t r = 0; r < repeat; ++r)
                      mlir::memref::StoreOp::create(
                          cb, cl, v, padded,
                          mlir::ValueRange{
                              n, ph, pw,
                              r ? arith::AddIOp::create(cb, cl, first,
                                                        index(cb, cl, r))
                                : first});
                    mlir::scf::YieldOp::create(cb, cl);
                  });
              mlir::scf::YieldOp::create(wb, wl);
            });
      });
}

void KernelBuilderBase::emitTiles(
    OpBuilder &b, Location loc, int64_t rows, int64_t tileBlocks,
    bool rowsOuter,
    llvm::function_ref<void(OpBuilder &, Location, Value, int64_t, Value,
                            int64_t, bool)>
        tile) {
  int64_t fullBlocks = chain.n / kLanes;
  int64_t pairedBlocks = fullBlocks - fullBlocks % tileBlocks;
  int64_t mainRows = chain.m - chain.m % rows;
  // For each group of column blocks (the weights stay in cache), every row.
  auto forRows = [&](OpBuilder &ob, Location l, Value block0, int64_t vectors,
                     bool partial) {
    if (mainRows > 0)
      mlir::scf::ForOp::create(
          ob, l, index(ob, l, 0), index(ob, l, mainRows), index(ob, l, rows),
          mlir::ValueRange{},
          [&](OpBuilder &ib, Location il, Value m0, mlir::ValueRange) {
            tile(ib, il, m0, rows, block0, vectors, partial);
            mlir::scf::YieldOp::create(ib, il);
          });
    if (chain.m % rows)
      tile(ob, l, index(ob, l, mainRows), chain.m % rows, block0, vectors,
           partial);
  };
  // The tiles of the main blocks are independent: an scf.parallel over
  // them, which the lowering runs on OpenMP threads. The last rows (M not a
  // multiple of `rows`) are one more row of tiles in the same loop: a
  // parallel region of their own cost a fork and join (docs/performance.md,
  // "Measured decisions").
  int64_t tailRows = chain.m % rows;
  if (pairedBlocks > 0) {
    llvm::SmallVector<int64_t, 2> upper{pairedBlocks,
                                        mainRows + (tailRows ? rows : 0)};
    llvm::SmallVector<int64_t, 2> steps{tileBlocks, rows};
    if (rowsOuter) {
      std::swap(upper[0], upper[1]);
      std::swap(steps[0], steps[1]);
    }
    forEach(
        b, loc, upper, steps,
        [&](OpBuilder &ob, Location l, mlir::ValueRange ivs) {
          Value block0 = ivs[rowsOuter ? 1 : 0], m0 = ivs[rowsOuter ? 0 : 1];
          auto full = [&](OpBuilder &fb, Location fl) {
            tile(fb, fl, m0, rows, block0, tileBlocks, false);
          };
          auto last = [&](OpBuilder &tb, Location tl) {
            tile(tb, tl, index(tb, tl, mainRows), tailRows, block0, tileBlocks,
                 false);
          };
          if (!tailRows)
            return full(ob, l);
          if (!mainRows)
            return last(ob, l);
          // Each branch in an scf.execute_region that canonicalization
          // keeps (no_inline): a tile may hold a memref.alloca_scope (AMX),
          // whose lowering splits its block, and an scf.if region must stay
          // one block.
          auto branch = [](auto emit) {
            return [emit](OpBuilder &bb, Location bl) {
              auto region = mlir::scf::ExecuteRegionOp::create(
                  bb, bl, mlir::TypeRange{}, /*no_inline=*/true);
              OpBuilder inner =
                  OpBuilder::atBlockBegin(&region.getRegion().emplaceBlock());
              emit(inner, bl);
              mlir::scf::YieldOp::create(inner, bl);
              mlir::scf::YieldOp::create(bb, bl);
            };
          };
          Value isFull = arith::CmpIOp::create(ob, l, arith::CmpIPredicate::ult,
                                               m0, index(ob, l, mainRows));
          mlir::scf::IfOp::create(ob, l, isFull, branch(full), branch(last));
        });
  }
  for (int64_t block = pairedBlocks; block < fullBlocks; ++block)
    forRows(b, loc, index(b, loc, block), 1, false);
  if (chain.n % kLanes)
    forRows(b, loc, index(b, loc, fullBlocks), 1, true);
}

void KernelBuilderBase::forEach(
    OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> upper,
    llvm::ArrayRef<int64_t> steps,
    llvm::function_ref<void(OpBuilder &, Location, mlir::ValueRange)> body) {
  llvm::SmallVector<Value> lowers, uppers, stepValues;
  for (auto [u, st] : llvm::zip_equal(upper, steps)) {
    lowers.push_back(index(b, loc, 0));
    uppers.push_back(index(b, loc, u));
    stepValues.push_back(index(b, loc, st));
  }
  // A depthwise multiply-add (vector arithmetic, no dot product) costs
  // about 8 of the GEMM kernels' (docs/performance.md, "Measured
  // decisions").
  int64_t work = chain.m * chain.n * chain.k * (chain.isDepthwise() ? 8 : 1);
  if (target.parallel && tilesOnThreads && work >= kParallelMacs) {
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

} // namespace qfx::codegen
