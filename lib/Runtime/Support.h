//===- Support.h - Helpers shared by the runtime library --------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime: how its errors and diagnostics are written.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_RUNTIME_SUPPORT_H
#define QFX_LIB_RUNTIME_SUPPORT_H

#include "mlir/IR/Location.h"
#include "llvm/Support/Error.h"

#include <string>

namespace qfx::runtime {

/// An error with `message` (the runtime's errors carry no error code).
inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `loc` as a user reads it: "file:line:col" for a file location, MLIR's
/// form otherwise.
inline std::string formatLocation(mlir::Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto fileLoc = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    os << loc;
  return text;
}

} // namespace qfx::runtime

#endif // QFX_LIB_RUNTIME_SUPPORT_H
