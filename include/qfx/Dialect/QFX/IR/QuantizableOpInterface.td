//===- QuantizableOpInterface.td - What quantizing an op needs -*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QUANTIZABLEOPINTERFACE_TD
#define QFX_DIALECT_QFX_IR_QUANTIZABLEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def QFX_QuantizableOpInterface : OpInterface<"QuantizableOpInterface"> {
  let description = [{
    What qfx's passes need to know about an op that a backend pattern can
    quantize, in one place: its weight and bias operands, how its weight's
    elements map to output channels (batch norm folding, per-channel weight
    quantization, bias quantization), how PyTorch's weight axes map to its
    own (a QConfig's `ch_axis`), and the name of the int8 lowering that
    `qfx-lower` applies to a pattern whose main op it is, when the backend
    table's `reference_lowering` names none.

    Models are attached to TOSA ops externally
    (`registerQuantizableOpInterfaceExternalModels`, part of
    `registerQFXDialects`); `qfx.composite` implements it from its name.
  }];
  let cppNamespace = "::qfx";
  let methods = [
    InterfaceMethod<
      "The index of the weight operand, if the op has one.",
      "std::optional<unsigned>", "getWeightOperandIndex", (ins), "",
      "return std::nullopt;">,
    InterfaceMethod<
      "The index of the bias operand, if the op has one (a matmul's bias is "
      "the tosa.add that follows it).",
      "std::optional<unsigned>", "getBiasOperandIndex", (ins), "",
      "return std::nullopt;">,
    InterfaceMethod<
      "The axes of the weight (in its TOSA layout) whose row-major index is "
      "the output channel an element feeds: conv2d [O, KH, KW, I] {0}, "
      "depthwise_conv2d [KH, KW, C, M] {2, 3}, matmul [1, IN, OUT] {2}.",
      "llvm::SmallVector<int64_t>", "getWeightChannelAxes", (ins), "",
      "return {};">,
    InterfaceMethod<
      "For each axis of PyTorch's weight layout after the first (the output "
      "channel, see getWeightChannelAxes), the TOSA weight axis it became, "
      "or -1: conv2d [O, I, KH, KW] -> OHWI gives {3, 1, 2}.",
      "llvm::SmallVector<int64_t>", "getTorchWeightAxes", (ins), "",
      "return {};">,
    InterfaceMethod<
      "The int8 lowering `qfx-lower` applies to a pattern whose main op this "
      "is, when the backend table names none (see docs/convert-and-lower.md "
      "for the kinds); none if it has none.",
      "std::optional<::qfx::LoweringKind>", "getInt8Lowering", (ins), "",
      "return std::nullopt;">,
    InterfaceMethod<
      "Whether PyTorch 1.13's quantized kernel for the op is given its "
      "output's qparams (conv, linear, add, softmax, layer norm: those of the "
      "quantize after it); if not, its output has its input's (copy, shape "
      "and cat ops, whose backend table row shares the input's observer) or "
      "the kernel's fixed ones (sigmoid, tanh, hardsigmoid, whose row fixes "
      "the output's observer), whatever observes the output next.",
      "bool", "takesOutputQParams", (ins), "", "return true;">,
    InterfaceMethod<
      "Whether PyTorch 1.13 folds a batch norm after the op into its weight "
      "when a ReLU follows the batch norm too (its fusion patterns take the "
      "op, the batch norm and the ReLU together: convs, linear); false where "
      "they take the op with the batch norm alone (transposed convs), so "
      "that the longer batch norm + ReLU match wins and the batch norm "
      "stays, fused with the ReLU.",
      "bool", "foldsBatchNormBeforeReLU", (ins), "", "return true;">,
  ];
}

#endif // QFX_DIALECT_QFX_IR_QUANTIZABLEOPINTERFACE_TD
