//===- GoldenTest.cpp - qfx Numerics against PyTorch 1.13, bit for bit ----===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Compares quantize / dequantize / fake-quantize and every calibrating
// observer with golden data written by utils/golden/gen_numerics_golden.py
// from PyTorch 1.13: identical float32 bits, identical integers.
//
//===----------------------------------------------------------------------===//

#include "ObserverKernels.h"

#include "qfx/Numerics/Observer.h"
#include "qfx/Numerics/Quantize.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace qfx;

namespace {

float fromBits(int64_t bits) {
  uint32_t u = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint32_t toBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

const llvm::json::Object &golden() {
  static llvm::json::Value value = [] {
    auto buffer = llvm::MemoryBuffer::getFile(QFX_NUMERICS_GOLDEN_DIR
                                              "/numerics_golden.json");
    if (!buffer) {
      llvm::errs() << "cannot read golden data: " << buffer.getError().message()
                   << "\n";
      std::abort();
    }
    auto parsed = llvm::json::parse((*buffer)->getBuffer());
    if (!parsed) {
      llvm::errs() << "bad golden JSON: " << llvm::toString(parsed.takeError())
                   << "\n";
      std::abort();
    }
    return std::move(*parsed);
  }();
  return *value.getAsObject();
}

const llvm::json::Array &getArray(const llvm::json::Object &obj,
                                  llvm::StringRef key) {
  const llvm::json::Array *array = obj.getArray(key);
  if (!array) {
    llvm::errs() << "golden data: missing array '" << key << "'\n";
    std::abort();
  }
  return *array;
}

std::vector<float> floats(const llvm::json::Array &array) {
  std::vector<float> out;
  for (const llvm::json::Value &v : array)
    out.push_back(fromBits(*v.getAsInteger()));
  return out;
}

std::vector<int64_t> ints(const llvm::json::Array &array) {
  std::vector<int64_t> out;
  for (const llvm::json::Value &v : array)
    out.push_back(*v.getAsInteger());
  return out;
}

double parseDouble(const llvm::json::Value &v) {
  double d = 0;
  llvm::StringRef(*v.getAsString()).getAsDouble(d);
  return d;
}

std::vector<double> doubles(const llvm::json::Array &array) {
  std::vector<double> out;
  for (const llvm::json::Value &v : array)
    out.push_back(parseDouble(v));
  return out;
}

DType parseDType(const llvm::json::Object &obj) {
  return *symbolizeDType(*obj.getString("dtype"));
}

/// Counts mismatching float bits, printing the first few.
int compareBits(llvm::ArrayRef<float> expected, llvm::ArrayRef<float> actual,
                const std::string &what) {
  if (expected.size() != actual.size()) {
    ADD_FAILURE() << what << ": expected " << expected.size() << " values, got "
                  << actual.size();
    return 1;
  }
  int bad = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (toBits(expected[i]) == toBits(actual[i]))
      continue;
    if (++bad <= 3)
      ADD_FAILURE() << what << "[" << i << "]: expected " << expected[i]
                    << " (0x" << std::hex << toBits(expected[i]) << "), got "
                    << actual[i] << " (0x" << toBits(actual[i]) << std::dec
                    << ")";
  }
  return bad;
}

int compareInts(llvm::ArrayRef<int64_t> expected,
                llvm::ArrayRef<int64_t> actual, const std::string &what) {
  if (expected.size() != actual.size()) {
    ADD_FAILURE() << what << ": expected " << expected.size() << " values, got "
                  << actual.size();
    return 1;
  }
  int bad = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != actual[i] && ++bad <= 3)
      ADD_FAILURE() << what << "[" << i << "]: expected " << expected[i]
                    << ", got " << actual[i];
  return bad;
}

TEST(NumericsGolden, QuantizePerTensor) {
  int cases = 0;
  for (const llvm::json::Value &v : getArray(golden(), "quantize_per_tensor")) {
    const llvm::json::Object &c = *v.getAsObject();
    DType dtype = parseDType(c);
    AffineQParams qparams{parseDouble(*c.get("scale")),
                          *c.getInteger("zero_point"), getDTypeRange(dtype)};
    std::string what =
        (stringifyDType(dtype) + " scale " + *c.getString("scale") + " zp " +
         std::to_string(qparams.zeroPoint))
            .str();
    std::vector<float> input = floats(getArray(c, "input"));
    std::vector<int32_t> q(input.size());
    ASSERT_FALSE(llvm::errorToBool(quantizePerTensor(input, qparams, q)));
    std::vector<int64_t> q64(q.begin(), q.end());
    EXPECT_EQ(
        compareInts(ints(getArray(c, "quantized")), q64, what + " quantize"),
        0);
    std::vector<float> dq(input.size());
    ASSERT_FALSE(llvm::errorToBool(dequantizePerTensor(q, qparams, dq)));
    EXPECT_EQ(compareBits(floats(getArray(c, "dequantized")), dq,
                          what + " dequantize"),
              0);
    for (const llvm::json::Value &f : getArray(c, "fake_quantized")) {
      const llvm::json::Object &fq = *f.getAsObject();
      AffineQParams fqParams = qparams;
      fqParams.range = {*fq.getInteger("quant_min"),
                        *fq.getInteger("quant_max")};
      std::vector<float> out(input.size());
      ASSERT_FALSE(
          llvm::errorToBool(fakeQuantizePerTensor(input, fqParams, out)));
      EXPECT_EQ(compareBits(floats(getArray(fq, "output")), out,
                            what + " fake-quantize [" +
                                std::to_string(fqParams.range.min) + ", " +
                                std::to_string(fqParams.range.max) + "]"),
                0);
    }
    ++cases;
  }
  EXPECT_GT(cases, 30);
}

TEST(NumericsGolden, QuantizePerChannel) {
  int cases = 0;
  for (const llvm::json::Value &v :
       getArray(golden(), "quantize_per_channel")) {
    const llvm::json::Object &c = *v.getAsObject();
    DType dtype = parseDType(c);
    std::vector<int64_t> shape = ints(getArray(c, "shape"));
    std::vector<double> scales = doubles(getArray(c, "scales"));
    std::vector<int64_t> zeroPoints;
    std::vector<float> floatZeroPoints;
    if (c.getArray("zero_points"))
      zeroPoints = ints(getArray(c, "zero_points"));
    else
      floatZeroPoints = floats(getArray(c, "float_zero_points"));
    PerChannelQParams qparams{scales, zeroPoints, floatZeroPoints,
                              *c.getInteger("axis"), getDTypeRange(dtype)};
    std::string what =
        (stringifyDType(dtype) + " axis " + std::to_string(qparams.axis) +
         " case " + std::to_string(cases))
            .str();
    std::vector<float> input = floats(getArray(c, "input"));
    std::vector<int32_t> q(input.size());
    ASSERT_FALSE(
        llvm::errorToBool(quantizePerChannel(input, shape, qparams, q)));
    std::vector<int64_t> q64(q.begin(), q.end());
    EXPECT_EQ(
        compareInts(ints(getArray(c, "quantized")), q64, what + " quantize"),
        0);
    std::vector<float> dq(input.size());
    ASSERT_FALSE(
        llvm::errorToBool(dequantizePerChannel(q, shape, qparams, dq)));
    EXPECT_EQ(compareBits(floats(getArray(c, "dequantized")), dq,
                          what + " dequantize"),
              0);
    if (const llvm::json::Array *fqs = c.getArray("fake_quantized")) {
      for (const llvm::json::Value &f : *fqs) {
        const llvm::json::Object &fq = *f.getAsObject();
        std::vector<float> out(input.size());
        ASSERT_FALSE(llvm::errorToBool(
            fakeQuantizePerChannel(input, shape, qparams, out)));
        EXPECT_EQ(compareBits(floats(getArray(fq, "output")), out,
                              what + " fake-quantize"),
                  0);
      }
    }
    ++cases;
  }
  EXPECT_GT(cases, 10);
}

/// Builds the spec of a golden observer group from PyTorch's arguments.
ObserverSpec parseSpec(const llvm::json::Object &group) {
  ObserverSpec spec(*symbolizeObserverKind(*group.getString("observer")));
  const llvm::json::Object &args = *group.getObject("args");
  spec.dtype = symbolizeDType(*args.getString("dtype"));
  spec.qscheme = symbolizeQScheme(*args.getString("qscheme"));
  spec.reduceRange = *args.getBoolean("reduce_range");
  if (auto qmin = args.getInteger("quant_min")) {
    spec.quantMin = *qmin;
    spec.quantMax = *args.getInteger("quant_max");
  }
  if (const llvm::json::Value *eps = args.get("eps"))
    spec.eps = parseDouble(*eps);
  if (const llvm::json::Value *c = args.get("averaging_constant"))
    spec.averagingConstant = parseDouble(*c);
  if (auto axis = args.getInteger("ch_axis"))
    spec.chAxis = *axis;
  if (auto bins = args.getInteger("bins"))
    spec.bins = *bins;
  if (auto rate = args.getInteger("upsample_rate"))
    spec.upsampleRate = *rate;
  return spec;
}

std::string describe(const llvm::json::Object &group,
                     const llvm::json::Object &result) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *group.getString("observer") << " "
     << llvm::json::Value(llvm::json::Object(*group.getObject("args")))
     << " on " << *result.getString("dataset");
  return text;
}

/// Runs every golden observer group of the given kinds.
void checkObservers(llvm::ArrayRef<ObserverKind> kinds, int minResults) {
  const llvm::json::Object &datasets = *golden().getObject("datasets");
  const llvm::json::Object &channelDatasets =
      *golden().getObject("channel_datasets");
  int results = 0;
  for (const llvm::json::Value &g : getArray(golden(), "observers")) {
    const llvm::json::Object &group = *g.getAsObject();
    ObserverSpec spec = parseSpec(group);
    if (!llvm::is_contained(kinds, spec.kind))
      continue;
    auto observer = Observer::create(spec);
    if (!observer) {
      ADD_FAILURE() << "spec PyTorch accepts was rejected: "
                    << llvm::toString(observer.takeError());
      continue;
    }
    for (const llvm::json::Value &r : getArray(group, "results")) {
      const llvm::json::Object &result = *r.getAsObject();
      std::string what = describe(group, result);
      llvm::StringRef name = *result.getString("dataset");
      const llvm::json::Object *dataset = datasets.getObject(name);
      std::vector<int64_t> shape;
      if (!dataset) {
        dataset = channelDatasets.getObject(name);
        shape = ints(getArray(*dataset, "shape"));
      }
      observer->reset();
      for (const llvm::json::Value &batch : getArray(*dataset, "batches")) {
        std::vector<float> values = floats(*batch.getAsArray());
        if (llvm::Error err = observer->observe(values, shape, name)) {
          ADD_FAILURE() << what << ": " << llvm::toString(std::move(err));
          break;
        }
      }
      const ObserverState &state = observer->getState();
      EXPECT_EQ(compareBits(floats(getArray(result, "min_vals")), state.minVals,
                            what + " min_val"),
                0);
      EXPECT_EQ(compareBits(floats(getArray(result, "max_vals")), state.maxVals,
                            what + " max_val"),
                0);
      if (const llvm::json::Array *hist = result.getArray("histogram"))
        EXPECT_EQ(
            compareBits(floats(*hist), state.histogram, what + " histogram"),
            0);
      auto qparams = observer->calculateQParams();
      if (!qparams) {
        ADD_FAILURE() << what << ": " << llvm::toString(qparams.takeError());
        continue;
      }
      EXPECT_EQ(compareBits(floats(getArray(result, "scales")), qparams->scales,
                            what + " scale"),
                0);
      if (const llvm::json::Array *zps = result.getArray("zero_points"))
        EXPECT_EQ(
            compareInts(ints(*zps), qparams->zeroPoints, what + " zero_point"),
            0);
      else
        // Compared by value: PyTorch's -1 * min_val / scale and ours may
        // differ in the sign of a zero.
        EXPECT_EQ(floats(getArray(result, "float_zero_points")),
                  std::vector<float>(qparams->floatZeroPoints.begin(),
                                     qparams->floatZeroPoints.end()))
            << what << " float zero_point";
      ++results;
    }
  }
  EXPECT_GE(results, minResults);
}

TEST(NumericsGolden, MinMaxObservers) {
  checkObservers({ObserverKind::MinMax, ObserverKind::MovingAverageMinMax},
                 500);
}

TEST(NumericsGolden, PerChannelObservers) {
  checkObservers({ObserverKind::PerChannelMinMax,
                  ObserverKind::MovingAveragePerChannelMinMax},
                 400);
}

TEST(NumericsGolden, HistogramObserver) {
  checkObservers({ObserverKind::Histogram}, 250);
}

TEST(NumericsGolden, CascadeSumMatchesTorchSum) {
  for (const llvm::json::Value &v : getArray(golden(), "cascade_sum")) {
    const llvm::json::Object &c = *v.getAsObject();
    std::vector<float> input = floats(getArray(c, "input"));
    float expected = fromBits(*c.getInteger("sum"));
    EXPECT_EQ(toBits(detail::cascadeSum(input)), toBits(expected))
        << "sum of " << input.size() << " values";
  }
}

} // namespace
