//===- EarlyDealloc.cpp - Free buffers after their last use ---------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-early-dealloc: each memref.dealloc of a buffer allocated in its block
// moves to just after the buffer's last use there. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

namespace qfx {
#define GEN_PASS_DEF_QFXEARLYDEALLOC
#include "qfx/Codegen/Passes.h.inc"
} // namespace qfx

using namespace mlir;

namespace {

/// Whether `user` may let the buffer outlive what the pass sees of it:
/// a terminator passes an alias on (out of a region, to another block), an
/// op that makes a pointer of it (or leaves MLIR's types) hides its uses.
bool escapes(Operation *user) {
  return user->hasTrait<OpTrait::IsTerminator>() ||
         llvm::isa<memref::ExtractAlignedPointerAsIndexOp,
                   UnrealizedConversionCastOp>(user) ||
         llvm::isa<LLVM::LLVMDialect>(user->getDialect());
}

/// The op of the dealloc's block after which the buffer is no longer used,
/// or null if it may escape.
Operation *findLastUse(memref::AllocOp alloc, memref::DeallocOp dealloc) {
  Block *block = alloc->getBlock();
  Operation *last = alloc;
  llvm::SmallVector<Value> aliases = {alloc.getResult()};
  llvm::DenseSet<Value> seen = {alloc.getResult()};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (user == dealloc)
        continue;
      if (escapes(user))
        return nullptr;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return nullptr;
      if (last->isBeforeInBlock(ancestor))
        last = ancestor;
      for (Value result : user->getResults())
        if (llvm::isa<BaseMemRefType>(result.getType()) &&
            seen.insert(result).second)
          aliases.push_back(result);
    }
  }
  return last;
}

struct QFXEarlyDeallocPass
    : qfx::impl::QFXEarlyDeallocBase<QFXEarlyDeallocPass> {
  void runOnOperation() override {
    llvm::SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != dealloc->getBlock())
        continue;
      if (Operation *last = findLastUse(alloc, dealloc))
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
