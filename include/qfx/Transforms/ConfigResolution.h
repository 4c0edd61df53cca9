//===- ConfigResolution.h - Apply the configuration to IR ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The glue between the Config library and the IR, shared by
// qfx-annotate-qconfig, qfx-fuse and qfx-prepare: which module an op belongs
// to (from its location), the object types it is known by, its order index,
// the QConfigQuery PyTorch would make for it, and the BackendPatternConfigs
// it matches. See docs/qfx-passes.md.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_TRANSFORMS_CONFIGRESOLUTION_H
#define QFX_TRANSFORMS_CONFIGRESOLUTION_H

#include "qfx/Config/BackendConfig.h"
#include "qfx/Config/QConfigMapping.h"
#include "qfx/Config/QConfigSupport.h"
#include "qfx/Support/LLVM.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>
#include <string>

namespace qfx {

/// Where an op sits in the PyTorch model it was exported from, read from its
/// `qfx.module_name` and `qfx.node_name` attributes.
struct OpScope {
  /// The module's qualified name ("layer1.0.conv1"; "" for the top level).
  std::string moduleName;
  /// The FX node name of a functional call or tensor method ("add_1"), empty
  /// for an op that implements a module call.
  std::string nodeName;

  /// True if the op implements a call_function / call_method node.
  bool isFunctional() const { return !nodeName.empty(); }
};

/// The scope `op`'s attributes give it; none without `qfx.module_name`.
std::optional<OpScope> getOpScope(Operation *op);

/// The scope a location gives: the outermost NameLoc (inside a FusedLoc or
/// CallSiteLoc, the first NameLoc found) names the module; a NameLoc directly
/// nested in it (`loc("layer1.0"("add"))`) names the FX node of a functional
/// call. None if the location has no NameLoc. Only
/// qfx-module-names-from-locations reads scopes from locations.
std::optional<OpScope> getLocationScope(mlir::Location loc);

/// Sets `op`'s `qfx.module_name` (and `qfx.node_name` if functional).
void setOpScope(Operation *op, const OpScope &scope);

/// The name backend patterns give `op`: a qfx.composite's PyTorch name
/// ("torch.nn.Hardswish"), else the op's name ("tosa.conv2d").
StringRef getPatternName(Operation *op);

/// `op` as remarks name it: "tosa.conv2d", "qfx.fused \"conv2d_relu\"" or
/// "qfx.composite \"torch.nn.Hardswish\"".
std::string describeOp(Operation *op);

/// True for a tosa.clamp that is a ReLU: [0, +inf) (the exporter writes
/// FLT_MAX for +inf).
bool isReLUClamp(Operation *op);

/// The object types `op` is known by, in increasing priority: its pattern
/// name (getPatternName; not for a composite with an origin, which PyTorch
/// knows by the origin alone: F.hardswish is no nn.Hardswish), then its
/// `qfx.origin` (or `qfx.part_of`) if any. A tensor method origin
/// ("torch.Tensor.reshape") is given by its bare name ("reshape"), as
/// PyTorch keys methods in a QConfigMapping.
SmallVector<std::string, 2> getObjectTypes(Operation *op);

/// True for the ops a QConfig is resolved for: everything but constants
/// (tosa.const, tosa.const_shape, arith.constant), terminators, observers,
/// qfx.fused itself (its body's ops are resolved) and the ops inside a
/// qfx.composite (the composite is resolved as one op).
bool isQuantizationCandidate(Operation *op);

/// A transpose, reshape or slice without `qfx.origin`: in a function whose
/// ops carry origins, layout an importer inserted, which stands for no
/// PyTorch op.
bool isLayoutGlue(Operation *op);

/// The module PyTorch 1.13's fuse_fx makes of what a qfx.fused op holds
/// (getTorchFusedModule of its body ops' origins, the ops of one module
/// call counted once: a Linear's matmul and bias add), or none: not a
/// qfx.fused op, ops without origins, or a pattern PyTorch keeps as separate
/// nodes (F.linear + F.relu, add + ReLU, a Linear and its bias add).
std::optional<TorchFusedModule> getFusedModule(Operation *op);

/// The QConfigQuery of every candidate op under a root op (usually a
/// function), with PyTorch's order indices: a module call is counted among
/// the distinct modules (call sites) of the same object type in its parent
/// module, a functional op among the distinct FX nodes of the same object
/// type in its module, both in program order (pre-order, fused bodies
/// included). A qfx.fused op that is one of PyTorch's fused modules
/// (getFusedModule) is one module call instead, as after fuse_fx: queried by
/// its fused type at its first module's name, counted for
/// `module_name_object_type_order` as that module's type, and its body's ops
/// have no query.
class QConfigQueries {
public:
  explicit QConfigQueries(Operation *root);

  /// The query of `op`, or null if it is not a candidate.
  const QConfigQuery *lookup(Operation *op) const;

private:
  llvm::DenseMap<Operation *, QConfigQuery> queries;
};

/// PyTorch's update_qconfig_for_fusion: for each of PyTorch's fused modules
/// under `root` (getFusedModule), if `mapping` has object type entries, the
/// entries of the types it holds (none where absent) must be equal, else an
/// error at the op (PyTorch raises LookupError); if they are not none, they
/// become the fused type's entry. Returns the updated mapping.
mlir::FailureOr<QConfigMapping>
updateQConfigsForFusion(const QConfigMapping &mapping, Operation *root);

/// A pass's configuration, read once in its initialize() however many ops
/// it runs on, and shared by the pass's clones.
struct PassConfig {
  std::shared_ptr<const QConfigMapping> mapping;
  std::shared_ptr<const BackendConfig> backend;

  /// Loads `backend=NAME|PATH` and, if given, `qconfig-mapping=PATH|PRESET`;
  /// each that fails emits one error, at no location, with the Config
  /// library's message.
  LogicalResult load(mlir::MLIRContext *context, StringRef backendOption,
                     std::optional<StringRef> mappingOption = std::nullopt);
};

/// One occurrence of a BackendPatternConfig's pattern in the IR.
struct PatternMatchResult {
  /// The matched ops in forward order (one qfx.fused op for a fused
  /// region).
  SmallVector<Operation *, 3> ops;
  /// The pattern's config in the backend table.
  const BackendPatternConfig *config = nullptr;

  /// The op of the pattern that carries the weight: the config's root op,
  /// else the first op. For a qfx.fused match, the body op.
  Operation *getRootOp() const;
  /// The op whose result is the pattern's output.
  Operation *getLastOp() const { return ops.back(); }
  /// The operand a weight/bias role refers to, as an operand of the matched
  /// ops (for a fused match: of the qfx.fused op), or null if it is not
  /// there.
  mlir::OpOperand *getRoleOperand(InputRole role) const;
};

/// The config a qfx.fused op was fused from: the one whose `fused_op` is the
/// op's name and whose pattern is the op sequence of its body (constants
/// left out), or null.
const BackendPatternConfig *lookupFusedConfig(const BackendConfig &backend,
                                              Operation *fusedOp);

/// The ops of a qfx.fused body that belong to its pattern, in order (the
/// body's constants and terminator left out).
SmallVector<Operation *, 3> getFusedPatternOps(Operation *fusedOp);

/// The matches of a block, each reachable from every op it contains.
class PatternMatches {
public:
  /// The match containing `op`, or null.
  const PatternMatchResult *lookup(Operation *op) const {
    auto it = index.find(op);
    return it == index.end() ? nullptr : &matches[it->second];
  }
  /// Every match, in the order found (reverse program order of last ops).
  llvm::ArrayRef<PatternMatchResult> getMatches() const { return matches; }

  /// Records a match of `ops` against `config`.
  void add(PatternMatchResult match);

private:
  std::vector<PatternMatchResult> matches;
  llvm::DenseMap<Operation *, unsigned> index;
};

/// Matches the backend's patterns in `block` the way PyTorch 1.13's
/// find_matches does: ops are visited in reverse order; for each op not yet
/// matched, patterns are tried longest first (then in table order); a
/// pattern matches a chain of ops of the block in which each op's result is
/// operand 0 of the next and is used by nothing else. A qfx.fused op matches
/// the config it was fused from, as a whole.
PatternMatches matchBackendPatterns(Block &block, const BackendConfig &backend);
/// The same in every block nested in `scope`, outside the bodies of
/// qfx.fused and qfx.composite ops.
PatternMatches matchBackendPatterns(Operation *scope,
                                    const BackendConfig &backend);

/// What the configuration says about one op (or one qfx.fused op).
struct OpResolution {
  /// The query the op was resolved with (for a fused op, its root op's).
  const QConfigQuery *query = nullptr;
  /// The resolved QConfig; none = do not quantize.
  OptionalQConfig qconfig;
  /// The backend pattern the op was matched in, or null.
  const PatternMatchResult *match = nullptr;
  /// The QConfig checked against the pattern's dtype configs.
  QConfigSupport support;
  /// Why the op is not quantized, or "" if it is.
  std::string whyNotQuantized;

  bool isQuantized() const { return whyNotQuantized.empty(); }
};

/// "module 'fc1', object types tosa.matmul #0 in '', torch.nn.Linear #0 in
/// ''": the query as a remark shows it.
std::string describeQuery(const QConfigQuery &query);

/// For a qfx.fused op, the query of its body pattern's last op (whose
/// QConfig PyTorch observes the pattern's output with); else null.
const QConfigQuery *getLastQuery(Operation *op, const QConfigQueries &queries);

/// Resolves `op`: its QConfig (for a qfx.fused op, the QConfig of its
/// pattern's root op), its match, the dtype check, and the reason it is not
/// quantized (for a qfx.fused op that quantizes its output, also its
/// pattern's last op having a null QConfig). `op` must be a candidate or a
/// qfx.fused op.
OpResolution resolveOp(Operation *op, const QConfigMapping &mapping,
                       const BackendConfig &backend,
                       const QConfigQueries &queries,
                       const PatternMatches &matches);

} // namespace qfx

#endif // QFX_TRANSFORMS_CONFIGRESOLUTION_H
