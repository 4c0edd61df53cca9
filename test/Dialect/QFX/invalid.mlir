// RUN: quant-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown observer 'minimax', expected one of minmax, moving_average_minmax, per_channel_minmax, moving_average_per_channel_minmax, histogram, placeholder, noop, fixed_qparams, reuse_input}}
func.func private @f() attributes {a = #qfx.observer<minimax>}

// -----

// expected-error @+1 {{unknown observer argument 'bin'}}
func.func private @f() attributes {a = #qfx.observer<histogram, bin = 4>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: takes no argument 'bins' (MinMaxObserver has no such parameter)}}
func.func private @f() attributes {a = #qfx.observer<minmax, bins = 4>}

// -----

// expected-error @+1 {{'dtype' is given twice}}
func.func private @f() attributes {a = #qfx.observer<minmax, dtype = qint8, dtype = quint8>}

// -----

// expected-error @+1 {{unknown dtype 'int8', expected one of quint8, qint8, qint32, quint4x2, float16, float32}}
func.func private @f() attributes {a = #qfx.observer<minmax, dtype = int8>}

// -----

// expected-error @+1 {{unknown qscheme 'per_tensor', expected one of per_tensor_affine, per_tensor_symmetric, per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams}}
func.func private @f() attributes {a = #qfx.observer<minmax, qscheme = per_tensor>}

// -----

// expected-error @+1 {{expected true or false}}
func.func private @f() attributes {a = #qfx.observer<minmax, reduce_range = 1>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: expected quant_min < quant_max, got [0, 0]}}
func.func private @f() attributes {a = #qfx.observer<minmax, quant_min = 0, quant_max = 0>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: the range [0, 300] is outside quint8's range [0, 255]}}
func.func private @f() attributes {a = #qfx.observer<minmax, quant_min = 0, quant_max = 300>}

// -----

// expected-error @+1 {{invalid #qfx.observer: histogram observer: the range [-8, 7] is outside quint8's range [0, 255]}}
func.func private @f() attributes {a = #qfx.observer<histogram, quant_min = -8, quant_max = 7>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: the range [1, 255] must include 0}}
func.func private @f() attributes {a = #qfx.observer<minmax, quant_min = 1, quant_max = 255>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: quant_min and quant_max must be given together}}
func.func private @f() attributes {a = #qfx.observer<minmax, quant_max = 127>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: expected qscheme per_tensor_affine or per_tensor_symmetric, got per_channel_affine}}
func.func private @f() attributes {a = #qfx.observer<minmax, qscheme = per_channel_affine>}

// -----

// expected-error @+1 {{invalid #qfx.observer: per_channel_minmax observer: expected a per-channel qscheme, got per_tensor_symmetric}}
func.func private @f() attributes {a = #qfx.observer<per_channel_minmax, qscheme = per_tensor_symmetric>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: cannot reduce range for symmetric quantization with quint8}}
func.func private @f() attributes {a = #qfx.observer<minmax, qscheme = per_tensor_symmetric, reduce_range = true>}

// -----

// expected-error @+1 {{invalid #qfx.observer: histogram observer: expected dtype quint8, qint8, qint32 or quint4x2, got float16}}
func.func private @f() attributes {a = #qfx.observer<histogram, dtype = float16>}

// -----

// expected-error @+1 {{invalid #qfx.observer: minmax observer: expected eps > 0, got -1}}
func.func private @f() attributes {a = #qfx.observer<minmax, eps = -1.0>}

// -----

// expected-error @+1 {{invalid #qfx.observer: moving_average_minmax observer: expected 0 < averaging_constant <= 1, got 0}}
func.func private @f() attributes {a = #qfx.observer<moving_average_minmax, averaging_constant = 0.0>}

// -----

// expected-error @+1 {{invalid #qfx.observer: histogram observer: expected bins >= 1, got 0}}
func.func private @f() attributes {a = #qfx.observer<histogram, bins = 0>}

// -----

// expected-error @+1 {{invalid #qfx.observer: histogram observer: expected upsample_rate >= 1, got -2}}
func.func private @f() attributes {a = #qfx.observer<histogram, upsample_rate = -2>}

// -----

// expected-error @+1 {{invalid #qfx.observer: histogram observer: expected bins < 2^30, got 1073741824}}
func.func private @f() attributes {a = #qfx.observer<histogram, bins = 1073741824>}

// -----

// expected-error @+1 {{invalid #qfx.observer: histogram observer: expected bins * upsample_rate <= 2^32, got 1024 * 4194305}}
func.func private @f() attributes {a = #qfx.observer<histogram, bins = 1024, upsample_rate = 4194305>}

// -----

// expected-error @+1 {{integer value too large}}
func.func private @f() attributes {a = #qfx.observer<histogram, bins = 9223372036854775808>}

// -----

// expected-error @+1 {{invalid #qfx.observer: fixed_qparams observer: scale and zero_point are required}}
func.func private @f() attributes {a = #qfx.observer<fixed_qparams, scale = 0.5>}

// -----

// expected-error @+1 {{invalid #qfx.observer: fixed_qparams observer: expected scale > 0, got 0}}
func.func private @f() attributes {a = #qfx.observer<fixed_qparams, scale = 0.0, zero_point = 0>}

// -----

// expected-error @+1 {{invalid #qfx.observer: fixed_qparams observer: zero_point 128 is outside [-128, 127]}}
func.func private @f() attributes {a = #qfx.observer<fixed_qparams, scale = 0.5, zero_point = 128, dtype = qint8, quant_min = -128, quant_max = 127>}

// -----

// expected-error @+1 {{invalid #qfx.observer: reuse_input observer: takes no argument 'dtype' (ReuseInputObserver has no such parameter)}}
func.func private @f() attributes {a = #qfx.observer<reuse_input, dtype = quint8>}

// -----

// expected-error @+1 {{invalid #qfx.observer: noop observer: takes no argument 'qscheme' (NoopObserver has no such parameter)}}
func.func private @f() attributes {a = #qfx.observer<noop, qscheme = per_tensor_affine>}

// -----

// expected-error @+1 {{unknown dtype constraint 'quant_min', expected quant_min_lower_bound, quant_max_upper_bound, scale_min_lower_bound or scale_max_upper_bound}}
func.func private @f() attributes {a = #qfx.dtype<quint8, quant_min = 0>}

// -----

// expected-error @+1 {{invalid #qfx.dtype: quant_max_upper_bound 255 is outside qint8's range [-128, 127]}}
func.func private @f() attributes {a = #qfx.dtype<qint8, quant_max_upper_bound = 255>}

// -----

// expected-error @+1 {{invalid #qfx.dtype: expected quant_min_lower_bound < quant_max_upper_bound, got 100 and 100}}
func.func private @f() attributes {a = #qfx.dtype<quint8, quant_min_lower_bound = 100, quant_max_upper_bound = 100>}

// -----

// expected-error @+1 {{invalid #qfx.dtype: expected scale_min_lower_bound > 0, got -1}}
func.func private @f() attributes {a = #qfx.dtype<quint8, scale_min_lower_bound = -1.0>}

// -----

// expected-error @+1 {{invalid #qfx.dtype: expected scale_min_lower_bound <= scale_max_upper_bound, got 1 and 0.5}}
func.func private @f() attributes {a = #qfx.dtype<quint8, scale_min_lower_bound = 1.0, scale_max_upper_bound = 0.5>}

// -----

// expected-error @+1 {{invalid #qfx.dtype: float32 takes no quantization range or scale bounds}}
func.func private @f() attributes {a = #qfx.dtype<float32, quant_min_lower_bound = 0>}

// -----

// expected-error @+1 {{expected ','}}
func.func private @f() attributes {a = #qfx.qconfig<activation = #qfx.observer<minmax>>}

// -----

// expected-error @+1 {{#qfx.minmax expected min <= max, got 2 > 1}}
func.func private @f() attributes {a = #qfx.minmax<min = 2.0, max = 1.0>}

// -----

// expected-error @+1 {{#qfx.minmax min and max must be finite, got -inf and 1}}
func.func private @f() attributes {a = #qfx.minmax<min = 0xFF800000, max = 1.0>}

// -----

// expected-error @+1 {{#qfx.per_channel_minmax has 2 minimums but 1 maximums}}
func.func private @f() attributes {a = #qfx.per_channel_minmax<min = [0.0, 1.0], max = [1.0]>}

// -----

// expected-error @+1 {{#qfx.per_channel_minmax needs at least one channel}}
func.func private @f() attributes {a = #qfx.per_channel_minmax<min = [], max = []>}

// -----

// expected-error @+1 {{#qfx.per_channel_minmax channel 1 expected min <= max, got 3 > 2}}
func.func private @f() attributes {a = #qfx.per_channel_minmax<min = [0.0, 3.0], max = [1.0, 2.0]>}

// -----

// expected-error @+1 {{#qfx.histogram bin 1 expected a finite count, got nan}}
func.func private @f() attributes {a = #qfx.histogram<min = 0.0, max = 1.0, counts = [1.0, 0x7FC00000]>}

// -----

// expected-error @+1 {{#qfx.histogram needs at least one bin}}
func.func private @f() attributes {a = #qfx.histogram<min = 0.0, max = 1.0, counts = []>}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op ch_axis 2 is not a dimension of the rank-2 input}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<per_channel_minmax, ch_axis = 2>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op ch_axis -3 is not a dimension of the rank-2 input}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<moving_average_per_channel_minmax, ch_axis = -3>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op has statistics for 3 channels but the input has 4 along ch_axis 1}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<per_channel_minmax, ch_axis = 1>) stats(#qfx.per_channel_minmax<min = [0.0, 0.0, 0.0], max = [1.0, 1.0, 1.0]>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op a per_channel_minmax observer's stats must be #qfx.per_channel_minmax}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<per_channel_minmax>) stats(#qfx.minmax<min = 0.0, max = 1.0>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op a minmax observer's stats must be #qfx.minmax}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) stats(#qfx.histogram<min = 0.0, max = 1.0, counts = [1.0]>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op has a histogram of 2 bins but the observer has bins = 2048}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<histogram>) stats(#qfx.histogram<min = 0.0, max = 1.0, counts = [1.0, 2.0]>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op a histogram observer's stats must be #qfx.histogram}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<histogram>) stats(#qfx.minmax<min = 0.0, max = 1.0>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op a placeholder observer collects no statistics}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder>) stats(#qfx.minmax<min = 0.0, max = 1.0>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.observe' op attribute 'id' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = qfx.observe %x id -1 spec(#qfx.observer<minmax>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xi8>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'qfx.observe' op operand #0 must be tensor of floating-point values}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

func.func @f(%x: tensor<2x4xf16>) -> tensor<2x4xf16> {
  // expected-error @+1 {{'qfx.fake_quant' op quantized type expresses 'f32' but the input's element type is 'f16'}}
  %0 = qfx.fake_quant %x as !quant.uniform<u8:f32, 0.1:128> : tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.fake_quant' op has 3 scales but the input has 4 channels along dimension 1}}
  %0 = qfx.fake_quant %x as !quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}> : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.fake_quant' op quantized dimension 2 is not a dimension of the rank-2 input}}
  %0 = qfx.fake_quant %x as !quant.uniform<i8:f32:2, {0.1, 0.2}> : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'qfx.fake_quant' op expected a !quant.uniform type, got '!quant.any<i8:f32>'}}
  %0 = qfx.fake_quant %x as !quant.any<i8:f32> : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'qfx.fused' op body arguments must match the operands: expected ('tensor<2xf32>'), got ('tensor<3xf32>')}}
  qfx.fused "p" (%x) : (tensor<2xf32>) -> () {
  ^bb0(%a: tensor<3xf32>):
    qfx.yield
  }
  return
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = qfx.fused "p" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{'qfx.yield' op yields () but the enclosing qfx.fused returns ('tensor<2xf32>')}}
    qfx.yield
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = qfx.fused "p" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    %c = tosa.cast %a : (tensor<2xf32>) -> tensor<2xf16>
    // expected-error @+1 {{'qfx.yield' op yields ('tensor<2xf16>') but the enclosing qfx.fused returns ('tensor<2xf32>')}}
    qfx.yield %c : tensor<2xf16>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = qfx.fused "p" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    // The body is isolated from above: weights and inputs must be operands.
    // expected-error @+1 {{using value defined outside the region}}
    qfx.yield %x : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'qfx.yield' op expects parent op to be one of 'qfx.fused, qfx.composite'}}
  qfx.yield %x : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'qfx.choose_qparams' op the range [1, 255] must include 0}}
  %s, %z = qfx.choose_qparams %x range [1, 255] : tensor<2xf32> -> tensor<f32>, tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'qfx.choose_qparams' op expected quant_min < quant_max, got [0, 0]}}
  %s, %z = qfx.choose_qparams %x range [0, 0] : tensor<2xf32> -> tensor<f32>, tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'qfx.choose_qparams' op the range [0, 4294967295] does not fit the i32 zero point}}
  %s, %z = qfx.choose_qparams %x range [0, 4294967295] : tensor<2xf32> -> tensor<f32>, tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<2xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{'qfx.quantize' op result shape must match the input's: 'tensor<2xf32>' vs 'tensor<3xui8>'}}
  %q = qfx.quantize %x, %s, %z : (tensor<2xf32>, tensor<f32>, tensor<i32>) -> tensor<3xui8>
  return
}

// -----

func.func @f(%x: tensor<2xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{'qfx.quantize' op result #0 must be tensor of 8-bit signless integer or 8-bit unsigned integer or 32-bit signless integer values}}
  %q = qfx.quantize %x, %s, %z : (tensor<2xf32>, tensor<f32>, tensor<i32>) -> tensor<2xi16>
  return
}

// -----

func.func @f(%x: tensor<2xf32>, %s: tensor<1xf32>, %z: tensor<i32>) {
  // expected-error @+1 {{'qfx.quantize' op operand #1 must be 0D tensor of 32-bit float or 64-bit float values}}
  %q = qfx.quantize %x, %s, %z : (tensor<2xf32>, tensor<1xf32>, tensor<i32>) -> tensor<2xui8>
  return
}

// -----

func.func @f(%q: tensor<2xui8>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{'qfx.dequantize' op result shape must match the input's: 'tensor<2xui8>' vs 'tensor<4xf32>'}}
  %x = qfx.dequantize %q, %s, %z : (tensor<2xui8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.origin' must be a non-empty string naming the PyTorch type, e.g. "torch.nn.Conv2d"}}
  %0 = tosa.sigmoid %x {qfx.origin = 3 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op unknown qfx attribute 'qfx.origins', expected 'qfx.origin', 'qfx.backend', 'qfx.engine', 'qfx.target', 'qfx.module_name', 'qfx.node_name', 'qfx.qconfig', 'qfx.pattern', 'qfx.quantized', 'qfx.tensor_operand', 'qfx.part_of', 'qfx.torch_kernel', 'qfx.qnnpack_pool' or 'qfx.torch_observer'}}
  %0 = tosa.sigmoid %x {qfx.origins = "torch.nn.Sigmoid"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.torch_observer' must be a dictionary {name = "<module name>", type = "<PyTorch observer class>"} with optional stats = #qfx.minmax, #qfx.per_channel_minmax or #qfx.histogram}}
  %0 = tosa.sigmoid %x {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = 1.0 : f32}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.torch_observer' must be a dictionary}}
  %0 = tosa.sigmoid %x {qfx.torch_observer = {name = "", type = "MinMaxObserver"}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.torch_observer' must be a dictionary}}
  %0 = tosa.sigmoid %x {qfx.torch_observer = {name = "a", type = "MinMaxObserver", scale = 1.0 : f32}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op region 0 argument 0: attribute 'qfx.torch_observer' must be a dictionary}}
func.func @f(%x: tensor<4xf32> {qfx.torch_observer = "activation_post_process_0"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op region 0 argument 0: unknown qfx argument attribute 'qfx.origin', expected 'qfx.torch_observer' or 'qfx.index_bound'}}
func.func @f(%x: tensor<4xf32> {qfx.origin = "x"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.qconfig' must be a #qfx.qconfig or the string "none"}}
  %0 = tosa.sigmoid %x {qfx.qconfig = "None"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.pattern' must be an array of 1 to 3 op names, e.g. ["tosa.conv2d", "tosa.clamp"]}}
  %0 = tosa.sigmoid %x {qfx.pattern = []} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.pattern' must be an array of 1 to 3 op names}}
  %0 = tosa.sigmoid %x {qfx.pattern = ["a", "b", "c", "d"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// (The observe loads the qfx dialect, which verifies its attributes.)
func.func @f(%x: tensor<4xi8>, %f: tensor<4xf32>) -> tensor<4xi8> {
  %o = qfx.observe %f id 0 spec(#qfx.observer<minmax>) : tensor<4xf32>
  // expected-error @+1 {{'tosa.clamp' op attribute 'qfx.quantized' must be a quantized type whose storage type is the element type of the op's one result}}
  %0 = tosa.clamp %x {min_val = 0 : i8, max_val = 10 : i8, qfx.quantized = i8} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @f(%x: tensor<4xi8>, %f: tensor<4xf32>) -> tensor<4xi8> {
  %o = qfx.observe %f id 0 spec(#qfx.observer<minmax>) : tensor<4xf32>
  // expected-error @+1 {{'tosa.clamp' op attribute 'qfx.quantized' must be a quantized type whose storage type is the element type of the op's one result}}
  %0 = tosa.clamp %x {min_val = 0 : i8, max_val = 10 : i8, qfx.quantized = !quant.uniform<i16:f32, 0.5>} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'qfx.composite' op body arguments must match the operands: expected ('tensor<2xf32>'), got ('tensor<3xf32>')}}
  %0 = qfx.composite "torch.nn.Hardswish" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<3xf32>):
    qfx.yield %a : tensor<3xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = qfx.composite "torch.nn.Hardswish" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{'qfx.yield' op yields () but the enclosing qfx.composite returns ('tensor<2xf32>')}}
    qfx.yield
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'qfx.composite' op needs the name of the PyTorch op}}
  %0 = qfx.composite "" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    qfx.yield %a : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

// A 3-D transposed conv names its weight (operand 1) and bias (operand 2).
func.func @f(%x: tensor<1x2x2x2x3xf32>, %w: tensor<4x1x1x1x3xf32>) -> tensor<1x2x2x2x4xf32> {
  // expected-error @+1 {{'qfx.composite' op torch.nn.ConvTranspose3d expects 3 operands of ranks 5, 5, 1}}
  %0 = qfx.composite "torch.nn.ConvTranspose3d" (%x, %w) : (tensor<1x2x2x2x3xf32>, tensor<4x1x1x1x3xf32>) -> tensor<1x2x2x2x4xf32> {
  ^bb0(%a: tensor<1x2x2x2x3xf32>, %b: tensor<4x1x1x1x3xf32>):
    %c = "tosa.const"() <{values = dense<0.0> : tensor<1x2x2x2x4xf32>}> : () -> tensor<1x2x2x2x4xf32>
    qfx.yield %c : tensor<1x2x2x2x4xf32>
  }
  return %0 : tensor<1x2x2x2x4xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // The body is isolated from above: %x must be an operand.
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = qfx.composite "torch.nn.Hardswish" () : () -> tensor<2xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    qfx.yield %x : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.module_name' must be a string naming a PyTorch module or FX node}}
  %0 = tosa.sigmoid %x {qfx.module_name = ["layer1"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.node_name' needs 'qfx.module_name', the module the node is in}}
  %0 = tosa.sigmoid %x {qfx.node_name = "sigmoid"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.backend' must be a non-empty string on a builtin.module}}
  %0 = tosa.sigmoid %x {qfx.backend = "x86"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'builtin.module' op attribute 'qfx.target' must be a non-empty string on a builtin.module}}
module attributes {qfx.target = 3 : i32} {
}

// -----

// An engine PyTorch does not have (qfx-prepare's `engine`).
// expected-error @+1 {{'builtin.module' op attribute 'qfx.engine' is 'tosa', expected x86, fbgemm, qnnpack or onednn}}
module attributes {qfx.engine = "tosa"} {
}

// -----

// expected-error @+1 {{'func.func' op region 0 argument 0: attribute 'qfx.index_bound' must be a positive integer on an integer tensor argument}}
func.func @f(%ids: tensor<4xf32> {qfx.index_bound = 10 : i64}) -> tensor<4xf32> {
  return %ids : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op region 0 argument 0: attribute 'qfx.index_bound' must be a positive integer on an integer tensor argument}}
func.func @f(%ids: tensor<4xi64> {qfx.index_bound = 0 : i64}) -> tensor<4xi64> {
  return %ids : tensor<4xi64>
}

// -----

// expected-error @+1 {{'func.func' op region 0 argument 0: unknown qfx argument attribute 'qfx.index_bounds', expected 'qfx.torch_observer' or 'qfx.index_bound'}}
func.func @f(%ids: tensor<4xi64> {qfx.index_bounds = 10 : i64}) -> tensor<4xi64> {
  return %ids : tensor<4xi64>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.tensor_operand' must be a unit attribute of a constant}}
  %0 = tosa.sigmoid %x {qfx.tensor_operand} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A registered composite's verifier checks its composite_attributes
// (qfx/Config/Composites.h): a mean needs its axes.
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'qfx.composite' op torch.mean needs composite_attributes `axes` (array<i64: ...>)}}
  %0 = qfx.composite "torch.mean" (%x) : (tensor<2x4xf32>) -> tensor<2x1xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<2x4xf32>) -> tensor<2x1xf32>
    qfx.yield %s : tensor<2x1xf32>
  }
  return %0 : tensor<2x1xf32>
}

// -----

// An attribute of the wrong kind.
func.func @f(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'qfx.composite' op torch.nn.BatchNorm2d's `eps` must be a float, got 1 : i64}}
  %0 = qfx.composite "torch.nn.BatchNorm2d" (%x) attributes {composite_attributes = {axis = 3 : i64, eps = 1 : i64, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%a: tensor<1x2x2x2xf32>):
    qfx.yield %a : tensor<1x2x2x2xf32>
  }
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// A name the registry lacks needs nothing but its body.
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = qfx.composite "my.Activation" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    qfx.yield %a : tensor<2xf32>
  }
  // expected-error @+1 {{'qfx.composite' op needs the name of the PyTorch op}}
  %1 = qfx.composite "" (%0) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    qfx.yield %a : tensor<2xf32>
  }
  return %1 : tensor<2xf32>
}

// -----

// An epilogue makes the result int8; without one it is the int32 sums.
func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x16x4xi8>) -> tensor<1x5x4xi8> {
  // expected-error @+1 {{'qfx.contract' op expected an 'i32' result without an epilogue, got 'i8'}}
  %0 = qfx.contract matmul %a, %m : (tensor<1x5x16xi8>, tensor<1x16x4xi8>) -> tensor<1x5x4xi8>
  return %0 : tensor<1x5x4xi8>
}

// -----

func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x15x4xi8>) -> tensor<1x5x4xi32> {
  // expected-error @+1 {{'qfx.contract' op expected [B, M, K] x [B, K, N] -> [B, M, N], got 'tensor<1x5x16xi8>', 'tensor<1x15x4xi8>' -> 'tensor<1x5x4xi32>'}}
  %0 = qfx.contract matmul %a, %m : (tensor<1x5x16xi8>, tensor<1x15x4xi8>) -> tensor<1x5x4xi32>
  return %0 : tensor<1x5x4xi32>
}

// -----

func.func @f(%x: tensor<1x8x8x3xi8>, %w: tensor<4x3x3x3xi8>) -> tensor<1x8x8x4xi32> {
  // expected-error @+1 {{'qfx.contract' op conv2d needs `dilation` (2 values)}}
  %0 = qfx.contract conv2d %x, %w {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>) -> tensor<1x8x8x4xi32>
  return %0 : tensor<1x8x8x4xi32>
}

// -----

func.func @f(%x: tensor<1x8x8x3xi8>, %w: tensor<4x3x3x3xi8>) -> tensor<1x8x8x4xi32> {
  // expected-error @+1 {{'qfx.contract' op expected an output of 6 along spatial axis 0, got 8}}
  %0 = qfx.contract conv2d %x, %w {pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>) -> tensor<1x8x8x4xi32>
  return %0 : tensor<1x8x8x4xi32>
}

// -----

func.func @f(%x: tensor<1x8x8x3xi8>, %w: tensor<3x3x3x2xi8>) -> tensor<1x8x8x4xi32> {
  // expected-error @+1 {{'qfx.contract' op the weight 'tensor<3x3x3x2xi8>' does not fit the input 'tensor<1x8x8x3xi8>' and result 'tensor<1x8x8x4xi32>'}}
  %0 = qfx.contract depthwise_conv2d %x, %w {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<3x3x3x2xi8>) -> tensor<1x8x8x4xi32>
  return %0 : tensor<1x8x8x4xi32>
}

// -----

func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x16x4xi8>) -> tensor<1x5x4xi8> {
  // expected-error @+1 {{'qfx.contract' op the epilogue's `multipliers` has 3 values for 4 channels}}
  %0 = qfx.contract matmul %a, %m {epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1, 2, 3], shifts = [30, 30, 30], output_zp = 0, min = -128, max = 127>} : (tensor<1x5x16xi8>, tensor<1x16x4xi8>) -> tensor<1x5x4xi8>
  return %0 : tensor<1x5x4xi8>
}

// -----

func.func @f(%a: tensor<1x5x16xf32>, %m: tensor<1x16x4xf32>) -> tensor<1x5x4xf32> {
  // expected-error @+1 {{'qfx.contract' op a float contraction has no zero points and no epilogue}}
  %0 = qfx.contract matmul %a, %m {input_zp = 3 : i64} : (tensor<1x5x16xf32>, tensor<1x16x4xf32>) -> tensor<1x5x4xf32>
  return %0 : tensor<1x5x4xf32>
}

// -----

// expected-error @+1 {{shifts must be in [2, 62], got 70}}
#r = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1], shifts = [70], output_zp = 0, min = -128, max = 127>

// -----

// expected-error @+1 {{expected whole numbers -128 - output_zp <= min <= max <= 127 - output_zp, got [-1.280000e+02, 1.270000e+02] with output_zp -128}}
#q = #qfx.requantize<bias = [], multipliers = [0.5], zero_point = 128.0, min = -128.0, max = 127.0, output_zp = -128>

// -----

func.func @f(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-error @+1 {{'tosa.avg_pool2d' op attribute 'qfx.torch_kernel' must be "avg_pool2d_contiguous" or "adaptive_avg_pool2d_contiguous" on a tosa.avg_pool2d, or "add_scalar_loop" on a tosa.add}}
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, qfx.torch_kernel = "avg_pool2d_nhwc"} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.torch_kernel' must be "avg_pool2d_contiguous" or "adaptive_avg_pool2d_contiguous" on a tosa.avg_pool2d, or "add_scalar_loop" on a tosa.add}}
  %0 = tosa.sigmoid %x {qfx.torch_kernel = "avg_pool2d_contiguous"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.add' op attribute 'qfx.torch_kernel' must be "avg_pool2d_contiguous" or "adaptive_avg_pool2d_contiguous" on a tosa.avg_pool2d, or "add_scalar_loop" on a tosa.add}}
  %0 = tosa.add %x, %x {qfx.torch_kernel = "avg_pool2d_contiguous"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-error @+1 {{'tosa.avg_pool2d' op attribute 'qfx.qnnpack_pool' must be a unit attribute on a tosa.avg_pool2d}}
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, qfx.qnnpack_pool = true} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sigmoid' op attribute 'qfx.qnnpack_pool' must be a unit attribute on a tosa.avg_pool2d}}
  %0 = tosa.sigmoid %x {qfx.qnnpack_pool} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tosa.concat' op attribute 'qfx.part_of' must be a non-empty string naming a PyTorch type, on an op without 'qfx.origin'}}
  %0 = tosa.concat %x, %x {axis = 0 : i32, qfx.origin = "torch.cat", qfx.part_of = "torch.nn.AdaptiveAvgPool2d"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @host_call_both(%x: tensor<2xf32>, %m: memref<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{has results and outs buffers: expected one or the other}}
  %0 = qfx.host_call "f" id 0 (%x) outs(%m) : (tensor<2xf32>, memref<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @host_call_none(%x: tensor<2xf32>) {
  // expected-error @+1 {{has neither results nor outs buffers}}
  qfx.host_call "f" id 0 (%x) : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @host_call_buffer_input(%x: tensor<2xf32>, %m: memref<2xf32>) {
  // expected-error @+1 {{input 0 has type 'tensor<2xf32>': expected a memref (it has outs buffers)}}
  qfx.host_call "f" id 0 (%x) outs(%m) : (tensor<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

func.func @host_call_tensor_input(%m: memref<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{input 0 has type 'memref<2xf32>': expected a ranked tensor (it has results)}}
  %0 = qfx.host_call "f" id 0 (%m) : (memref<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @host_call_dynamic(%x: tensor<?xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{exchanges a value of type 'tensor<?xf32>': expected a static shape of f32, i64, i32 or i1}}
  %0 = qfx.host_call "f" id 0 (%x) : (tensor<?xf32>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

func.func @host_call_id(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'id' failed to satisfy constraint}}
  %0 = qfx.host_call "f" id -1 (%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Packed weights come with their layout.
func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x16x20xi8>, %p: tensor<2x4x64xi8>) -> tensor<1x5x20xi32> {
  // expected-error @+1 {{'qfx.contract' op expected a packed weight and its `weight_packing` together, or neither}}
  %0 = qfx.contract matmul %a, %m packed(%p) : (tensor<1x5x16xi8>, tensor<1x16x20xi8>, tensor<2x4x64xi8>) -> tensor<1x5x20xi32>
  return %0 : tensor<1x5x20xi32>
}

// -----

func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x16x20xi8>, %p: tensor<2x4x64xi8>) -> tensor<1x5x20xi32> {
  // expected-error @+1 {{'qfx.contract' op expected packed weights of shape [2, 5, 64], got 'tensor<2x4x64xi8>'}}
  %0 = qfx.contract matmul %a, %m packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 5>} : (tensor<1x5x16xi8>, tensor<1x16x20xi8>, tensor<2x4x64xi8>) -> tensor<1x5x20xi32>
  return %0 : tensor<1x5x20xi32>
}

// -----

func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x16x20xi8>, %p: tensor<2x3x64xi8>) -> tensor<1x5x20xi32> {
  // expected-error @+1 {{'qfx.contract' op a tap's 16 values do not fit 3 groups of 4}}
  %0 = qfx.contract matmul %a, %m packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 3>} : (tensor<1x5x16xi8>, tensor<1x16x20xi8>, tensor<2x3x64xi8>) -> tensor<1x5x20xi32>
  return %0 : tensor<1x5x20xi32>
}

// -----

func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x16x20xi8>, %p: tensor<2x4x64xi8>) -> tensor<1x5x20xi32> {
  // expected-error @+1 {{'qfx.contract' op a matmul's packed weights have 1 tap, got 2}}
  %0 = qfx.contract matmul %a, %m packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 2, tap_groups = 2>} : (tensor<1x5x16xi8>, tensor<1x16x20xi8>, tensor<2x4x64xi8>) -> tensor<1x5x20xi32>
  return %0 : tensor<1x5x20xi32>
}

// -----

func.func @f(%a: tensor<1x5x16xi8>, %m: tensor<1x16x20xi8>, %p: tensor<2x4x64xi32>) -> tensor<1x5x20xi32> {
  // expected-error @+1 {{'qfx.contract' op expected packed weights of i8 or i16, got 'i32'}}
  %0 = qfx.contract matmul %a, %m packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 4>} : (tensor<1x5x16xi8>, tensor<1x16x20xi8>, tensor<2x4x64xi32>) -> tensor<1x5x20xi32>
  return %0 : tensor<1x5x20xi32>
}

// -----

func.func @f(%a: tensor<2x5x16xi8>, %m: tensor<2x16x20xi8>, %p: tensor<2x4x64xi8>) -> tensor<2x5x20xi32> {
  // expected-error @+1 {{'qfx.contract' op only a matmul of one batch or a conv2d takes packed weights}}
  %0 = qfx.contract matmul %a, %m packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 4>} : (tensor<2x5x16xi8>, tensor<2x16x20xi8>, tensor<2x4x64xi8>) -> tensor<2x5x20xi32>
  return %0 : tensor<2x5x20xi32>
}

// -----

func.func @f(%x: tensor<1x8x8x3xi8>, %w: tensor<4x3x3x3xi8>, %t: tensor<1x6x64xi8>) -> tensor<1x6x6x4xi32> {
  // expected-error @+1 {{'qfx.contract' op a convolution's packed weights have 1, KH (3) or KH * KW (9) taps, got 2}}
  %0 = qfx.contract conv2d %x, %w packed(%t) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 2, tap_groups = 3>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<1x6x64xi8>) -> tensor<1x6x6x4xi32>
  return %0 : tensor<1x6x6x4xi32>
}

// -----

func.func @f(%x: tensor<1x8x8x3xi8>, %w: tensor<4x3x3x3xi8>, %t: tensor<1x6x64xi8>) -> tensor<1x6x6x4xi32> {
  // expected-error @+1 {{'qfx.contract' op a tap's 9 values do not fit 2 groups of 4}}
  %0 = qfx.contract conv2d %x, %w packed(%t) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 3, tap_groups = 2>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<1x6x64xi8>) -> tensor<1x6x6x4xi32>
  return %0 : tensor<1x6x6x4xi32>
}

// -----

// expected-error @+1 {{lanes, group, taps and tap_groups must be positive, got 16, 0, 1, 4}}
func.func @f() attributes {p = #qfx.weight_packing<lanes = 16, group = 0, taps = 1, tap_groups = 4>} {
  return
}

// -----

func.func @f(%a: tensor<1x5x16xf32>, %m: tensor<1x16x20xf32>, %p: tensor<2x16x16xi8>) -> tensor<1x5x20xf32> {
  // expected-error @+1 {{'qfx.contract' op expected packed weights of f32, got 'i8'}}
  %0 = qfx.contract matmul %a, %m packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 1, taps = 1, tap_groups = 16>} : (tensor<1x5x16xf32>, tensor<1x16x20xf32>, tensor<2x16x16xi8>) -> tensor<1x5x20xf32>
  return %0 : tensor<1x5x20xf32>
}
