//===- Compare.cpp - Per-op comparison of two pipeline stages -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Compare.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Runtime/CompiledModel.h"

#include "Support.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

using namespace qfx;
using runtime::makeError;

std::string qfx::getLocationName(mlir::Location loc) {
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location inner : fused.getLocations())
      if (std::string name = getLocationName(inner); !name.empty())
        return name;
    return "";
  }
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return getLocationName(callSite.getCallee());
  auto named = mlir::dyn_cast<mlir::NameLoc>(loc);
  if (!named)
    return "";
  std::string name = named.getName().str();
  if (std::string inner = getLocationName(named.getChildLoc()); !inner.empty())
    name += "(" + inner + ")";
  return name;
}

namespace {

/// Observers that record: the last tensor each location produced.
class Recorder : public ObservationSink {
public:
  explicit Recorder(llvm::DenseMap<int64_t, std::string> names)
      : names(std::move(names)) {}

  void observe(int64_t slot, llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<float> data) override {
    auto it = names.find(slot);
    if (it == names.end())
      return;
    Value &value = values[it->second];
    value.shape.assign(shape.begin(), shape.end());
    value.data.assign(data.begin(), data.end());
  }

  struct Value {
    llvm::SmallVector<int64_t> shape;
    std::vector<float> data;
  };
  std::map<std::string, Value> values;

private:
  llvm::DenseMap<int64_t, std::string> names;
};

/// A clone of `module` in which every float tensor an op with a named
/// location produces is observed by a placeholder observer, and the names
/// of the observers' runtime slots (qfx-lower-observers numbers every
/// qfx.observe of the module in walk order) with the ops that made them.
struct Instrumented {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  llvm::DenseMap<int64_t, std::string> slotNames;
  std::map<std::string, std::string> opNames;
  std::map<std::string, int64_t> positions;
  std::map<std::string, std::pair<double, int64_t>> qparams;
};

Instrumented instrument(mlir::ModuleOp module, llvm::StringRef entry) {
  Instrumented result;
  result.module = module.clone();
  mlir::MLIRContext *context = module.getContext();
  // A float model may have no qfx op yet.
  context->getOrLoadDialect<QFXDialect>();
  auto spec =
      ObserverSpecAttr::get(context, ObserverSpec(ObserverKind::Placeholder));
  llvm::DenseMap<mlir::Operation *, std::string> recorders;
  auto function = result.module->lookupSymbol<mlir::func::FuncOp>(entry);
  if (!function)
    return result;
  llvm::SmallVector<mlir::Operation *> ops;
  function.walk([&](mlir::Operation *op) {
    if (!llvm::isa<ObserveOp>(op))
      ops.push_back(op);
  });
  for (mlir::Operation *op : ops) {
    std::string name = getLocationName(op->getLoc());
    if (name.empty() || op->getNumResults() != 1)
      continue;
    mlir::Value value = op->getResult(0);
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
    if (!type || op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    // A quantized value, or integers whose quantized type qfx-lower
    // recorded (an int8 model's pattern outputs), is recorded dequantized.
    auto quantized =
        llvm::dyn_cast<mlir::quant::QuantizedType>(type.getElementType());
    auto integerAs =
        op->getAttrOfType<mlir::TypeAttr>(QFXDialect::getQuantizedAttrName());
    if (integerAs)
      quantized = llvm::cast<mlir::quant::QuantizedType>(integerAs.getValue());
    if (!quantized && !llvm::isa<mlir::FloatType>(type.getElementType()))
      continue;
    mlir::OpBuilder builder(context);
    builder.setInsertionPointAfter(op);
    mlir::Value recorded = value;
    if (integerAs)
      recorded = mlir::quant::StorageCastOp::create(
          builder, op->getLoc(), type.clone(quantized), value);
    if (quantized)
      recorded = mlir::quant::DequantizeCastOp::create(
          builder, op->getLoc(), type.clone(quantized.getExpressedType()),
          recorded);
    auto recorder = ObserveOp::create(builder, op->getLoc(), recorded,
                                      builder.getI64IntegerAttr(0), spec,
                                      /*stats=*/nullptr);
    if (!quantized)
      value.replaceAllUsesExcept(recorder, recorder);
    recorders[recorder] = name;
    result.opNames[name] = op->getName().getStringRef().str();
    result.positions[name] = static_cast<int64_t>(result.positions.size());
    if (auto uniform =
            llvm::dyn_cast_or_null<mlir::quant::UniformQuantizedType>(
                quantized))
      result.qparams[name] = {uniform.getScale(), uniform.getZeroPoint()};
  }
  int64_t slot = 0;
  result.module->walk([&](ObserveOp op) {
    auto it = recorders.find(op);
    if (it != recorders.end())
      result.slotNames[slot] = it->second;
    ++slot;
  });
  return result;
}

} // namespace

int64_t qfx::getFloat32Ulps(double a, double b) {
  // Ordered as integers: IEEE floats of one sign are ordered as their bits.
  auto ordered = [](double v) {
    auto f = static_cast<float>(v);
    int32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return bits < 0 ? static_cast<int64_t>(INT32_MIN) - bits
                    : static_cast<int64_t>(bits);
  };
  return std::abs(ordered(a) - ordered(b));
}

namespace {

ValueComparison compareValues(std::string name, std::string opName,
                              llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<float> baseline,
                              llvm::ArrayRef<float> compared) {
  ValueComparison comparison;
  comparison.name = std::move(name);
  comparison.opName = std::move(opName);
  comparison.shape.assign(shape.begin(), shape.end());
  double signal = 0, noise = 0;
  for (auto [b, c] : llvm::zip_equal(baseline, compared)) {
    double error = static_cast<double>(b) - static_cast<double>(c);
    comparison.maxAbsError = std::max(comparison.maxAbsError, std::abs(error));
    signal += static_cast<double>(b) * b;
    noise += error * error;
  }
  comparison.sqnr = noise == 0 ? std::numeric_limits<double>::infinity()
                               : 10 * std::log10(signal / noise);
  return comparison;
}

/// The elements of an output as floats (outputs of either stage may be any
/// of the .npy dtypes).
std::vector<float> toFloats(const NpyArray &array) {
  std::vector<float> values(array.getNumElements());
  const uint8_t *data = array.data.data();
  for (size_t i = 0; i < values.size(); ++i) {
    switch (array.dtype) {
    case NpyDType::Float32:
      values[i] = reinterpret_cast<const float *>(data)[i];
      break;
    case NpyDType::Int8:
      values[i] = reinterpret_cast<const int8_t *>(data)[i];
      break;
    case NpyDType::UInt8:
      values[i] = data[i];
      break;
    case NpyDType::Int32:
      values[i] = reinterpret_cast<const int32_t *>(data)[i];
      break;
    case NpyDType::Int64:
      values[i] = reinterpret_cast<const int64_t *>(data)[i];
      break;
    case NpyDType::Float16:
      values[i] =
          llvm::APFloat(
              llvm::APFloat::IEEEhalf(),
              llvm::APInt(16, reinterpret_cast<const uint16_t *>(data)[i]))
              .convertToFloat();
      break;
    }
  }
  return values;
}

} // namespace

llvm::Expected<std::vector<ValueComparison>>
qfx::compareStages(mlir::ModuleOp baseline, mlir::ModuleOp compared,
                   llvm::StringRef entry, llvm::ArrayRef<NpyArray> inputs) {
  struct Run {
    Instrumented instrumented;
    std::unique_ptr<Recorder> recorder;
    llvm::SmallVector<NpyArray> outputs;
  };
  llvm::Expected<std::string> entryName = findEntry(baseline, entry);
  if (!entryName)
    return makeError("the baseline: " + llvm::toString(entryName.takeError()));
  Run runs[2];
  for (auto [run, module, which] :
       llvm::zip_equal(runs, std::array{baseline, compared},
                       std::array{"the baseline", "the compared stage"})) {
    run.instrumented = instrument(module, *entryName);
    CompileOptions options;
    options.entry = *entryName;
    options.calibrate = true;
    auto model = CompiledModel::compile(*run.instrumented.module, options);
    if (!model)
      return makeError(llvm::Twine(which) + ": " +
                       llvm::toString(model.takeError()));
    if (llvm::Error err = model->checkInputs(inputs))
      return makeError(llvm::Twine(which) + ": " +
                       llvm::toString(std::move(err)));
    run.recorder = std::make_unique<Recorder>(run.instrumented.slotNames);
    auto outputs = model->run(inputs, run.recorder.get());
    if (!outputs)
      return outputs.takeError();
    run.outputs = std::move(*outputs);
  }

  std::vector<ValueComparison> report;
  for (const auto &[name, value] : runs[0].recorder->values) {
    auto other = runs[1].recorder->values.find(name);
    if (other == runs[1].recorder->values.end() ||
        other->second.shape != value.shape)
      continue;
    report.push_back(compareValues(name, runs[1].instrumented.opNames[name],
                                   value.shape, value.data,
                                   other->second.data));
    report.back().position = runs[1].instrumented.positions[name];
    for (auto [run, qparams] :
         llvm::zip_equal(runs, std::array{&report.back().baselineQParams,
                                          &report.back().comparedQParams}))
      if (auto it = run.instrumented.qparams.find(name);
          it != run.instrumented.qparams.end())
        *qparams = it->second;
  }
  if (runs[0].outputs.size() != runs[1].outputs.size())
    return makeError(llvm::formatv("the stages have {0} and {1} results",
                                   runs[0].outputs.size(),
                                   runs[1].outputs.size()));
  for (auto [index, a, b] : llvm::enumerate(runs[0].outputs, runs[1].outputs)) {
    if (a.shape != b.shape)
      return makeError(llvm::formatv("result {0} has shape {1} in the "
                                     "baseline but {2} in the compared stage",
                                     index, a.getShapeString(),
                                     b.getShapeString()));
    report.push_back(compareValues(llvm::formatv("output {0}", index).str(),
                                   "return", a.shape, toFloats(a),
                                   toFloats(b)));
    report.back().isResult = true;
  }
  // Worst first; ties by name, so the order does not depend on the sort.
  llvm::sort(report, [](const ValueComparison &x, const ValueComparison &y) {
    return std::tie(x.sqnr, x.name) < std::tie(y.sqnr, y.name);
  });
  return report;
}
