// RUN: quant-opt %s --qfx-convert -split-input-file -verify-diagnostics

func.func @uncalibrated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'qfx.observe' op has no statistics: calibrate the model first (quant-run --calibrate)}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<histogram>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dynamic_int32(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'qfx.observe' op dynamic quantization to qint32 is not supported; PyTorch quantizes activations dynamically to quint8 or qint8}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = qint32, compute_dtype = quint8>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shared_mismatch(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 3 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.0, max = 1.0>) : tensor<4xf32>
  // expected-error @+1 {{'qfx.observe' op shares id 3 with an observer whose spec or statistics differ}}
  %1 = qfx.observe %0 id 3 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.0, max = 2.0>) : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Float zero points are not a !quant.uniform type: only weights (constants)
// can have them.
func.func @float_qparams(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'qfx.observe' op per_channel_affine_float_qparams is supported for constant weights only}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<per_channel_minmax, qscheme = per_channel_affine_float_qparams>) stats(#qfx.per_channel_minmax<min = [-1.0, 0.0], max = [1.0, 2.0]>) : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @noop_int(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'qfx.observe' op a noop observer of dtype quint8 has nothing to convert to; expected float16 or float32}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<noop, dtype = quint8>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}
