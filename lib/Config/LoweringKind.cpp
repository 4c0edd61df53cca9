//===- LoweringKind.cpp - How qfx-lower lowers a pattern ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/LoweringKind.h"

#include "llvm/ADT/StringSwitch.h"

#include "qfx/Config/LoweringKind.cpp.inc"

std::string qfx::getLoweringKindNames() {
  std::string names;
  for (uint32_t i = 0; i <= getMaxEnumValForLoweringKind(); ++i) {
    if (!names.empty())
      names += ", ";
    names += stringifyLoweringKind(*symbolizeLoweringKind(i)).str();
  }
  return names;
}
