//===- MaterializeResources.cpp - dense_resource to elements --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Transforms/MaterializeResources.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace qfx {
#define GEN_PASS_DEF_QFXMATERIALIZERESOURCES
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

namespace {
/// The bytes of `attr`: its blob's, else the caller's; nullopt if neither.
std::optional<llvm::ArrayRef<char>>
getBytes(mlir::DenseResourceElementsAttr attr, qfx::ResourceLookup external) {
  mlir::DenseResourceElementsHandle handle = attr.getRawHandle();
  if (mlir::AsmResourceBlob *blob = handle.getBlob())
    return blob->getData();
  if (external)
    return external(handle.getKey());
  return std::nullopt;
}

/// Checks that `attr`'s bytes make the elements of its type.
llvm::LogicalResult check(mlir::Operation *op,
                          mlir::DenseResourceElementsAttr attr,
                          qfx::ResourceLookup external) {
  llvm::StringRef key = attr.getRawHandle().getKey();
  std::optional<llvm::ArrayRef<char>> bytes = getBytes(attr, external);
  if (!bytes)
    return op->emitError() << "dense_resource<" << key
                           << "> has no data: the IR has no dialect_resources "
                              "entry for it and the caller gave none";
  mlir::ShapedType type = attr.getType();
  mlir::Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return op->emitError() << "dense_resource<" << key << ">: element type "
                           << element << " is not a whole number of bytes";
  if (!type.hasStaticShape())
    return op->emitError() << "dense_resource<" << key
                           << ">: expected a static shape, got " << type;
  int64_t expected =
      type.getNumElements() * (element.getIntOrFloatBitWidth() / 8);
  if (static_cast<int64_t>(bytes->size()) != expected)
    return op->emitError() << "dense_resource<" << key << "> holds "
                           << bytes->size() << " bytes; " << type << " needs "
                           << expected;
  return llvm::success();
}

struct QFXMaterializeResourcesPass
    : qfx::impl::QFXMaterializeResourcesBase<QFXMaterializeResourcesPass> {
  using Base::Base;
  void runOnOperation() override {
    if (mlir::failed(qfx::materializeResources(getOperation())))
      signalPassFailure();
  }
};
} // namespace

llvm::LogicalResult qfx::materializeResources(mlir::Operation *root,
                                              ResourceLookup external) {
  // Every resource is checked before any is replaced: a failure leaves the
  // IR as it was.
  bool found = false;
  mlir::WalkResult checked = root->walk([&](mlir::Operation *op) {
    mlir::WalkResult result =
        op->getAttrDictionary().walk([&](mlir::DenseResourceElementsAttr attr) {
          found = true;
          return mlir::failed(check(op, attr, external))
                     ? mlir::WalkResult::interrupt()
                     : mlir::WalkResult::advance();
        });
    return result;
  });
  if (checked.wasInterrupted())
    return llvm::failure();
  if (!found)
    return llvm::success();
  mlir::AttrTypeReplacer replacer;
  replacer.addReplacement([&](mlir::DenseResourceElementsAttr attr) {
    return mlir::DenseElementsAttr::getFromRawBuffer(attr.getType(),
                                                     *getBytes(attr, external));
  });
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/false);
  return llvm::success();
}
