// RUN: quant-opt %s --qfx-lower="requantization=integer" --verify-diagnostics | FileCheck %s

// With requantization=integer a slice into other qparams is a tosa.rescale,
// whose scale must be representable: 2^40 is not. (A slice has no row in
// the table: its output has the observer's qparams. With PyTorch's engines'
// requantization it is PyTorch's float op, computed in float32.)
!t = !quant.uniform<i8:f32, 0.5:0>

// CHECK-LABEL: func.func @scale_range
// CHECK: quant.qcast
func.func @scale_range(%arg0: tensor<4x!t>) -> tensor<4x!quant.uniform<i8:f32, 4.5474735088646412E-13>> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  %start = tosa.const_shape {values = dense<0> : tensor<1xindex>} : () -> !tosa.shape<1>
  %size = tosa.const_shape {values = dense<4> : tensor<1xindex>} : () -> !tosa.shape<1>
  // expected-remark @+1 {{runs in float: the requantization scale 1.099512e+12 is outside tosa.rescale's range}}
  %m = tosa.slice %x, %start, %size : (tensor<4xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<4xf32>
  %q = quant.qcast %m : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 4.5474735088646412E-13>>
  return %q : tensor<4x!quant.uniform<i8:f32, 4.5474735088646412E-13>>
}
