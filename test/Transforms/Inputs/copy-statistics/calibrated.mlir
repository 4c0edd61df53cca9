// The model of qfx-copy-statistics.mlir calibrated at batch 1: a shared id
// (1), a per-channel weight observer (2), and a fixed-qparams observer
// (3: not calibrating, no statistics).
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.0, max = 2.0>) : tensor<1x4xf32>
  %1 = qfx.observe %0 id 1 spec(#qfx.observer<histogram, bins = 4>) stats(#qfx.histogram<min = 0.0, max = 2.0, counts = [1.0, 2.0, 3.0, 4.0]>) : tensor<1x4xf32>
  %2 = qfx.observe %1 id 1 spec(#qfx.observer<histogram, bins = 4>) stats(#qfx.histogram<min = 0.0, max = 2.0, counts = [1.0, 2.0, 3.0, 4.0]>) : tensor<1x4xf32>
  %w = "tosa.const"() <{values = dense<[[1.0, -3.0], [0.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %3 = qfx.observe %w id 2 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 0>) stats(#qfx.per_channel_minmax<min = [-3.0, 0.0], max = [1.0, 4.0]>) : tensor<2x2xf32>
  %s = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %4 = tosa.slice %2, %s, %s : (tensor<1x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x2xf32>
  %5 = qfx.observe %4 id 3 spec(#qfx.observer<fixed_qparams, scale = 0.0078125, zero_point = 0>) : tensor<1x2xf32>
  return %5 : tensor<1x2xf32>
}
