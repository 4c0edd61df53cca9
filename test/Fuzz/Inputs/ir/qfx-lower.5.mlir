!in = !quant.uniform<i8:f32, 0.0625:0>
!out = !quant.uniform<u8:f32, 0.00390625>

func.func @sigmoid(%arg0: tensor<4x!in>) -> tensor<4x!out> {
  %x = quant.dcast %arg0 : tensor<4x!in> to tensor<4xf32>
  %s = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!out>
  return %q : tensor<4x!out>
}
