//===- LoweringKind.h - How qfx-lower lowers a pattern ----------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx::LoweringKind, generated from LoweringKind.td: the int8 lowering a
// backend table row (`reference_lowering`), an op's QuantizableOpInterface
// model or a composite's registry entry names. Pure C++ (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_LOWERINGKIND_H
#define QFX_CONFIG_LOWERINGKIND_H

#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

// The generated header's FieldParser specializations (for the dialect's
// attribute) name mlir::FailureOr, which is LLVM's, as mlir/Support/LLVM.h
// imports it; the configuration library stays free of MLIR headers.
namespace mlir {
using llvm::FailureOr;
} // namespace mlir

#include "qfx/Config/LoweringKind.h.inc"

namespace qfx {

/// The names of every lowering kind, comma separated, for diagnostics.
std::string getLoweringKindNames();

} // namespace qfx

#endif // QFX_CONFIG_LOWERINGKIND_H
