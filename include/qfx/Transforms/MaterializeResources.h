//===- MaterializeResources.h - dense_resource to elements ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Weights reach qfx as MLIR resources (`dense_resource<key>`, the bytes in a
// blob beside the IR, as torch-mlir's FX importer writes them): qfx's
// exporter hands them to the library through the C API, a file carries them
// in its dialect_resources section. qfx's passes read weights as elements
// attributes; this turns each resource into the elements attribute of its
// bytes, once, where the IR enters.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_TRANSFORMS_MATERIALIZERESOURCES_H
#define QFX_TRANSFORMS_MATERIALIZERESOURCES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace qfx {

/// The bytes a caller holds for a resource key, if any.
using ResourceLookup =
    llvm::function_ref<std::optional<llvm::ArrayRef<char>>(llvm::StringRef)>;

/// Replaces every `dense_resource` elements attribute under `root` (nested
/// in dictionaries and arrays too) by the dense elements attribute of its
/// bytes: the blob the IR carries, else the bytes `external` gives for its
/// key. An error at the op holding it for a resource without bytes, of an
/// element type that is not whole bytes, or whose byte count is not its
/// type's; then nothing is replaced.
llvm::LogicalResult materializeResources(mlir::Operation *root,
                                         ResourceLookup external = {});

} // namespace qfx

#endif // QFX_TRANSFORMS_MATERIALIZERESOURCES_H
