//===- Targets.cpp - The native targets qfx compiles for ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/Targets.h"

#include "llvm/ADT/STLExtras.h"

using namespace qfx;

static constexpr NativeTargetInfo kTargets[] = {
    {NativeTarget::Host, "host", "", "", "",
     "this machine (its triple and CPU; kernels for AVX-512 VNNI, else AVX2, "
     "else I8MM, else SDOT)"},
    {NativeTarget::X86Avx512Vnni, "x86-64-avx512vnni",
     "x86_64-unknown-linux-gnu", "cascadelake", "", "x86-64 with AVX-512 VNNI"},
    {NativeTarget::X86Amx, "x86-64-amx", "x86_64-unknown-linux-gnu",
     "sapphirerapids", "",
     "x86-64 with AMX-INT8 (tiles where Linux grants them, else VNNI)"},
    {NativeTarget::X86Avx2, "x86-64-avx2", "x86_64-unknown-linux-gnu",
     "haswell", "", "x86-64 with AVX2, no VNNI"},
    {NativeTarget::AArch64DotProd, "aarch64-dotprod",
     "aarch64-unknown-linux-gnu", "generic", "+v8.2a,+neon,+dotprod",
     "AArch64 with SDOT/UDOT"},
    {NativeTarget::AArch64I8mm, "aarch64-i8mm", "aarch64-unknown-linux-gnu",
     "generic", "+v8.6a,+neon,+dotprod,+i8mm", "AArch64 with SMMLA/USMMLA"},
    {NativeTarget::None, "none", "", "", "",
     "no qfx kernels: the generic lowering of the int8 TOSA"},
};

llvm::ArrayRef<NativeTargetInfo> qfx::getNativeTargets() { return kTargets; }

const NativeTargetInfo &qfx::getNativeTargetInfo(NativeTarget target) {
  return *llvm::find_if(kTargets, [&](const NativeTargetInfo &info) {
    return info.target == target;
  });
}

const NativeTargetInfo *qfx::lookupNativeTarget(llvm::StringRef name) {
  const NativeTargetInfo *found =
      llvm::find_if(kTargets, [&](const NativeTargetInfo &info) {
        return info.name == name;
      });
  return found == std::end(kTargets) ? nullptr : found;
}

std::string qfx::listNativeTargets(bool (*keep)(const NativeTargetInfo &)) {
  llvm::SmallVector<llvm::StringRef> names;
  for (const NativeTargetInfo &info : kTargets)
    if (!keep || keep(info))
      names.push_back(info.name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      text += i + 1 == names.size() ? " or " : ", ";
    text += names[i].str();
  }
  return text;
}
