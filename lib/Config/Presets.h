//===- Presets.h - PyTorch's named observers (private) ----------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The named observers of torch/ao/quantization/observer.py that the QConfig,
// QConfigMapping and BackendConfig presets are built from.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_CONFIG_PRESETS_H
#define QFX_LIB_CONFIG_PRESETS_H

#include "qfx/Numerics/ObserverSpec.h"

namespace qfx {
namespace presets {

/// default_observer: MinMaxObserver(quant_min=0, quant_max=127).
ObserverSpec defaultObserver();
/// default_weight_observer: MinMaxObserver(qint8, per_tensor_symmetric).
ObserverSpec defaultWeightObserver();
/// default_per_channel_weight_observer.
ObserverSpec defaultPerChannelWeightObserver();
/// weight_observer_range_neg_127_to_127.
ObserverSpec weightObserverRangeNeg127To127();
/// per_channel_weight_observer_range_neg_127_to_127.
ObserverSpec perChannelWeightObserverRangeNeg127To127();
/// default_placeholder_observer: PlaceholderObserver.
ObserverSpec defaultPlaceholderObserver();
/// default_dynamic_quant_observer.
ObserverSpec defaultDynamicQuantObserver();
/// default_float_qparams_observer (quint8) and its 4-bit variant (quint4x2).
ObserverSpec defaultFloatQParamsObserver(DType dtype);
/// default_fixed_qparams_range_0to1_observer (sigmoid, hardsigmoid, softmax).
ObserverSpec defaultFixedQParamsRange0To1Observer();
/// default_fixed_qparams_range_neg1to1_observer (tanh).
ObserverSpec defaultFixedQParamsRangeNeg1To1Observer();

} // namespace presets
} // namespace qfx

#endif // QFX_LIB_CONFIG_PRESETS_H
