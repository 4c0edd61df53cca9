//===- QuantTypes.cpp - Quantized dtypes and qschemes ---------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/QuantTypes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace qfx;

llvm::StringRef qfx::stringifyDType(DType dtype) {
  switch (dtype) {
  case DType::QUInt8:
    return "quint8";
  case DType::QInt8:
    return "qint8";
  case DType::QInt32:
    return "qint32";
  case DType::QUInt4x2:
    return "quint4x2";
  case DType::Float16:
    return "float16";
  case DType::Float32:
    return "float32";
  }
  llvm_unreachable("unknown DType");
}

std::optional<DType> qfx::symbolizeDType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("quint8", DType::QUInt8)
      .Case("qint8", DType::QInt8)
      .Case("qint32", DType::QInt32)
      .Case("quint4x2", DType::QUInt4x2)
      .Cases({"float16", "half"}, DType::Float16)
      .Cases({"float32", "float"}, DType::Float32)
      .Default(std::nullopt);
}

llvm::StringRef qfx::allDTypeNames() {
  return "quint8, qint8, qint32, quint4x2, float16, float32";
}

bool qfx::isQuantizedDType(DType dtype) {
  return dtype != DType::Float16 && dtype != DType::Float32;
}

QuantRange qfx::getDTypeRange(DType dtype) {
  switch (dtype) {
  case DType::QUInt8:
    return {0, 255};
  case DType::QInt8:
    return {-128, 127};
  case DType::QInt32:
    return {INT32_MIN, INT32_MAX};
  case DType::QUInt4x2:
    return {0, 15};
  case DType::Float16:
  case DType::Float32:
    break;
  }
  llvm_unreachable("getDTypeRange takes a quantized dtype");
}

llvm::StringRef qfx::stringifyQScheme(QScheme qscheme) {
  switch (qscheme) {
  case QScheme::PerTensorAffine:
    return "per_tensor_affine";
  case QScheme::PerTensorSymmetric:
    return "per_tensor_symmetric";
  case QScheme::PerChannelAffine:
    return "per_channel_affine";
  case QScheme::PerChannelSymmetric:
    return "per_channel_symmetric";
  case QScheme::PerChannelAffineFloatQParams:
    return "per_channel_affine_float_qparams";
  }
  llvm_unreachable("unknown QScheme");
}

std::optional<QScheme> qfx::symbolizeQScheme(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<QScheme>>(name)
      .Case("per_tensor_affine", QScheme::PerTensorAffine)
      .Case("per_tensor_symmetric", QScheme::PerTensorSymmetric)
      .Case("per_channel_affine", QScheme::PerChannelAffine)
      .Case("per_channel_symmetric", QScheme::PerChannelSymmetric)
      .Case("per_channel_affine_float_qparams",
            QScheme::PerChannelAffineFloatQParams)
      .Default(std::nullopt);
}

llvm::StringRef qfx::allQSchemeNames() {
  return "per_tensor_affine, per_tensor_symmetric, per_channel_affine, "
         "per_channel_symmetric, per_channel_affine_float_qparams";
}

bool qfx::isPerChannel(QScheme qscheme) {
  return qscheme == QScheme::PerChannelAffine ||
         qscheme == QScheme::PerChannelSymmetric ||
         qscheme == QScheme::PerChannelAffineFloatQParams;
}

bool qfx::isSymmetric(QScheme qscheme) {
  return qscheme == QScheme::PerTensorSymmetric ||
         qscheme == QScheme::PerChannelSymmetric;
}
