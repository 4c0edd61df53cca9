// RUN: quant-opt %s --qfx-lower=backend=%S/Inputs/gelu-backend.json --mlir-print-elementsattrs-with-hex-if-larger=1000 | FileCheck %s
// RUN: quant-opt %s --qfx-lower=backend=%S/Inputs/gelu-backend.json | quant-opt --tosa-attach-target=profiles=pro_int,pro_fp --tosa-validate -o /dev/null

!in = !quant.uniform<u8:f32, 0.03171905130147934:63>
!out = !quant.uniform<u8:f32, 0.016837881878018379:10>

// A GELU a backend quantizes (gelu-backend.json; PyTorch's and qfx's
// built-in tables leave it float) is a 256-entry table of PyTorch's float
// kernel (oneDNN's gelu_erf, as qfx-lower-gelu computes it in native code),
// not of its body's tosa.erf: it equals PyTorch's dequantize -> F.gelu ->
// quantize_per_tensor on every code. The qparams are ConvNeXt's
// (test_convnext_blocks_match_pytorch): code 119 is 1.7762668, its GELU
// 1.70904505, times 1 / 0.016837882 exactly 101.5, so 102 + 10 (stored
// -16); the erff formula's GELU, one ulp less, gave 101 + 10 (-17).
// CHECK-LABEL: func.func @gelu_table
// CHECK: %[[T:.*]] = "tosa.const"() <{values = dense<[-121, -121, -121, -121, -121, -122, -122, -122, -122, -122, -123, -123, -123, -123, -124, -124, -124, -124, -125, -125, -125, -125, -125, -126, -126, -126, -126, -127, -127, -127, -127, -127, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -127, -127, -127, -127, -126, -126, -126, -125, -125, -124, -123, -123, -122, -121, -121, -120, -119, -118, -117, -116, -115, -114, -113, -111, -110, -109, -108, -106, -105, -103, -102, -100, -99, -97, -95, -94, -92, -90, -88, -87, -85, -83, -81, -79, -77, -75, -73, -71, -69, -67, -65, -63, -61, -59, -57, -55, -52, -50, -48, -46, -44, -42, -40, -38, -35, -33, -31, -29, -27, -25, -23, -21, -19, -16, -14, -12, -10, -8, -6, -4, -2, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63, 65, 66, 68, 70, 72, 74, 76, 78, 80, 82, 83, 85, 87, 89, 91, 93, 95, 97, 99, 100, 102, 104, 106, 108, 110, 112, 114, 116, 117, 119, 121, 123, 125, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127]> : tensor<256xi8>}>
// CHECK: tosa.table %{{.*}}, %[[T]]
// CHECK-NOT: qfx.composite
func.func @gelu_table(%arg0: tensor<1x4x!in>) -> tensor<1x4x!out> {
  %x = quant.dcast %arg0 : tensor<1x4x!in> to tensor<1x4xf32>
  %g = qfx.composite "torch.nn.GELU" (%x) : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    %c = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %t = tosa.mul %a, %c, %sh : (tensor<1x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x4xf32>
    %e = tosa.erf %t : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %p = tosa.add %e, %one : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %h = tosa.mul %p, %half, %sh : (tensor<1x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x4xf32>
    %y = tosa.mul %a, %h, %sh : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1xi8>) -> tensor<1x4xf32>
    qfx.yield %y : tensor<1x4xf32>
  }
  %q = quant.qcast %g : tensor<1x4xf32> to tensor<1x4x!out>
  return %q : tensor<1x4x!out>
}

