//===- QConfigSupport.h - Does a backend support a QConfig ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch 1.13's check of a QConfig against a pattern's dtype configs
// (fx/prepare.py: is_input_arg_dtype_supported_by_backend,
// is_output_dtype_supported_by_backend,
// _is_pattern_dtype_config_and_qconfig_supported_by_backend; fx/utils.py:
// _qconfig_satisfies_dtype_config_constraints), returning why a QConfig is
// rejected so that the prepare pass can say it in a remark. Pure C++.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_QCONFIGSUPPORT_H
#define QFX_CONFIG_QCONFIGSUPPORT_H

#include "qfx/Config/BackendConfig.h"
#include "qfx/Config/QConfig.h"

#include <string>

namespace qfx {

/// The dtypes PyTorch expects in the reference model of an op observed with
/// a QConfig (prepare.py's get_target_activation_dtype_for_node and
/// utils.py's get_qconfig_dtypes).
struct QConfigDTypes {
  /// qconfig.activation's dtype.
  DType inputActivation;
  /// True if the activation observer has a compute_dtype (dynamic
  /// quantization).
  bool isDynamic;
  /// qconfig.weight's dtype.
  DType weight;
  /// float16 if activation and weight are float16 and not dynamic, else
  /// float32.
  DType bias;
  /// The activation dtype, or float32 for dynamic quantization.
  DType outputActivation;
};

/// The dtypes of `qconfig`. ReuseInputObserver, which takes no dtype, has
/// quint8 like its PyTorch instances.
QConfigDTypes getQConfigDTypes(const QConfig &qconfig);

/// Which operands a pattern has besides activations.
struct PatternOperands {
  bool hasWeight = false;
  bool hasBias = false;
};

/// Why `observer` does not satisfy the constraints of `constraints` (PyTorch's
/// _qconfig_satisfies_dtype_config_constraints for one observer), or "" if it
/// does. `role` ("activation", "weight") names the observer in the message.
/// As in PyTorch, an observer whose dtype differs from the constrained dtype
/// is not checked.
std::string
whyObserverViolatesConstraints(const ObserverSpec &observer,
                               const DTypeWithConstraints &constraints,
                               llvm::StringRef role);

/// Why `qconfig` does not match `dtypeConfig` for a pattern with `operands`,
/// or "" if it matches: dtypes, is_dynamic and constraints of the input
/// activation, weight, bias and output activation, in PyTorch's order. The
/// message names the failed field and both values, e.g. "input_dtype: the
/// QConfig's activation dtype is quint8, the backend expects qint8".
///
/// qfx extension: a bias_dtype of qint32 (the tosa table) is met by an 8-bit
/// quantized, static activation and weight, since the lowering derives the
/// bias's qparams (scale = input scale * weight scale, zero point 0).
/// PyTorch's tables never use it.
std::string whyQConfigDoesNotMatchDTypeConfig(const QConfig &qconfig,
                                              const DTypeConfig &dtypeConfig,
                                              PatternOperands operands);

/// The result of checking a QConfig against a pattern's dtype configs.
struct QConfigSupport {
  /// The index of the first dtype config the QConfig matches, if any.
  std::optional<unsigned> dtypeConfigIndex;
  /// Why each dtype config was rejected, joined with "; ", when none
  /// matched. "" when one matched.
  std::string reason;

  bool isSupported() const { return dtypeConfigIndex.has_value(); }
};

/// Checks `qconfig` against the dtype configs of `config` (PyTorch's
/// _is_pattern_dtype_config_and_qconfig_supported_by_backend); the pattern
/// has a weight or bias if its input roles name one.
QConfigSupport checkQConfigSupport(const QConfig &qconfig,
                                   const BackendPatternConfig &config);

} // namespace qfx

#endif // QFX_CONFIG_QCONFIGSUPPORT_H
