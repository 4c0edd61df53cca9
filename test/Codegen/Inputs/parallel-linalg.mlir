// A requantization of 1x112x112x32 (qfx-parallel-linalg splits it) and a
// clamp of its result (qfx-fuse-elementwise fuses the two).
func.func @main(%x: tensor<1x112x112x32xi8>) -> tensor<1x112x112x32xi8> {
  %m = "tosa.const"() <{values = dense<1273741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x112x112x32xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x112x112x32xi8>
  %c = tosa.clamp %r {min_val = -100 : i8, max_val = 90 : i8} : (tensor<1x112x112x32xi8>) -> tensor<1x112x112x32xi8>
  return %c : tensor<1x112x112x32xi8>
}
