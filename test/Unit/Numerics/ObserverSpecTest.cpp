//===- ObserverSpecTest.cpp - Observer arguments, defaults and checks -----===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/ObserverSpec.h"

#include "gtest/gtest.h"

using namespace qfx;

namespace {

/// The message of the error `spec.validate()` returns, or "" if it succeeds.
std::string validationError(const ObserverSpec &spec) {
  llvm::Error err = spec.validate();
  return err ? llvm::toString(std::move(err)) : std::string();
}

ObserverSpec spec(ObserverKind kind) { return ObserverSpec(kind); }

TEST(ObserverSpec, KindNamesRoundTrip) {
  for (unsigned k = 0; k <= static_cast<unsigned>(ObserverKind::ReuseInput);
       ++k) {
    auto kind = static_cast<ObserverKind>(k);
    EXPECT_EQ(symbolizeObserverKind(stringifyObserverKind(kind)), kind);
    EXPECT_EQ(symbolizeObserverClassName(getObserverClassName(kind)), kind);
  }
  EXPECT_EQ(getObserverClassName(ObserverKind::MovingAveragePerChannelMinMax),
            "MovingAveragePerChannelMinMaxObserver");
}

TEST(ObserverSpec, ArgNamesRoundTrip) {
  for (unsigned a = 0; a <= static_cast<unsigned>(ObserverArg::ComputeDType);
       ++a) {
    auto arg = static_cast<ObserverArg>(a);
    EXPECT_EQ(symbolizeObserverArg(stringifyObserverArg(arg)), arg);
  }
}

// PyTorch 1.13's constructor defaults (torch/ao/quantization/observer.py).
TEST(ObserverSpec, Defaults) {
  EXPECT_EQ(spec(ObserverKind::MinMax).getDType(), DType::QUInt8);
  EXPECT_EQ(spec(ObserverKind::Placeholder).getDType(), DType::Float32);
  EXPECT_EQ(spec(ObserverKind::Noop).getDType(), DType::Float16);
  EXPECT_EQ(spec(ObserverKind::PerChannelMinMax).getQScheme(),
            QScheme::PerChannelAffine);
  EXPECT_EQ(spec(ObserverKind::Histogram).getQScheme(),
            QScheme::PerTensorAffine);
  EXPECT_EQ(spec(ObserverKind::Histogram).getBins(), 2048);
  EXPECT_EQ(spec(ObserverKind::Histogram).getUpsampleRate(), 128);
  EXPECT_EQ(spec(ObserverKind::MovingAverageMinMax).getAveragingConstant(),
            0.01);
  EXPECT_EQ(static_cast<float>(spec(ObserverKind::MinMax).getEps()),
            1.1920928955078125e-07f);
  EXPECT_EQ(spec(ObserverKind::PerChannelMinMax).getChAxis(), 0);
}

// calculate_qmin_qmax in torch/ao/quantization/utils.py.
TEST(ObserverSpec, QuantRange) {
  ObserverSpec s(ObserverKind::MinMax);
  EXPECT_EQ(s.getQuantRange(), (QuantRange{0, 255}));
  s.reduceRange = true;
  EXPECT_EQ(s.getQuantRange(), (QuantRange{0, 127}));
  s.dtype = DType::QInt8;
  EXPECT_EQ(s.getQuantRange(), (QuantRange{-64, 63}));
  s.reduceRange = false;
  EXPECT_EQ(s.getQuantRange(), (QuantRange{-128, 127}));
  s.dtype = DType::QUInt4x2;
  EXPECT_EQ(s.getQuantRange(), (QuantRange{0, 15}));
  s.dtype = DType::QInt32;
  EXPECT_EQ(s.getQuantRange(), (QuantRange{-2147483648LL, 2147483647LL}));

  // A custom range is halved with floor division under reduce_range.
  ObserverSpec custom(ObserverKind::MinMax);
  custom.dtype = DType::QInt8;
  custom.quantMin = -127;
  custom.quantMax = 127;
  EXPECT_EQ(custom.getQuantRange(), (QuantRange{-127, 127}));
  custom.reduceRange = true;
  EXPECT_EQ(custom.getQuantRange(), (QuantRange{-64, 63}));

  ObserverSpec fixed(ObserverKind::FixedQParams);
  EXPECT_EQ(fixed.getQuantRange(), (QuantRange{0, 255}));
}

TEST(ObserverSpec, ValidSpecs) {
  EXPECT_EQ(validationError(spec(ObserverKind::MinMax)), "");
  EXPECT_EQ(validationError(spec(ObserverKind::ReuseInput)), "");
  ObserverSpec perChannel(ObserverKind::PerChannelMinMax);
  perChannel.dtype = DType::QInt8;
  perChannel.qscheme = QScheme::PerChannelSymmetric;
  perChannel.chAxis = -1;
  EXPECT_EQ(validationError(perChannel), "");
  ObserverSpec fixed(ObserverKind::FixedQParams);
  fixed.scale = 1.0 / 256.0;
  fixed.zeroPoint = 0;
  EXPECT_EQ(validationError(fixed), "");
  ObserverSpec dynamic(ObserverKind::Placeholder);
  dynamic.dtype = DType::QUInt8;
  dynamic.computeDType = DType::QUInt8;
  EXPECT_EQ(validationError(dynamic), "");
}

TEST(ObserverSpec, RejectsArgumentsTheObserverDoesNotTake) {
  ObserverSpec s(ObserverKind::MinMax);
  s.bins = 64;
  EXPECT_EQ(validationError(s), "minmax observer: takes no argument 'bins' "
                                "(MinMaxObserver has no such parameter)");
  ObserverSpec reuse(ObserverKind::ReuseInput);
  reuse.dtype = DType::QInt8;
  EXPECT_NE(validationError(reuse).find("takes no argument 'dtype'"),
            std::string::npos);
}

TEST(ObserverSpec, RejectsWhatPyTorchRejects) {
  ObserverSpec s(ObserverKind::MinMax);
  s.qscheme = QScheme::PerChannelAffine;
  EXPECT_EQ(validationError(s),
            "minmax observer: expected qscheme per_tensor_affine or "
            "per_tensor_symmetric, got per_channel_affine");

  ObserverSpec perChannel(ObserverKind::PerChannelMinMax);
  perChannel.qscheme = QScheme::PerTensorAffine;
  EXPECT_EQ(validationError(perChannel),
            "per_channel_minmax observer: expected a per-channel qscheme, got "
            "per_tensor_affine");

  ObserverSpec symmetric(ObserverKind::MinMax);
  symmetric.qscheme = QScheme::PerTensorSymmetric;
  symmetric.reduceRange = true;
  EXPECT_EQ(validationError(symmetric),
            "minmax observer: cannot reduce range for symmetric quantization "
            "with quint8");

  ObserverSpec floatDType(ObserverKind::Histogram);
  floatDType.dtype = DType::Float16;
  EXPECT_EQ(validationError(floatDType),
            "histogram observer: expected dtype quint8, qint8, qint32 or "
            "quint4x2, got float16");
}

TEST(ObserverSpec, RejectsBadRanges) {
  ObserverSpec s(ObserverKind::MinMax);
  s.quantMin = 0;
  EXPECT_EQ(validationError(s),
            "minmax observer: quant_min and quant_max must be given together");
  s.quantMax = 0;
  EXPECT_EQ(validationError(s),
            "minmax observer: expected quant_min < quant_max, got [0, 0]");
  s.quantMin = 1;
  s.quantMax = 10;
  EXPECT_EQ(validationError(s),
            "minmax observer: the range [1, 10] must include 0");
  s.quantMin = 0;
  s.quantMax = 300;
  EXPECT_EQ(validationError(s), "minmax observer: the range [0, 300] is "
                                "outside quint8's range [0, 255]");
  s.dtype = DType::QInt8;
  s.quantMin = -129;
  s.quantMax = 127;
  EXPECT_EQ(validationError(s), "minmax observer: the range [-129, 127] is "
                                "outside qint8's range [-128, 127]");
}

TEST(ObserverSpec, RejectsBadNumbers) {
  ObserverSpec s(ObserverKind::MovingAverageMinMax);
  s.eps = 0;
  EXPECT_EQ(validationError(s),
            "moving_average_minmax observer: expected eps > 0, got 0");
  s.eps.reset();
  s.averagingConstant = 1.5;
  EXPECT_EQ(validationError(s), "moving_average_minmax observer: expected 0 < "
                                "averaging_constant <= 1, got 1.5");
  ObserverSpec histogram(ObserverKind::Histogram);
  histogram.bins = 0;
  EXPECT_EQ(validationError(histogram),
            "histogram observer: expected bins >= 1, got 0");
  ObserverSpec fixed(ObserverKind::FixedQParams);
  EXPECT_EQ(validationError(fixed),
            "fixed_qparams observer: scale and zero_point are required");
  fixed.scale = 0.5;
  fixed.zeroPoint = 256;
  EXPECT_EQ(validationError(fixed),
            "fixed_qparams observer: zero_point 256 is outside [0, 255]");
}

TEST(ObserverSpec, EqualityAndHash) {
  ObserverSpec a(ObserverKind::Histogram), b(ObserverKind::Histogram);
  EXPECT_EQ(a, b);
  EXPECT_EQ(hash_value(a), hash_value(b));
  // An argument given explicitly with its default value is still a
  // different spec: the IR prints what the user wrote.
  b.bins = 2048;
  EXPECT_NE(a, b);
}

} // namespace
