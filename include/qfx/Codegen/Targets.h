//===- Targets.h - The native targets qfx compiles for ----------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The one registry of native targets: their names (qfx-codegen's and
// qfx-lower-to-native's `target` option, quant-run --codegen, quant-compile
// --target), LLVM triple, CPU and features, and which of qfx-codegen's
// kernels they get. Pass options take the enum; its names come from here.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CODEGEN_TARGETS_H
#define QFX_CODEGEN_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace qfx {

enum class NativeTarget {
  /// This machine: its triple and CPU, the kernels for what it has.
  Host,
  X86Avx512Vnni,
  X86Amx,
  X86Avx2,
  AArch64DotProd,
  AArch64I8mm,
  /// No qfx kernels: upstream's generic lowering of the int8 TOSA.
  None,
};

struct NativeTargetInfo {
  NativeTarget target;
  /// "x86-64-avx512vnni".
  llvm::StringLiteral name;
  /// LLVM's triple, CPU and features for ahead-of-time code; empty for host
  /// (resolved on this machine) and none.
  llvm::StringLiteral triple;
  llvm::StringLiteral cpu;
  llvm::StringLiteral features;
  llvm::StringLiteral description;
};

/// Every target, host first, none last.
llvm::ArrayRef<NativeTargetInfo> getNativeTargets();

const NativeTargetInfo &getNativeTargetInfo(NativeTarget target);

/// The target called `name`, or null.
const NativeTargetInfo *lookupNativeTarget(llvm::StringRef name);

/// The names of the targets `keep` accepts, as "a, b, c or d".
std::string listNativeTargets(bool (*keep)(const NativeTargetInfo &) = nullptr);

/// A command-line or pass option modifier: the registry's names are the
/// option's values (`Option<..., "::qfx::NativeTarget", ...,
/// "::qfx::nativeTargetValues()">`), so an unknown name is rejected when
/// the option is parsed, listing the valid ones.
struct NativeTargetValues {
  template <typename Opt> void apply(Opt &option) const {
    for (const NativeTargetInfo &info : getNativeTargets())
      option.getParser().addLiteralOption(info.name, info.target,
                                          info.description);
  }
};
inline NativeTargetValues nativeTargetValues() { return {}; }

} // namespace qfx

#endif // QFX_CODEGEN_TARGETS_H
