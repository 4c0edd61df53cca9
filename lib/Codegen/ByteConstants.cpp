//===- ByteConstants.cpp - Wide constant globals as bytes -----------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-byte-constants: constant LLVM globals of floats or wide integers get
// an array-of-bytes type and value, which LLVM writes into the object as one
// block instead of value by value. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

namespace qfx {
#define GEN_PASS_DEF_QFXBYTECONSTANTS
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// Smaller arrays compile fast enough either way.
constexpr int64_t kMinBytes = 4096;

struct QFXByteConstantsPass
    : qfx::impl::QFXByteConstantsBase<QFXByteConstantsPass> {
  void runOnOperation() override {
    auto i8 = IntegerType::get(&getContext(), 8);
    getOperation().walk([&](LLVM::GlobalOp global) {
      auto value =
          llvm::dyn_cast_or_null<DenseElementsAttr>(global.getValueOrNull());
      if (!global.getConstant() || !value || value.isSplat() ||
          !value.getElementType().isIntOrFloat() ||
          value.getElementType().getIntOrFloatBitWidth() % 8 != 0 ||
          value.getElementType().getIntOrFloatBitWidth() == 8)
        return;
      ArrayRef<char> raw = value.getRawData();
      auto bytes = static_cast<int64_t>(raw.size());
      if (bytes < kMinBytes ||
          bytes != value.getNumElements() *
                       (value.getElementType().getIntOrFloatBitWidth() / 8))
        return;
      global.setGlobalTypeAttr(
          TypeAttr::get(LLVM::LLVMArrayType::get(i8, bytes)));
      global.setValueAttr(DenseElementsAttr::getFromRawBuffer(
          RankedTensorType::get({bytes}, i8), raw));
    });
  }
};

} // namespace
