//===- Compare.h - Per-op comparison of two pipeline stages -----*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch's numeric suite for qfx: runs two stages of a model (say the float
// model and the reference model) on the same inputs, records the value every
// op produces, matches the ops of the two stages by location, and reports
// how far apart they are.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_RUNTIME_COMPARE_H
#define QFX_RUNTIME_COMPARE_H

#include "qfx/Runtime/Npy.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <utility>

namespace qfx {

/// How far one value of the compared stage is from the baseline's.
struct ValueComparison {
  /// The op's location ("layer1.0.conv1", "layer1.0(add)") or "output N".
  std::string name;
  /// The op that produced the value in the compared stage.
  std::string opName;
  llvm::SmallVector<int64_t> shape;
  double maxAbsError = 0;
  /// 10 log10(sum(baseline^2) / sum((baseline - compared)^2)); +inf when
  /// they are equal.
  double sqnr = 0;
  /// A result of the function, not a value matched by location.
  bool isResult = false;
  /// The value's position in the compared stage (walk order of its ops).
  int64_t position = 0;
  /// Per-tensor qparams (scale, zero point) of the value in each stage, where
  /// it is quantized (a calibrated stage against another's, say qfx's
  /// calibration against PyTorch's imported statistics).
  std::optional<std::pair<double, int64_t>> baselineQParams, comparedQParams;
};

/// How many float32 values lie between two scales (PyTorch's scales are
/// float32): 0 when they are equal as float32.
int64_t getFloat32Ulps(double a, double b);

/// Runs `entry` (see findEntry; resolved in `baseline`) of both modules on
/// `inputs` and compares every value whose location appears in both (the
/// last float tensor each location produces), then the results. Sorted worst
/// first (lowest SQNR).
llvm::Expected<std::vector<ValueComparison>>
compareStages(mlir::ModuleOp baseline, mlir::ModuleOp compared,
              llvm::StringRef entry, llvm::ArrayRef<NpyArray> inputs);

/// The name a location gives its op in a comparison: the names of its
/// NameLocs, outermost first, the inner ones in parentheses; "" if none.
std::string getLocationName(mlir::Location loc);

} // namespace qfx

#endif // QFX_RUNTIME_COMPARE_H
