//===- ObserverTest.cpp - Observer behaviour beyond the golden data -------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/Observer.h"

#include "gtest/gtest.h"

using namespace qfx;

#include <cmath>
#include <limits>
#include <random>

namespace {

std::vector<float> randomData(size_t n, float scale, float shift,
                              unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0, 1);
  std::vector<float> data(n);
  for (float &v : data)
    v = dist(rng) * scale + shift;
  return data;
}

Observer makeObserver(const ObserverSpec &spec) {
  auto observer = Observer::create(spec);
  if (!observer) {
    ADD_FAILURE() << llvm::toString(observer.takeError());
    std::abort();
  }
  return std::move(*observer);
}

ObserverSpec perChannelSpec(int64_t axis) {
  ObserverSpec spec(ObserverKind::PerChannelMinMax);
  spec.dtype = DType::QInt8;
  spec.qscheme = QScheme::PerChannelSymmetric;
  spec.chAxis = axis;
  return spec;
}

TEST(Observer, NonFiniteValuesAreAnErrorNamingTheTensor) {
  for (ObserverKind kind :
       {ObserverKind::MinMax, ObserverKind::MovingAverageMinMax,
        ObserverKind::Histogram, ObserverKind::PerChannelMinMax}) {
    Observer observer = makeObserver(ObserverSpec(kind));
    std::vector<float> good = randomData(64, 1, 0, 1);
    ASSERT_FALSE(llvm::errorToBool(observer.observe(good, {8, 8}, "x")));
    ObserverState before = observer.getState();
    std::vector<float> bad = good;
    bad[3] = std::numeric_limits<float>::quiet_NaN();
    bad[9] = std::numeric_limits<float>::infinity();
    bad[40] = -std::numeric_limits<float>::infinity();
    bad[41] = std::numeric_limits<float>::quiet_NaN();
    bad[63] = std::numeric_limits<float>::quiet_NaN();
    llvm::Error err = observer.observe(bad, {8, 8}, "layer1.conv.weight");
    ASSERT_TRUE(!!err) << stringifyObserverKind(kind).str();
    std::string message = llvm::toString(std::move(err));
    EXPECT_NE(message.find("'layer1.conv.weight'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("3 NaN and 2 infinite"), std::string::npos)
        << message;
    EXPECT_EQ(observer.getState(), before) << message;
  }
}

TEST(Observer, NonFiniteValuesInChannelsLastTensors) {
  // Channels along the last axis take the row-wise kernel.
  Observer observer = makeObserver(perChannelSpec(-1));
  std::vector<float> data = randomData(6 * 70, 1, 0, 11);
  data[6 * 70 - 1] = std::numeric_limits<float>::infinity();
  llvm::Error err = observer.observe(data, {6, 70}, "act");
  ASSERT_TRUE(!!err);
  EXPECT_NE(llvm::toString(std::move(err)).find("0 NaN and 1 infinite"),
            std::string::npos);
  EXPECT_FALSE(observer.hasStatistics());
}

TEST(Observer, VectorizedScansMatchAPlainLoop) {
  // Every size around the kernels' lane and block widths, every axis.
  for (int64_t rows : {1, 3, 17}) {
    for (int64_t cols : {1, 2, 15, 16, 63, 64, 65, 130, 257}) {
      std::vector<float> data =
          randomData(rows * cols, 3, 0.5f, unsigned(rows * 1000 + cols));
      for (int64_t axis : {0, 1}) {
        Observer observer = makeObserver(perChannelSpec(axis));
        ASSERT_FALSE(
            llvm::errorToBool(observer.observe(data, {rows, cols}, "x")));
        int64_t channels = axis == 0 ? rows : cols;
        std::vector<float> mins(channels, INFINITY), maxs(channels, -INFINITY);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            int64_t ch = axis == 0 ? r : c;
            mins[ch] = std::min(mins[ch], data[r * cols + c]);
            maxs[ch] = std::max(maxs[ch], data[r * cols + c]);
          }
        const ObserverState &state = observer.getState();
        EXPECT_EQ(
            std::vector<float>(state.minVals.begin(), state.minVals.end()),
            mins);
        EXPECT_EQ(
            std::vector<float>(state.maxVals.begin(), state.maxVals.end()),
            maxs);
      }
      Observer perTensor = makeObserver(ObserverSpec(ObserverKind::MinMax));
      ASSERT_FALSE(llvm::errorToBool(perTensor.observe(data, {}, "x")));
      EXPECT_EQ(perTensor.getState().minVals[0], *llvm::min_element(data));
      EXPECT_EQ(perTensor.getState().maxVals[0], *llvm::max_element(data));
    }
  }
}

TEST(Observer, MinMaxStatesOfTwoHalvesMergeIntoTheWhole) {
  std::vector<float> first = randomData(1000, 2, 1, 2);
  std::vector<float> second = randomData(1000, 5, -3, 3);
  {
    // Histogram merging is approximate; it is tested below.
    ObserverSpec spec(ObserverKind::MinMax);
    Observer whole = makeObserver(spec), a = makeObserver(spec),
             b = makeObserver(spec);
    ASSERT_FALSE(llvm::errorToBool(whole.observe(first, {}, "x")));
    ASSERT_FALSE(llvm::errorToBool(whole.observe(second, {}, "x")));
    ASSERT_FALSE(llvm::errorToBool(a.observe(first, {}, "x")));
    ASSERT_FALSE(llvm::errorToBool(b.observe(second, {}, "x")));
    ASSERT_FALSE(llvm::errorToBool(a.merge(b)));
    EXPECT_EQ(a.getState(), whole.getState());
    auto qa = a.calculateQParams(), qw = whole.calculateQParams();
    ASSERT_TRUE(qa && qw);
    EXPECT_EQ(qa->scales, qw->scales);
    EXPECT_EQ(qa->zeroPoints, qw->zeroPoints);
  }
  // Per channel, on a [4, 250] weight-like tensor along each axis.
  for (int64_t axis : {0, 1, -1}) {
    ObserverSpec spec = perChannelSpec(axis);
    Observer whole = makeObserver(spec), a = makeObserver(spec),
             b = makeObserver(spec), empty = makeObserver(spec);
    ASSERT_FALSE(llvm::errorToBool(whole.observe(first, {4, 250}, "w")));
    ASSERT_FALSE(llvm::errorToBool(whole.observe(second, {4, 250}, "w")));
    ASSERT_FALSE(llvm::errorToBool(a.observe(first, {4, 250}, "w")));
    ASSERT_FALSE(llvm::errorToBool(b.observe(second, {4, 250}, "w")));
    ASSERT_FALSE(llvm::errorToBool(a.merge(b)));
    ASSERT_FALSE(llvm::errorToBool(a.merge(empty)));
    EXPECT_EQ(a.getState(), whole.getState());
    ASSERT_FALSE(llvm::errorToBool(empty.merge(a)));
    EXPECT_EQ(empty.getState(), whole.getState());
  }
}

TEST(Observer, MovingAveragesDoNotMerge) {
  ObserverSpec spec(ObserverKind::MovingAverageMinMax);
  Observer a = makeObserver(spec), b = makeObserver(spec);
  std::vector<float> data = randomData(16, 1, 0, 4);
  ASSERT_FALSE(llvm::errorToBool(a.observe(data, {}, "x")));
  ASSERT_FALSE(llvm::errorToBool(b.observe(data, {}, "x")));
  EXPECT_TRUE(llvm::errorToBool(a.merge(b)));
  Observer other = makeObserver(ObserverSpec(ObserverKind::MinMax));
  EXPECT_TRUE(llvm::errorToBool(other.merge(a)));
}

TEST(Observer, StateSizeDoesNotGrowWithBatches) {
  ObserverSpec hist(ObserverKind::Histogram);
  hist.bins = 128;
  Observer histogram = makeObserver(hist);
  Observer perChannel = makeObserver(perChannelSpec(1));
  for (unsigned i = 0; i < 50; ++i) {
    std::vector<float> data = randomData(3 * 64, 1.0f + i, 0.1f * i, 10 + i);
    ASSERT_FALSE(llvm::errorToBool(histogram.observe(data, {}, "x")));
    ASSERT_FALSE(llvm::errorToBool(perChannel.observe(data, {3, 8, 8}, "x")));
  }
  EXPECT_EQ(histogram.getState().histogram.size(), 128u);
  EXPECT_EQ(histogram.getState().minVals.size(), 1u);
  EXPECT_EQ(perChannel.getState().minVals.size(), 8u);
  // PyTorch's torch.histc drops values outside the truncated range, so some
  // of the 9600 values are lost, never more are counted.
  double total = 0;
  for (float c : histogram.getState().histogram)
    total += c;
  EXPECT_LE(total, 50 * 3 * 64 + 1e-2);
  EXPECT_GT(total, 0.9 * 50 * 3 * 64);
}

TEST(Observer, HistogramBinsOverTheTruncatedRangeAsPyTorch113) {
  // HistogramObserver calls torch.histc(x, min=int(min_val),
  // max=int(max_val)): for data in [-2.5, 5.5] the bins span [-2, 5] and the
  // values outside are dropped.
  ObserverSpec spec(ObserverKind::Histogram);
  spec.bins = 7;
  Observer observer = makeObserver(spec);
  std::vector<float> data = {-2.5f, -2.0f, -1.5f, 0.0f, 4.0f, 5.0f, 5.5f};
  ASSERT_FALSE(llvm::errorToBool(observer.observe(data, {}, "x")));
  const ObserverState &state = observer.getState();
  EXPECT_EQ(state.minVals[0], -2.5f);
  EXPECT_EQ(state.maxVals[0], 5.5f);
  std::vector<float> expected = {2, 0, 1, 0, 0, 0, 2};
  EXPECT_EQ(state.histogram, expected);
}

TEST(Observer, HistogramMergeKeepsMassAndRange) {
  ObserverSpec spec(ObserverKind::Histogram);
  std::vector<float> first = randomData(4000, 1, 0, 5);
  std::vector<float> second = randomData(4000, 3, 2, 6);
  Observer whole = makeObserver(spec), a = makeObserver(spec),
           b = makeObserver(spec), empty = makeObserver(spec);
  ASSERT_FALSE(llvm::errorToBool(whole.observe(first, {}, "x")));
  ASSERT_FALSE(llvm::errorToBool(whole.observe(second, {}, "x")));
  ASSERT_FALSE(llvm::errorToBool(a.observe(first, {}, "x")));
  ASSERT_FALSE(llvm::errorToBool(b.observe(second, {}, "x")));
  ASSERT_FALSE(llvm::errorToBool(empty.merge(a)));
  EXPECT_EQ(empty.getState(), a.getState());
  auto mass = [](const ObserverState &state) {
    double total = 0;
    for (float c : state.histogram)
      total += c;
    return total;
  };
  double expectedMass = mass(a.getState()) + mass(b.getState());
  ASSERT_FALSE(llvm::errorToBool(a.merge(b)));
  const ObserverState &merged = a.getState();
  EXPECT_NEAR(mass(merged), expectedMass, 1e-4 * expectedMass);
  EXPECT_LE(merged.minVals[0],
            std::min(*llvm::min_element(first), *llvm::min_element(second)));
  EXPECT_GE(merged.maxVals[0],
            std::max(*llvm::max_element(first), *llvm::max_element(second)));
  // Same grid as streaming: a and whole both adjusted the first range.
  EXPECT_EQ(merged.minVals, whole.getState().minVals);
  EXPECT_EQ(merged.maxVals, whole.getState().maxVals);
  auto qm = a.calculateQParams(), qw = whole.calculateQParams();
  ASSERT_TRUE(qm && qw);
  EXPECT_NEAR(qm->scales[0], qw->scales[0], 0.05 * qw->scales[0]);
  EXPECT_NEAR(qm->zeroPoints[0], qw->zeroPoints[0], 3);
}

TEST(Observer, StateRoundTripsThroughSetState) {
  ObserverSpec spec(ObserverKind::Histogram);
  spec.bins = 256;
  Observer a = makeObserver(spec), b = makeObserver(spec);
  ASSERT_FALSE(llvm::errorToBool(a.observe(randomData(500, 2, 1, 7), {}, "x")));
  ASSERT_FALSE(llvm::errorToBool(b.setState(a.getState())));
  auto qa = a.calculateQParams(), qb = b.calculateQParams();
  ASSERT_TRUE(qa && qb);
  EXPECT_EQ(qa->scales, qb->scales);
  EXPECT_EQ(qa->zeroPoints, qb->zeroPoints);

  ObserverState wrongBins = a.getState();
  wrongBins.histogram.resize(10);
  EXPECT_TRUE(llvm::errorToBool(b.setState(wrongBins)));
  ObserverState inverted = a.getState();
  std::swap(inverted.minVals[0], inverted.maxVals[0]);
  EXPECT_TRUE(llvm::errorToBool(b.setState(inverted)));
  Observer perTensor = makeObserver(ObserverSpec(ObserverKind::MinMax));
  ObserverState twoEntries;
  twoEntries.minVals = {0, 1};
  twoEntries.maxVals = {1, 2};
  EXPECT_TRUE(llvm::errorToBool(perTensor.setState(twoEntries)));
}

TEST(Observer, UncalibratedObserversGiveDefaults) {
  for (ObserverKind kind :
       {ObserverKind::MinMax, ObserverKind::PerChannelMinMax,
        ObserverKind::Histogram}) {
    Observer observer = makeObserver(ObserverSpec(kind));
    EXPECT_FALSE(observer.hasStatistics());
    auto qparams = observer.calculateQParams();
    ASSERT_TRUE(!!qparams);
    EXPECT_EQ(qparams->scales, (llvm::SmallVector<float, 1>{1.0f}));
    EXPECT_EQ(qparams->zeroPoints, (llvm::SmallVector<int64_t, 1>{0}));
  }
}

TEST(Observer, NonCalibratingObservers) {
  ObserverSpec fixed(ObserverKind::FixedQParams);
  fixed.scale = 1.0 / 256.0;
  fixed.zeroPoint = 0;
  Observer observer = makeObserver(fixed);
  std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_FALSE(llvm::errorToBool(observer.observe(nan, {}, "x")));
  auto qparams = observer.calculateQParams();
  ASSERT_TRUE(!!qparams);
  EXPECT_EQ(qparams->scales[0], 1.0f / 256.0f);
  EXPECT_EQ(qparams->zeroPoints[0], 0);

  for (ObserverKind kind : {ObserverKind::Placeholder, ObserverKind::Noop,
                            ObserverKind::ReuseInput}) {
    Observer passThrough = makeObserver(ObserverSpec(kind));
    EXPECT_FALSE(llvm::errorToBool(passThrough.observe(nan, {}, "x")));
    auto none = passThrough.calculateQParams();
    ASSERT_FALSE(!!none);
    EXPECT_NE(llvm::toString(none.takeError()).find("should not be called"),
              std::string::npos);
  }
}

TEST(Observer, RejectsWhatPyTorchRejects) {
  ObserverSpec hist(ObserverKind::Histogram);
  hist.bins = 0;
  auto noBins = Observer::create(hist);
  EXPECT_FALSE(!!noBins);
  if (!noBins)
    llvm::consumeError(noBins.takeError());
  ObserverSpec perTensor(ObserverKind::MinMax);
  perTensor.qscheme = QScheme::PerChannelAffine;
  auto rejected = Observer::create(perTensor);
  EXPECT_FALSE(!!rejected);
  if (!rejected)
    llvm::consumeError(rejected.takeError());
}

TEST(Observer, ShapeAndChannelMismatchesAreErrors) {
  Observer perChannel = makeObserver(perChannelSpec(0));
  std::vector<float> data = randomData(12, 1, 0, 8);
  ASSERT_FALSE(llvm::errorToBool(perChannel.observe(data, {3, 4}, "w")));
  llvm::Error err = perChannel.observe(data, {4, 3}, "w");
  ASSERT_TRUE(!!err);
  EXPECT_NE(llvm::toString(std::move(err)).find("4 channels"),
            std::string::npos);
  EXPECT_TRUE(llvm::errorToBool(perChannel.observe(data, {5, 2}, "w")));
  Observer outOfRange = makeObserver(perChannelSpec(2));
  EXPECT_TRUE(llvm::errorToBool(outOfRange.observe(data, {3, 4}, "w")));
}

} // namespace
