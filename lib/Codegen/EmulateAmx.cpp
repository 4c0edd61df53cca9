//===- EmulateAmx.cpp - run AMX tile kernels with AVX-512 VNNI ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-emulate-amx: the amx dialect ops of qfx-codegen's x86-64-amx kernels
// become vector code with the same results, so that the tile kernels (their
// packing, padding, loops and epilogue) run and are tested on machines
// without AMX. A tile is one vector a row; tdpbusd is, by its definition, for
// each row m and group g of 4 k values, C[m] = vpdpbusd(C[m], A[m][g]
// broadcast, B[g]): the instruction the VNNI kernels use. The permission
// request is skipped (the tile kernels are always called).
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "Kernels.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace qfx {
#define GEN_PASS_DEF_QFXEMULATEAMX
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using mlir::ConversionPatternRewriter;
namespace amx = mlir::amx;
namespace vector = mlir::vector;

namespace qfx::codegen {
namespace {

/// A tile's rows: one 1-D vector each (LLVM lowers no n-D vector values).
VectorType getRowType(amx::TileType type) {
  return VectorType::get({type.getDimSize(1)}, type.getElementType());
}

/// Whether a tile load or store has the stride of its memref (the only
/// form qfx-codegen emits).
template <typename TileOp> bool hasImplicitStride(TileOp op) {
  return !op.getStride() && op.getMemRefType().getRank() >= 2;
}

/// The indices of each row of a tile of `rows` rows at `indices` (rows
/// advance along the second innermost dimension).
llvm::SmallVector<llvm::SmallVector<Value>>
getRowIndices(ConversionPatternRewriter &rewriter, Location loc,
              llvm::ArrayRef<mlir::ValueRange> indices, int64_t rows) {
  llvm::SmallVector<llvm::SmallVector<Value>> result;
  for (int64_t row = 0; row < rows; ++row) {
    llvm::SmallVector<Value> at;
    for (mlir::ValueRange index : indices)
      at.push_back(index.front());
    Value &second = at[at.size() - 2];
    second = arith::AddIOp::create(
        rewriter, loc, second,
        arith::ConstantIndexOp::create(rewriter, loc, row));
    result.push_back(std::move(at));
  }
  return result;
}

struct TileZero : mlir::OpConversionPattern<amx::TileZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult
  matchAndRewrite(amx::TileZeroOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    VectorType type = getRowType(op.getTileType());
    Value zero = arith::ConstantOp::create(rewriter, op.getLoc(), type,
                                           rewriter.getZeroAttr(type));
    llvm::SmallVector<Value> rows(op.getTileType().getDimSize(0), zero);
    rewriter.replaceOpWithMultiple(op, {rows});
    return mlir::success();
  }
};

struct TileLoad : mlir::OpConversionPattern<amx::TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult
  matchAndRewrite(amx::TileLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasImplicitStride(op))
      return rewriter.notifyMatchFailure(op, "expected an implicit stride");
    Location loc = op.getLoc();
    llvm::SmallVector<Value> rows;
    for (llvm::ArrayRef<Value> at :
         getRowIndices(rewriter, loc, adaptor.getIndices(),
                       op.getTileType().getDimSize(0)))
      rows.push_back(vector::LoadOp::create(rewriter, loc,
                                            getRowType(op.getTileType()),
                                            adaptor.getBase().front(), at));
    rewriter.replaceOpWithMultiple(op, {rows});
    return mlir::success();
  }
};

struct TileStore : mlir::OpConversionPattern<amx::TileStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult
  matchAndRewrite(amx::TileStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasImplicitStride(op))
      return rewriter.notifyMatchFailure(op, "expected an implicit stride");
    Location loc = op.getLoc();
    for (auto [values, at] :
         llvm::zip_equal(adaptor.getVal(),
                         getRowIndices(rewriter, loc, adaptor.getIndices(),
                                       op.getTileType().getDimSize(0))))
      vector::StoreOp::create(rewriter, loc, values, adaptor.getBase().front(),
                              at);
    rewriter.eraseOp(op);
    return mlir::success();
  }
};

/// tdpbusd (unsigned A, signed B) with vpdpbusd, row by row.
struct TileMulI : mlir::OpConversionPattern<amx::TileMulIOp> {
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult
  matchAndRewrite(amx::TileMulIOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getIsZextLhs() || op.getIsZextRhs())
      return rewriter.notifyMatchFailure(
          op, "only tdpbusd (unsigned x signed) is emulated");
    Location loc = op.getLoc();
    VectorType rowType = getRowType(op.getTileType());
    int64_t groups = op.getRhsTileType().getDimSize(0);
    auto bytesType =
        VectorType::get({4 * rowType.getDimSize(0)}, rewriter.getI8Type());
    mlir::func::FuncOp dot =
        getIntrinsic(op->getParentOfType<mlir::ModuleOp>(), kVnni.dot,
                     {rowType, bytesType, bytesType}, rowType);
    llvm::SmallVector<Value> result;
    for (auto [acc, aRow] :
         llvm::zip_equal(adaptor.getAcc(), adaptor.getLhs())) {
      // Row m of A as int32 words: group g is word g.
      Value words = vector::BitCastOp::create(
          rewriter, loc, VectorType::get({groups}, rewriter.getI32Type()),
          aRow);
      for (int64_t g = 0; g < groups; ++g) {
        Value word = vector::ExtractOp::create(rewriter, loc, words,
                                               llvm::ArrayRef<int64_t>{g});
        Value broadcast = vector::BitCastOp::create(
            rewriter, loc, bytesType,
            vector::BroadcastOp::create(rewriter, loc, rowType, word));
        acc = mlir::func::CallOp::create(
                  rewriter, loc, dot,
                  mlir::ValueRange{acc, broadcast, adaptor.getRhs()[g]})
                  .getResult(0);
      }
      result.push_back(acc);
    }
    rewriter.replaceOpWithMultiple(op, {result});
    return mlir::success();
  }
};

struct QFXEmulateAmxPass : qfx::impl::QFXEmulateAmxBase<QFXEmulateAmxPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::MLIRContext *context = &getContext();
    mlir::TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion(
        [](amx::TileType type, llvm::SmallVectorImpl<Type> &rows) {
          rows.append(type.getDimSize(0), getRowType(type));
          return mlir::success();
        });
    mlir::RewritePatternSet patterns(context);
    patterns.add<TileZero, TileLoad, TileStore, TileMulI>(converter, context);
    mlir::ConversionTarget target(*context);
    target.addIllegalDialect<amx::AMXDialect>();
    target.markUnknownOpDynamicallyLegal(
        [](mlir::Operation *) { return true; });
    mlir::scf::populateSCFStructuralTypeConversionsAndLegality(
        converter, patterns, target);
    if (mlir::failed(
            mlir::applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // The tile kernels run without asking Linux, and without AMX features.
    for (auto func : module.getOps<mlir::func::FuncOp>())
      func->removeAttr("target_features");
    module.walk([&](mlir::func::CallOp call) {
      if (call.getCallee() != "qfx_amx_ready")
        return;
      mlir::OpBuilder b(call);
      call.getResult(0).replaceAllUsesWith(
          arith::ConstantOp::create(b, call.getLoc(), b.getBoolAttr(true)));
      call.erase();
    });
  }
};

} // namespace
} // namespace qfx::codegen
