//===- QFXDialect.cpp - The qfx dialect -----------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Config/BackendConfig.h"
#include "qfx/Dialect/QFX/IR/QFXAttrs.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace qfx;

#include "qfx/Dialect/QFX/IR/QFXOpsDialect.cpp.inc"

void QFXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "qfx/Dialect/QFX/IR/QFXOps.cpp.inc"
      >();
  registerAttributes();
}

/// Checks a qfx.torch_observer value: {name, type: non-empty strings,
/// stats: observer statistics (optional)}.
static LogicalResult
verifyTorchObserver(Attribute value,
                    llvm::function_ref<mlir::InFlightDiagnostic()> emitError) {
  auto dict = llvm::dyn_cast<mlir::DictionaryAttr>(value);
  auto nonEmptyString = [&](StringRef key) {
    auto s = dict ? dict.getAs<mlir::StringAttr>(key) : nullptr;
    return s && !s.getValue().empty();
  };
  bool statsOk =
      dict && (!dict.get("stats") ||
               llvm::isa<MinMaxAttr, PerChannelMinMaxAttr, HistogramAttr>(
                   dict.get("stats")));
  if (dict && nonEmptyString("name") && nonEmptyString("type") && statsOk &&
      llvm::all_of(dict, [](mlir::NamedAttribute entry) {
        return llvm::is_contained({"name", "type", "stats"},
                                  entry.getName().getValue());
      }))
    return success();
  return emitError() << "attribute '" << QFXDialect::getTorchObserverAttrName()
                     << "' must be a dictionary {name = \"<module name>\", "
                        "type = \"<PyTorch observer class>\"} with optional "
                        "stats = #qfx.minmax, #qfx.per_channel_minmax or "
                        "#qfx.histogram";
}

std::optional<llvm::StringRef> QFXDialect::getEngineName(Operation *module) {
  for (llvm::StringRef name : {getEngineAttrName(), getBackendAttrName()})
    if (auto attr = module->getAttrOfType<mlir::StringAttr>(name))
      return attr.getValue();
  return std::nullopt;
}

LogicalResult QFXDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   mlir::NamedAttribute attr) {
  auto emitError = [&] {
    return op->emitOpError()
           << "region " << regionIndex << " argument " << argIndex << ": ";
  };
  if (attr.getName() == getTorchObserverAttrName())
    return verifyTorchObserver(attr.getValue(), emitError);
  if (attr.getName() == getIndexBoundAttrName()) {
    // The argument's type changes as the function is lowered (a memref, an
    // LLVM pointer); only a tensor's is checked.
    auto bound = llvm::dyn_cast<mlir::IntegerAttr>(attr.getValue());
    auto function = llvm::dyn_cast<mlir::FunctionOpInterface>(op);
    auto tensor = function && argIndex < function.getNumArguments()
                      ? llvm::dyn_cast<mlir::TensorType>(
                            function.getArgumentTypes()[argIndex])
                      : nullptr;
    if (!bound || bound.getInt() <= 0 ||
        (tensor && !tensor.getElementType().isSignlessInteger()))
      return emitError() << "attribute '" << getIndexBoundAttrName()
                         << "' must be a positive integer on an integer "
                            "tensor argument";
    return success();
  }
  return emitError() << "unknown qfx argument attribute '"
                     << attr.getName().getValue() << "', expected '"
                     << getTorchObserverAttrName() << "' or '"
                     << getIndexBoundAttrName() << "'";
}

LogicalResult QFXDialect::verifyOperationAttribute(Operation *op,
                                                   mlir::NamedAttribute attr) {
  if (attr.getName() == getTorchObserverAttrName()) {
    if (op->getNumResults() != 1)
      return op->emitOpError() << "attribute '" << getTorchObserverAttrName()
                               << "' needs an op with one result";
    return verifyTorchObserver(attr.getValue(),
                               [&] { return op->emitOpError(); });
  }
  if (attr.getName() == getOriginAttrName()) {
    auto origin = llvm::dyn_cast<mlir::StringAttr>(attr.getValue());
    if (!origin || origin.getValue().empty())
      return op->emitOpError()
             << "attribute '" << getOriginAttrName()
             << "' must be a non-empty string naming the PyTorch type, e.g. "
                "\"torch.nn.Conv2d\"";
    return success();
  }
  if (attr.getName() == getBackendAttrName() ||
      attr.getName() == getEngineAttrName() ||
      attr.getName() == getTargetAttrName()) {
    auto name = llvm::dyn_cast<mlir::StringAttr>(attr.getValue());
    if (!llvm::isa<mlir::ModuleOp>(op) || !name || name.getValue().empty())
      return op->emitOpError()
             << "attribute '" << attr.getName().getValue()
             << "' must be a non-empty string on a builtin.module";
    if (attr.getName() == getEngineAttrName() && !isEngineName(name))
      return op->emitOpError()
             << "attribute '" << getEngineAttrName() << "' is '"
             << name.getValue() << "', expected x86, fbgemm, qnnpack or onednn";
    return success();
  }
  if (attr.getName() == getModuleNameAttrName() ||
      attr.getName() == getNodeNameAttrName()) {
    if (!llvm::isa<mlir::StringAttr>(attr.getValue()))
      return op->emitOpError()
             << "attribute '" << attr.getName().getValue()
             << "' must be a string naming a PyTorch module or FX node";
    if (attr.getName() == getNodeNameAttrName() &&
        !op->hasAttr(getModuleNameAttrName()))
      return op->emitOpError()
             << "attribute '" << getNodeNameAttrName() << "' needs '"
             << getModuleNameAttrName() << "', the module the node is in";
    return success();
  }
  if (attr.getName() == getQConfigAttrName()) {
    if (llvm::isa<QConfigAttr>(attr.getValue()))
      return success();
    auto none = llvm::dyn_cast<mlir::StringAttr>(attr.getValue());
    if (!none || none.getValue() != "none")
      return op->emitOpError()
             << "attribute '" << getQConfigAttrName()
             << "' must be a #qfx.qconfig or the string \"none\"";
    return success();
  }
  if (attr.getName() == getPatternAttrName()) {
    auto pattern = llvm::dyn_cast<mlir::ArrayAttr>(attr.getValue());
    if (!pattern || pattern.empty() || pattern.size() > 3 ||
        !llvm::all_of(pattern, [](Attribute a) {
          auto s = llvm::dyn_cast<mlir::StringAttr>(a);
          return s && !s.getValue().empty();
        }))
      return op->emitOpError() << "attribute '" << getPatternAttrName()
                               << "' must be an array of 1 to 3 op names, e.g. "
                                  "[\"tosa.conv2d\", \"tosa.clamp\"]";
    return success();
  }
  if (attr.getName() == getQuantizedAttrName()) {
    auto type = llvm::dyn_cast<mlir::TypeAttr>(attr.getValue());
    auto quantized =
        type ? llvm::dyn_cast<mlir::quant::QuantizedType>(type.getValue())
             : nullptr;
    if (!quantized || op->getNumResults() != 1 ||
        mlir::getElementTypeOrSelf(op->getResult(0).getType()) !=
            quantized.getStorageType())
      return op->emitOpError()
             << "attribute '" << getQuantizedAttrName()
             << "' must be a quantized type whose storage type is the "
                "element type of the op's one result";
    return success();
  }
  if (attr.getName() == getTensorOperandAttrName()) {
    if (!llvm::isa<mlir::UnitAttr>(attr.getValue()) ||
        !op->hasTrait<mlir::OpTrait::ConstantLike>())
      return op->emitOpError() << "attribute '" << getTensorOperandAttrName()
                               << "' must be a unit attribute of a constant";
    return success();
  }
  if (attr.getName() == getPartOfAttrName()) {
    auto type = llvm::dyn_cast<mlir::StringAttr>(attr.getValue());
    if (!type || type.getValue().empty() || op->hasAttr(getOriginAttrName()))
      return op->emitOpError()
             << "attribute '" << getPartOfAttrName()
             << "' must be a non-empty string naming a PyTorch type, on an "
                "op without '"
             << getOriginAttrName() << "'";
    return success();
  }
  if (attr.getName() == getTorchKernelAttrName()) {
    auto kernel = llvm::dyn_cast<mlir::StringAttr>(attr.getValue());
    bool pool = llvm::isa<mlir::tosa::AvgPool2dOp>(op) && kernel &&
                (kernel.getValue() == "avg_pool2d_contiguous" ||
                 kernel.getValue() == "adaptive_avg_pool2d_contiguous");
    bool add = llvm::isa<mlir::tosa::AddOp>(op) && kernel &&
               kernel.getValue() == "add_scalar_loop";
    if (!pool && !add)
      return op->emitOpError()
             << "attribute '" << getTorchKernelAttrName()
             << "' must be \"avg_pool2d_contiguous\" or "
                "\"adaptive_avg_pool2d_contiguous\" on a tosa.avg_pool2d, "
                "or \"add_scalar_loop\" on a tosa.add";
    return success();
  }
  if (attr.getName() == getQnnpackPoolAttrName()) {
    if (!llvm::isa<mlir::tosa::AvgPool2dOp>(op) ||
        !llvm::isa<mlir::UnitAttr>(attr.getValue()))
      return op->emitOpError()
             << "attribute '" << getQnnpackPoolAttrName()
             << "' must be a unit attribute on a tosa.avg_pool2d";
    return success();
  }
  return op->emitOpError() << "unknown qfx attribute '"
                           << attr.getName().getValue() << "', expected '"
                           << getOriginAttrName() << "', '"
                           << getBackendAttrName() << "', '"
                           << getEngineAttrName() << "', '"
                           << getTargetAttrName() << "', '"
                           << getModuleNameAttrName() << "', '"
                           << getNodeNameAttrName() << "', '"
                           << getQConfigAttrName() << "', '"
                           << getPatternAttrName() << "', '"
                           << getQuantizedAttrName() << "', '"
                           << getTensorOperandAttrName() << "', '"
                           << getPartOfAttrName() << "', '"
                           << getTorchKernelAttrName() << "', '"
                           << getQnnpackPoolAttrName() << "' or '"
                           << getTorchObserverAttrName() << "'";
}
