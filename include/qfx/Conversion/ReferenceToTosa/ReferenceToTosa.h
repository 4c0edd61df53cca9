//===- ReferenceToTosa.h - Reference patterns to int8 TOSA ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-lower's rewrite patterns, for a compiler that adds them to a pass of its
// own (examples/standalone-embed):
//
//   qfx::PatternMatches matches = qfx::matchBackendPatterns(func, backend);
//   RewritePatternSet lowering(context);
//   qfx::populateQFXLowerPatterns(
//       lowering,
//       {&backend, &matches, qfx::getDefaultRequantization(backend)});
//   mlir::walkAndApplyPatterns(func, std::move(lowering));
//   RewritePatternSet storage(context);
//   qfx::populateQFXWeightStoragePatterns(storage);
//   mlir::walkAndApplyPatterns(func, std::move(storage));
//
// then dead ops erased, which is what `--qfx-lower` does.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_REFERENCETOTOSA_REFERENCETOTOSA_H
#define QFX_CONVERSION_REFERENCETOTOSA_REFERENCETOTOSA_H

#include "qfx/Support/LLVM.h"

#include <optional>

namespace qfx {

class BackendConfig;
class PatternMatches;

/// How a convolution's or a Linear's int32 accumulator becomes int8.
enum class Requantization {
  /// PyTorch's onednn engine (x86, fbgemm and onednn tables), in float32:
  /// round_half_even((float(acc) + bias * si * sw) * so / (si * sw) + zp)
  /// with ideep's reciprocal scales.
  OneDnn,
  /// PyTorch's qnnpack engine, in float32: round_half_even(float(acc +
  /// round(bias / (s_in * s_w))) * ((s_w * s_in) * (1 / s_out))) + zp.
  Qnnpack,
  /// TOSA's integer profile: tosa.rescale (32-bit multipliers, rounding
  /// half away from zero), the bias with up to 8 fractional bits.
  Integer,
};

/// `name` ("onednn", "qnnpack" or "integer") as a Requantization.
std::optional<Requantization> parseRequantization(llvm::StringRef name);

/// The requantization of the PyTorch engine behind `backend` (onednn for the
/// x86, fbgemm and onednn tables, qnnpack for qnnpack, integer otherwise).
Requantization getDefaultRequantization(const BackendConfig &backend);

/// What qfx-lower's patterns need. The backend and its matches are not
/// copied: they must outlive the pattern set's use.
struct LowerOptions {
  /// The backend table whose patterns are lowered.
  const BackendConfig *backend = nullptr;
  /// The table's patterns matched in the IR before rewriting
  /// (matchBackendPatterns); apply the patterns with a driver that does not
  /// revisit the ops they create, as walkAndApplyPatterns.
  const PatternMatches *matches = nullptr;
  Requantization requantization = Requantization::Integer;
};

/// Adds qfx-lower's patterns, one per int8 lowering (LoweringKind), plus the
/// weight-only embeddings, the dynamic matmuls (also in recurrent bodies)
/// and a last pattern that only says why an op stays float. Each rewrites
/// one `dq -> op (or qfx.fused) -> q` pattern rooted at the op it visits: the
/// op's quantize casts are replaced by a `quant.scast` of the int8 result,
/// the op by its dequantization (dead once every cast is replaced). A
/// pattern that cannot lower its op leaves the IR unchanged and reports why
/// through the rewriter's listener (notifyMatchFailure); qfx-lower turns each
/// reason into a "runs in float: <reason>" remark.
void populateQFXLowerPatterns(RewritePatternSet &patterns,
                              const LowerOptions &options);

/// Adds the patterns that store weights left float as narrow as their type:
/// 4-bit weights two per byte, float16 weights as float16 constants. Apply
/// them after populateQFXLowerPatterns' patterns, which read the weights.
void populateQFXWeightStoragePatterns(RewritePatternSet &patterns);

} // namespace qfx

#endif // QFX_CONVERSION_REFERENCETOTOSA_REFERENCETOTOSA_H
