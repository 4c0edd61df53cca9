//===- QConfigSupport.cpp - Does a backend support a QConfig --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/QConfigSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace qfx;

// ReuseInputObserver is the only observer without a dtype argument; its
// constructor still sets dtype = quint8, which is what PyTorch compares, and
// what ObserverSpec::getDType returns.
static DType observerDType(const ObserverSpec &observer) {
  return observer.getDType();
}

QConfigDTypes qfx::getQConfigDTypes(const QConfig &qconfig) {
  QConfigDTypes result;
  result.inputActivation = observerDType(qconfig.activation);
  result.isDynamic = qconfig.activation.computeDType.has_value();
  result.weight = observerDType(qconfig.weight);
  result.bias = result.inputActivation == DType::Float16 &&
                        result.weight == DType::Float16 && !result.isDynamic
                    ? DType::Float16
                    : DType::Float32;
  result.outputActivation =
      result.isDynamic ? DType::Float32 : result.inputActivation;
  return result;
}

// The quant_min / quant_max and eps an observer instance has in PyTorch: the
// calibrating observers compute their range and keep eps; fixed-qparams
// observers have a range but no eps; the others have neither.
static std::optional<QuantRange> instanceRange(const ObserverSpec &observer) {
  if (isCalibratingObserver(observer.kind) ||
      observer.kind == ObserverKind::FixedQParams)
    return observer.getQuantRange();
  return std::nullopt;
}

static std::optional<double> instanceEps(const ObserverSpec &observer) {
  if (isCalibratingObserver(observer.kind))
    return observer.getEps();
  return std::nullopt;
}

static std::string formatDouble(double value) {
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

std::string
qfx::whyObserverViolatesConstraints(const ObserverSpec &observer,
                                    const DTypeWithConstraints &constraints,
                                    llvm::StringRef role) {
  if (observerDType(observer) != constraints.dtype)
    return "";
  std::string observerName = getObserverClassName(observer.kind).str();
  if (constraints.quantMinLowerBound && constraints.quantMaxUpperBound) {
    std::optional<QuantRange> range = instanceRange(observer);
    if (!range)
      return llvm::formatv("the QConfig's {0} observer ({1}) has no "
                           "quant_min/quant_max, the backend requires a range "
                           "within [{2}, {3}]",
                           role, observerName, *constraints.quantMinLowerBound,
                           *constraints.quantMaxUpperBound);
    if (range->min < *constraints.quantMinLowerBound ||
        range->max > *constraints.quantMaxUpperBound)
      return llvm::formatv("the QConfig's {0} range [{1}, {2}] is not within "
                           "the backend's quant_min_lower_bound "
                           "{3} / quant_max_upper_bound {4}",
                           role, range->min, range->max,
                           *constraints.quantMinLowerBound,
                           *constraints.quantMaxUpperBound);
  }
  if (constraints.scaleMinLowerBound) {
    std::optional<double> eps = instanceEps(observer);
    if (!eps)
      return llvm::formatv("the QConfig's {0} observer ({1}) has no eps, the "
                           "backend requires eps >= scale_min_lower_bound {2}",
                           role, observerName,
                           formatDouble(*constraints.scaleMinLowerBound));
    // PyTorch keeps eps as a float32 tensor and compares it in float32.
    if (static_cast<float>(*eps) <
        static_cast<float>(*constraints.scaleMinLowerBound))
      return llvm::formatv("the QConfig's {0} eps {1} is below the backend's "
                           "scale_min_lower_bound {2}",
                           role, formatDouble(*eps),
                           formatDouble(*constraints.scaleMinLowerBound));
  }
  return "";
}

static std::string mismatch(llvm::StringRef field, llvm::StringRef what,
                            DType got, DType expected) {
  return llvm::formatv("{0}: the QConfig's {1} is {2}, the backend expects {3}",
                       field, what, stringifyDType(got),
                       stringifyDType(expected));
}

static bool isQuantized8Bit(DType dtype) {
  return dtype == DType::QUInt8 || dtype == DType::QInt8;
}

std::string
qfx::whyQConfigDoesNotMatchDTypeConfig(const QConfig &qconfig,
                                       const DTypeConfig &dtypeConfig,
                                       PatternOperands operands) {
  QConfigDTypes dtypes = getQConfigDTypes(qconfig);

  // is_input_arg_dtype_supported_by_backend, for the activation operands.
  if (const std::optional<DTypeWithConstraints> &input =
          dtypeConfig.inputDType) {
    if (dtypes.inputActivation != input->dtype)
      return mismatch("input_dtype", "activation dtype", dtypes.inputActivation,
                      input->dtype);
    bool expectDynamic = dtypeConfig.isDynamic.value_or(false);
    if (expectDynamic != dtypes.isDynamic)
      return expectDynamic
                 ? "is_dynamic: the backend expects dynamic quantization (an "
                   "activation observer with compute_dtype), the QConfig is "
                   "static"
                 : "is_dynamic: the QConfig is dynamic (its activation "
                   "observer has compute_dtype), the backend expects static "
                   "quantization";
    std::string why = whyObserverViolatesConstraints(qconfig.activation, *input,
                                                     "activation");
    if (!why.empty())
      return "input_dtype: " + why;
  }
  // ... for the weight operand.
  if (operands.hasWeight && dtypeConfig.weightDType) {
    const DTypeWithConstraints &weight = *dtypeConfig.weightDType;
    if (dtypes.weight != weight.dtype)
      return mismatch("weight_dtype", "weight dtype", dtypes.weight,
                      weight.dtype);
    std::string why =
        whyObserverViolatesConstraints(qconfig.weight, weight, "weight");
    if (!why.empty())
      return "weight_dtype: " + why;
  }
  // ... for the bias operand.
  if (operands.hasBias && dtypeConfig.biasDType) {
    DType bias = *dtypeConfig.biasDType;
    if (bias == DType::QInt32) {
      // qfx extension (see the header): int32 bias derived at lowering.
      if (dtypes.isDynamic || !isQuantized8Bit(dtypes.inputActivation) ||
          !isQuantized8Bit(dtypes.weight))
        return "bias_dtype: a qint32 bias needs static 8-bit quantized "
               "activations and weights, the QConfig has activation " +
               stringifyDType(dtypes.inputActivation).str() + " and weight " +
               stringifyDType(dtypes.weight).str();
    } else if (dtypes.bias != bias) {
      return mismatch("bias_dtype", "bias dtype", dtypes.bias, bias);
    }
  }
  // is_output_dtype_supported_by_backend.
  if (const std::optional<DTypeWithConstraints> &output =
          dtypeConfig.outputDType) {
    if (dtypes.outputActivation != output->dtype)
      return mismatch("output_dtype", "output activation dtype",
                      dtypes.outputActivation, output->dtype);
    std::string why = whyObserverViolatesConstraints(qconfig.activation,
                                                     *output, "activation");
    if (!why.empty())
      return "output_dtype: " + why;
  }
  return "";
}

QConfigSupport qfx::checkQConfigSupport(const QConfig &qconfig,
                                        const BackendPatternConfig &config) {
  PatternOperands operands;
  operands.hasWeight = config.getInputRole(InputRole::Weight).has_value();
  operands.hasBias = config.getInputRole(InputRole::Bias).has_value();
  QConfigSupport result;
  llvm::SmallVector<std::string> reasons;
  for (auto [index, dtypeConfig] : llvm::enumerate(config.getDTypeConfigs())) {
    std::string why =
        whyQConfigDoesNotMatchDTypeConfig(qconfig, dtypeConfig, operands);
    if (why.empty()) {
      result.dtypeConfigIndex = index;
      return result;
    }
    reasons.push_back(llvm::formatv("dtype_configs[{0}]: {1}", index, why));
  }
  if (reasons.empty())
    result.reason = "the pattern has no dtype configs";
  else
    result.reason = llvm::join(reasons, "; ");
  return result;
}
