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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <tuple>

using namespace qfx;
using runtime::makeError;

std::string qfx::getLocationName(mlir::Location loc) {
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc)) {
    // A pattern's ops in forward order: its value is the last one's.
    for (mlir::Location inner : llvm::reverse(fused.getLocations()))
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

/// Observers that record: the last tensor each location produced.
class RecordingModel::Recorder : public ObservationSink {
public:
  explicit Recorder(const llvm::DenseMap<int64_t, std::string> &names)
      : names(names) {}

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
  const llvm::DenseMap<int64_t, std::string> &names;
};

namespace {

/// What an instrumented stage hands its observation sink.
enum class Instrumentation {
  /// Each named value, as a float tensor (dequantized if quantized).
  Values,
  /// The first element of each named value: a mark that the op is done.
  Marks,
};

/// A clone of `module` in which the value of each name (the last op with
/// that location name, see getLocationName) is observed by a placeholder
/// observer, and the names
/// of the observers' runtime slots (qfx-lower-observers numbers every
/// qfx.observe of the module in walk order) with the ops that made them.
struct Instrumented {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  llvm::DenseMap<int64_t, std::string> slotNames;
  std::map<std::string, std::string> opNames;
  std::map<std::string, int64_t> positions;
  std::map<std::string, std::pair<double, int64_t>> qparams;
};

/// The names a pattern absorbed (all but the last of a fused location):
/// the stage has no value of theirs, only ops computing on the way (the int8
/// input of a conv, say, still located at the conv).
std::set<std::string> getAbsorbedNames(mlir::Operation *function) {
  std::set<std::string> absorbed;
  function->walk([&](mlir::Operation *op) {
    if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(op->getLoc())) {
      std::string last = getLocationName(fused);
      for (mlir::Location inner : fused.getLocations())
        if (std::string name = getLocationName(inner); name != last)
          absorbed.insert(name);
    }
  });
  return absorbed;
}

/// The quantized type `op`'s result stands for: its element type, the one
/// qfx-lower recorded on integers (qfx.quantized), or for a quant.dcast the
/// type it dequantizes. Null for plain float or integer values.
mlir::quant::QuantizedType getQuantizedType(mlir::Operation *op) {
  if (auto integerAs =
          op->getAttrOfType<mlir::TypeAttr>(QFXDialect::getQuantizedAttrName()))
    return llvm::dyn_cast<mlir::quant::QuantizedType>(integerAs.getValue());
  mlir::Type type = op->getResult(0).getType();
  if (auto dequantize = llvm::dyn_cast<mlir::quant::DequantizeCastOp>(op))
    type = dequantize.getInput().getType();
  return llvm::dyn_cast<mlir::quant::QuantizedType>(
      llvm::cast<mlir::ShapedType>(type).getElementType());
}

Instrumented instrument(mlir::ModuleOp module, llvm::StringRef entry,
                        Instrumentation what) {
  Instrumented result;
  result.module = module.clone();
  mlir::MLIRContext *context = module.getContext();
  // A float model may have no qfx op yet.
  context->getOrLoadDialect<QFXDialect>();
  context->getOrLoadDialect<mlir::tensor::TensorDialect>();
  auto spec =
      ObserverSpecAttr::get(context, ObserverSpec(ObserverKind::Placeholder));
  llvm::DenseMap<mlir::Operation *, std::string> recorders;
  auto function = result.module->lookupSymbol<mlir::func::FuncOp>(entry);
  if (!function)
    return result;
  // The ops that make a named value, and of each name the last: its value
  // is the one recorded.
  std::set<std::string> absorbed = getAbsorbedNames(function);
  std::map<std::string, mlir::Operation *> last;
  llvm::SmallVector<mlir::Operation *> named;
  function.walk([&](mlir::Operation *op) {
    if (llvm::isa<ObserveOp>(op) || op->getNumResults() != 1 ||
        op->hasTrait<mlir::OpTrait::ConstantLike>())
      return;
    std::string name = getLocationName(op->getLoc());
    auto type =
        llvm::dyn_cast<mlir::RankedTensorType>(op->getResult(0).getType());
    if (name.empty() || absorbed.count(name) || !type ||
        (!getQuantizedType(op) &&
         !llvm::isa<mlir::FloatType>(type.getElementType())))
      return;
    last[name] = op;
    named.push_back(op);
  });
  for (mlir::Operation *op : named) {
    std::string name = getLocationName(op->getLoc());
    if (last[name] != op)
      continue;
    mlir::Value value = op->getResult(0);
    auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
    mlir::quant::QuantizedType quantized = getQuantizedType(op);
    auto storedAs =
        llvm::dyn_cast<mlir::quant::QuantizedType>(type.getElementType());
    mlir::OpBuilder builder(context);
    builder.setInsertionPointAfter(op);
    mlir::Location loc = op->getLoc();
    bool isFloat = llvm::isa<mlir::FloatType>(type.getElementType());
    mlir::Value recorded = value;
    if (what == Instrumentation::Values) {
      // Quantized values, and integers standing for them, dequantized.
      if (!isFloat && !storedAs)
        recorded = mlir::quant::StorageCastOp::create(
            builder, loc, type.clone(quantized), recorded);
      if (!isFloat)
        recorded = mlir::quant::DequantizeCastOp::create(
            builder, loc, type.clone(quantized.getExpressedType()), recorded);
    } else {
      // Its first element, as a float: the hook runs once the op is done,
      // at the cost of one element.
      if (storedAs)
        recorded = mlir::quant::StorageCastOp::create(
            builder, loc, type.clone(storedAs.getStorageType()), recorded);
      int64_t rank = type.getRank();
      llvm::SmallVector<int64_t> zeros(rank, 0), ones(rank, 1);
      recorded = mlir::tensor::ExtractSliceOp::create(
          builder, loc,
          mlir::RankedTensorType::get(
              ones, llvm::cast<mlir::ShapedType>(recorded.getType())
                        .getElementType()),
          recorded, mlir::ValueRange(), mlir::ValueRange(), mlir::ValueRange(),
          zeros, ones, ones);
      auto sliceType = llvm::cast<mlir::RankedTensorType>(recorded.getType());
      if (!llvm::isa<mlir::FloatType>(sliceType.getElementType()))
        recorded = mlir::tosa::CastOp::create(
            builder, loc, sliceType.clone(builder.getF32Type()), recorded);
    }
    auto recorder = ObserveOp::create(builder, loc, recorded,
                                      builder.getI64IntegerAttr(0), spec,
                                      /*stats=*/nullptr);
    if (recorded == value)
      value.replaceAllUsesExcept(recorder, recorder);
    recorders[recorder] = name;
    result.opNames[name] = op->getName().getStringRef().str();
    result.positions[name] = static_cast<int64_t>(recorders.size());
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

InstrumentedModel::InstrumentedModel(
    CompiledModel model, llvm::DenseMap<int64_t, std::string> slotNames,
    std::map<std::string, ValueInfo> values)
    : model(std::move(model)), slotNames(std::move(slotNames)),
      values(std::move(values)) {}

llvm::Expected<InstrumentedModel>
InstrumentedModel::compileInstrumented(mlir::ModuleOp module,
                                       CompileOptions options, bool marks) {
  llvm::Expected<std::string> entry = findEntry(module, options.entry);
  if (!entry)
    return entry.takeError();
  Instrumented instrumented = instrument(
      module, *entry, marks ? Instrumentation::Marks : Instrumentation::Values);
  options.entry = *entry;
  options.calibrate = true;
  auto model = CompiledModel::compile(*instrumented.module, options);
  if (!model)
    return model.takeError();
  std::map<std::string, ValueInfo> values;
  for (const auto &[name, opName] : instrumented.opNames) {
    ValueInfo &info = values[name];
    info.opName = opName;
    info.position = instrumented.positions[name];
    if (auto it = instrumented.qparams.find(name);
        it != instrumented.qparams.end())
      info.qparams = it->second;
  }
  return InstrumentedModel(std::move(*model), std::move(instrumented.slotNames),
                           std::move(values));
}

llvm::Expected<RecordingModel> RecordingModel::compile(mlir::ModuleOp module,
                                                       CompileOptions options) {
  auto instrumented = compileInstrumented(module, std::move(options), false);
  if (!instrumented)
    return instrumented.takeError();
  return RecordingModel(std::move(*instrumented));
}

std::vector<RecordedValue>
RecordingModel::takeRecorded(Recorder &recorder) const {
  std::vector<RecordedValue> recorded;
  for (auto &[name, value] : recorder.values) {
    const ValueInfo &info = values.at(name);
    recorded.push_back({name, info.opName, info.position,
                        std::move(value.shape), std::move(value.data),
                        info.qparams});
  }
  llvm::sort(recorded, [](const RecordedValue &a, const RecordedValue &b) {
    return a.position < b.position;
  });
  return recorded;
}

llvm::Expected<std::vector<RecordedValue>>
RecordingModel::run(llvm::ArrayRef<NpyArray> inputs,
                    llvm::SmallVectorImpl<NpyArray> &outputs) {
  Recorder recorder(slotNames);
  auto results = model.run(inputs, &recorder);
  if (!results)
    return results.takeError();
  outputs.assign(std::make_move_iterator(results->begin()),
                 std::make_move_iterator(results->end()));
  return takeRecorded(recorder);
}

llvm::Expected<std::vector<RecordedValue>>
RecordingModel::run(llvm::ArrayRef<const void *> inputs,
                    llvm::ArrayRef<void *> results) {
  Recorder recorder(slotNames);
  if (llvm::Error error = model.run(inputs, results, &recorder))
    return std::move(error);
  return takeRecorded(recorder);
}

/// The float values of `quantized`, a constant of integers stored as
/// `type` (per tensor or per axis): (q - zero point) * scale in float32.
static std::vector<float> dequantizeConstant(mlir::DenseElementsAttr quantized,
                                             mlir::quant::QuantizedType type) {
  auto shaped = llvm::cast<mlir::ShapedType>(quantized.getType());
  std::vector<float> values;
  values.reserve(shaped.getNumElements());
  bool isSigned = type.isSigned();
  auto perAxis = llvm::dyn_cast<mlir::quant::UniformQuantizedPerAxisType>(type);
  auto perTensor = llvm::dyn_cast<mlir::quant::UniformQuantizedType>(type);
  int64_t inner = 1, axisSize = 1;
  if (perAxis) {
    int32_t axis = perAxis.getQuantizedDimension();
    axisSize = shaped.getDimSize(axis);
    for (int64_t d = axis + 1; d < shaped.getRank(); ++d)
      inner *= shaped.getDimSize(d);
  }
  int64_t index = 0;
  for (const llvm::APInt &q : quantized.getValues<llvm::APInt>()) {
    int64_t stored = isSigned ? q.getSExtValue() : q.getZExtValue();
    double scale = 1;
    int64_t zeroPoint = 0;
    if (perAxis) {
      int64_t channel = (index / inner) % axisSize;
      scale = perAxis.getScales()[channel];
      zeroPoint = perAxis.getZeroPoints()[channel];
    } else if (perTensor) {
      scale = perTensor.getScale();
      zeroPoint = perTensor.getZeroPoint();
    }
    values.push_back(static_cast<float>(stored - zeroPoint) *
                     static_cast<float>(scale));
    ++index;
  }
  return values;
}

llvm::Expected<std::vector<RecordedValue>>
qfx::extractWeights(mlir::ModuleOp module, llvm::StringRef entry) {
  llvm::Expected<std::string> entryName = findEntry(module, entry);
  if (!entryName)
    return entryName.takeError();
  auto function = module.lookupSymbol<mlir::func::FuncOp>(*entryName);
  std::vector<RecordedValue> weights;
  auto add = [&](mlir::Operation *op, llvm::ArrayRef<int64_t> shape,
                 std::vector<float> data,
                 std::optional<std::pair<double, int64_t>> qparams) {
    RecordedValue weight;
    weight.name = getLocationName(op->getLoc());
    weight.opName = op->getName().getStringRef().str();
    weight.position = static_cast<int64_t>(weights.size());
    weight.shape.assign(shape.begin(), shape.end());
    weight.data = std::move(data);
    weight.qparams = qparams;
    weights.push_back(std::move(weight));
  };
  function.walk([&](mlir::Operation *op) {
    mlir::DenseElementsAttr constant;
    if (auto observe = llvm::dyn_cast<ObserveOp>(op)) {
      if (!mlir::matchPattern(observe.getInput(),
                              mlir::m_Constant(&constant)) ||
          !constant.getElementType().isF32())
        return;
      auto values = constant.getValues<float>();
      add(op, constant.getType().getShape(),
          std::vector<float>(values.begin(), values.end()), std::nullopt);
      return;
    }
    auto dequantize = llvm::dyn_cast<mlir::quant::DequantizeCastOp>(op);
    if (!dequantize)
      return;
    auto storage =
        dequantize.getInput().getDefiningOp<mlir::quant::StorageCastOp>();
    if (!storage ||
        !mlir::matchPattern(storage.getInput(), mlir::m_Constant(&constant)) ||
        !llvm::isa<mlir::IntegerType>(constant.getElementType()))
      return;
    auto type = llvm::cast<mlir::quant::QuantizedType>(
        llvm::cast<mlir::ShapedType>(dequantize.getInput().getType())
            .getElementType());
    std::optional<std::pair<double, int64_t>> qparams;
    if (auto uniform = llvm::dyn_cast<mlir::quant::UniformQuantizedType>(type))
      qparams = {uniform.getScale(), uniform.getZeroPoint()};
    add(op, constant.getType().getShape(), dequantizeConstant(constant, type),
        qparams);
  });
  return weights;
}

/// Observers that time: the time since the previous named value goes to
/// this one.
class ProfilingModel::Timer : public ObservationSink {
public:
  using Clock = std::chrono::steady_clock;
  explicit Timer(const llvm::DenseMap<int64_t, std::string> &names)
      : names(names), last(Clock::now()) {}

  void observe(int64_t slot, llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<float> data) override {
    auto now = Clock::now();
    auto it = names.find(slot);
    if (it == names.end())
      return;
    seconds[it->second] += std::chrono::duration<double>(now - last).count();
    last = now;
  }

  /// The times, in program order of `values`, then "(rest)" until now.
  std::vector<LayerTime>
  finish(const std::map<std::string, ValueInfo> &values) {
    double rest = std::chrono::duration<double>(Clock::now() - last).count();
    std::vector<std::pair<int64_t, LayerTime>> ordered;
    for (const auto &[name, time] : seconds) {
      const ValueInfo &info = values.at(name);
      ordered.push_back({info.position, {name, info.opName, time}});
    }
    llvm::sort(ordered,
               [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<LayerTime> times;
    for (auto &[position, time] : ordered)
      times.push_back(std::move(time));
    times.push_back({"(rest)", "", rest});
    return times;
  }

private:
  const llvm::DenseMap<int64_t, std::string> &names;
  Clock::time_point last;
  std::map<std::string, double> seconds;
};

llvm::Expected<ProfilingModel> ProfilingModel::compile(mlir::ModuleOp module,
                                                       CompileOptions options) {
  auto instrumented = compileInstrumented(module, std::move(options), true);
  if (!instrumented)
    return instrumented.takeError();
  return ProfilingModel(std::move(*instrumented));
}

llvm::Expected<std::vector<LayerTime>>
ProfilingModel::run(llvm::ArrayRef<const void *> inputs,
                    llvm::ArrayRef<void *> results) {
  Timer timer(slotNames);
  if (llvm::Error error = model.run(inputs, results, &timer))
    return std::move(error);
  return timer.finish(values);
}

llvm::Expected<std::vector<LayerTime>>
ProfilingModel::run(llvm::ArrayRef<NpyArray> inputs,
                    llvm::SmallVectorImpl<NpyArray> &outputs) {
  Timer timer(slotNames);
  auto results = model.run(inputs, &timer);
  if (!results)
    return results.takeError();
  std::vector<LayerTime> times = timer.finish(values);
  outputs.assign(std::make_move_iterator(results->begin()),
                 std::make_move_iterator(results->end()));
  return times;
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
qfx::buildShadowStage(mlir::ModuleOp floatStage, mlir::ModuleOp int8Stage,
                      llvm::StringRef entry) {
  llvm::Expected<std::string> entryName = findEntry(int8Stage, entry);
  if (!entryName)
    return makeError("the int8 stage: " +
                     llvm::toString(entryName.takeError()));
  auto floatFunction = floatStage.lookupSymbol<mlir::func::FuncOp>(*entryName);
  if (!floatFunction || floatFunction.isExternal())
    return makeError("the float stage has no function @" + *entryName);
  mlir::OwningOpRef<mlir::ModuleOp> shadow = int8Stage.clone();
  auto function = shadow->lookupSymbol<mlir::func::FuncOp>(*entryName);
  if (floatFunction.getFunctionType().getInputs() !=
      function.getFunctionType().getInputs())
    return makeError("the float and int8 stages of @" + *entryName +
                     " take different arguments");
  mlir::MLIRContext *context = shadow->getContext();
  std::set<std::string> absorbed = getAbsorbedNames(function);
  llvm::SmallVector<mlir::Operation *> int8Ops;
  for (mlir::Operation &op : function.getBody().front().without_terminator())
    int8Ops.push_back(&op);

  // The float stage's ops first, on the same arguments; its value of each
  // name (the last op's) is kept, then its ops lose their names, so that
  // only the int8 ops are recorded.
  mlir::IRMapping mapping;
  for (auto [from, to] :
       llvm::zip_equal(floatFunction.getArguments(), function.getArguments()))
    mapping.map(from, to);
  mlir::OpBuilder builder(context);
  builder.setInsertionPointToStart(&function.getBody().front());
  std::map<std::string, Value> floatValues;
  for (mlir::Operation &op :
       floatFunction.getBody().front().without_terminator()) {
    mlir::Operation *clone = builder.clone(op, mapping);
    std::string name = getLocationName(op.getLoc());
    auto type = clone->getNumResults() == 1
                    ? llvm::dyn_cast<mlir::RankedTensorType>(
                          clone->getResult(0).getType())
                    : nullptr;
    if (!name.empty() && type &&
        llvm::isa<mlir::FloatType>(type.getElementType()) &&
        !clone->hasTrait<mlir::OpTrait::ConstantLike>())
      floatValues[name] = clone->getResult(0);
    clone->walk([&](mlir::Operation *inner) {
      inner->setLoc(mlir::UnknownLoc::get(context));
    });
  }

  // Each int8 value of a pattern (its quantized type recorded by qfx-lower)
  // is, for the ops of the patterns using it, the float stage's value of the
  // same name quantized to that type.
  for (mlir::Operation *op : int8Ops) {
    auto quantizedAs =
        op->getAttrOfType<mlir::TypeAttr>(QFXDialect::getQuantizedAttrName());
    std::string name = getLocationName(op->getLoc());
    if (!quantizedAs || name.empty() || absorbed.count(name) ||
        op->getNumResults() != 1)
      continue;
    auto it = floatValues.find(name);
    Value result = op->getResult(0);
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(result.getType());
    if (it == floatValues.end() || !type ||
        llvm::cast<mlir::RankedTensorType>(it->second.getType()).getShape() !=
            type.getShape())
      continue;
    // Unnamed: the pattern's own value stays the one recorded.
    builder.setInsertionPointAfter(op);
    auto unknown = mlir::UnknownLoc::get(context);
    auto quantizedType = type.clone(quantizedAs.getValue());
    Value quantized = mlir::quant::QuantizeCastOp::create(
        builder, unknown, quantizedType, it->second);
    Value stored =
        mlir::quant::StorageCastOp::create(builder, unknown, type, quantized);
    result.replaceUsesWithIf(stored, [&](mlir::OpOperand &use) {
      mlir::Operation *user = use.getOwner();
      return user != stored.getDefiningOp() &&
             getLocationName(user->getLoc()) != name;
    });
  }
  return shadow;
}

llvm::Expected<std::vector<ValueComparison>>
qfx::compareStages(mlir::ModuleOp baseline, mlir::ModuleOp compared,
                   llvm::StringRef entry, llvm::ArrayRef<NpyArray> inputs) {
  struct Run {
    std::map<std::string, RecordedValue> values;
    llvm::SmallVector<NpyArray> outputs;
  };
  llvm::Expected<std::string> entryName = findEntry(baseline, entry);
  if (!entryName)
    return makeError("the baseline: " + llvm::toString(entryName.takeError()));
  Run runs[2];
  for (auto [run, module, which] :
       llvm::zip_equal(runs, std::array{baseline, compared},
                       std::array{"the baseline", "the compared stage"})) {
    CompileOptions options;
    options.entry = *entryName;
    auto model = RecordingModel::compile(module, options);
    if (!model)
      return makeError(llvm::Twine(which) + ": " +
                       llvm::toString(model.takeError()));
    if (llvm::Error err = model->getModel().checkInputs(inputs))
      return makeError(llvm::Twine(which) + ": " +
                       llvm::toString(std::move(err)));
    auto recorded = model->run(inputs, run.outputs);
    if (!recorded)
      return recorded.takeError();
    for (RecordedValue &value : *recorded)
      run.values[value.name] = std::move(value);
  }

  std::vector<ValueComparison> report;
  for (const auto &[name, value] : runs[0].values) {
    auto other = runs[1].values.find(name);
    if (other == runs[1].values.end() || other->second.shape != value.shape)
      continue;
    report.push_back(compareValues(name, other->second.opName, value.shape,
                                   value.data, other->second.data));
    report.back().position = other->second.position;
    report.back().baselineQParams = value.qparams;
    report.back().comparedQParams = other->second.qparams;
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
