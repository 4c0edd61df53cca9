// RUN: quant-opt %s | quant-opt | FileCheck %s
// RUN: quant-opt %s --mlir-print-op-generic | quant-opt | FileCheck %s

// CHECK-LABEL: func.func @observe
func.func @observe(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %h: tensor<?x8xf16>)
    -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<?x8xf16>) {
  // CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) : tensor<2x4xf32>
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<2x4xf32>
  // CHECK: qfx.observe %{{.*}} id 1 spec(#qfx.observer<moving_average_minmax, dtype = qint8, qscheme = per_tensor_symmetric, averaging_constant = 5.000000e-01>) stats(#qfx.minmax<min = -1.500000e+00, max = 2.250000e+00>) : tensor<2x4xf32>
  %1 = qfx.observe %0 id 1 spec(#qfx.observer<moving_average_minmax, averaging_constant = 0.5, qscheme = per_tensor_symmetric, dtype = qint8>) stats(#qfx.minmax<min = -1.5, max = 2.25>) : tensor<2x4xf32>
  // CHECK: qfx.observe %{{.*}} id 2 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = -2>) stats(#qfx.per_channel_minmax<min = [-1.000000e+00, -2.000000e+00, 0.000000e+00], max = [1.000000e+00, 5.000000e-01, 0.000000e+00]>) : tensor<3x4xf32>
  %2 = qfx.observe %w id 2 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = -2>) stats(#qfx.per_channel_minmax<min = [-1.0, -2.0, 0.0], max = [1.0, 0.5, 0.0]>) : tensor<3x4xf32>
  // PyTorch's histogram re-binning can leave tiny negative counts.
  // CHECK: qfx.observe %{{.*}} id 3 spec(#qfx.observer<histogram, reduce_range = true, bins = 4, upsample_rate = 16>) stats(#qfx.histogram<min = -1.000000e+00, max = 3.000000e+00, counts = [1.000000e+00, -2.86102295E-6, 2.500000e+00, 2.000000e+00]>) : tensor<?x8xf16>
  %3 = qfx.observe %h id 3 spec(#qfx.observer<histogram, bins = 4, upsample_rate = 16, reduce_range = true>) stats(#qfx.histogram<min = -1.0, max = 3.0, counts = [1.0, -2.86102295E-6, 2.5, 2.0]>) : tensor<?x8xf16>
  // Two observers that share quantization parameters share an id.
  // CHECK: qfx.observe %{{.*}} id 1 spec(#qfx.observer<moving_average_minmax, dtype = qint8, qscheme = per_tensor_symmetric, averaging_constant = 5.000000e-01>) : tensor<2x4xf32>
  %4 = qfx.observe %1 id 1 spec(#qfx.observer<moving_average_minmax, averaging_constant = 0.5, qscheme = per_tensor_symmetric, dtype = qint8>) : tensor<2x4xf32>
  return %4, %2, %3 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<?x8xf16>
}

// Every observer kind with every argument it takes.
// CHECK-LABEL: func.func @observer_kinds
// CHECK-SAME: a = #qfx.observer<minmax, dtype = quint8, qscheme = per_tensor_affine, reduce_range = false, quant_min = 0, quant_max = 127, eps = 1.000000e-05>
// CHECK-SAME: b = #qfx.observer<moving_average_per_channel_minmax, dtype = quint4x2, qscheme = per_channel_affine_float_qparams, ch_axis = 1, averaging_constant = 1.000000e-01>
// CHECK-SAME: c = #qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>
// CHECK-SAME: d = #qfx.observer<noop, dtype = float16>
// CHECK-SAME: e = #qfx.observer<fixed_qparams, dtype = qint8, qscheme = per_tensor_symmetric, quant_min = -128, quant_max = 127, scale = 7.812500e-03, zero_point = 0>
// CHECK-SAME: f = #qfx.observer<reuse_input>
// CHECK-SAME: g = #qfx.observer<minmax, dtype = qint32>
func.func @observer_kinds() attributes {
    a = #qfx.observer<minmax, dtype = quint8, qscheme = per_tensor_affine, reduce_range = false, quant_min = 0, quant_max = 127, eps = 1.0e-5>,
    b = #qfx.observer<moving_average_per_channel_minmax, dtype = quint4x2, qscheme = per_channel_affine_float_qparams, ch_axis = 1, averaging_constant = 0.1>,
    c = #qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>,
    d = #qfx.observer<noop, dtype = float16>,
    e = #qfx.observer<fixed_qparams, scale = 0.0078125, zero_point = 0, dtype = qint8, qscheme = per_tensor_symmetric, quant_min = -128, quant_max = 127>,
    f = #qfx.observer<reuse_input>,
    g = #qfx.observer<minmax, dtype = qint32>} {
  return
}

// CHECK-LABEL: func.func @dtypes_and_qconfig
// CHECK-SAME: a = #qfx.dtype<qint8>
// CHECK-SAME: b = #qfx.dtype<quint8, quant_min_lower_bound = 0, quant_max_upper_bound = 127, scale_min_lower_bound = 1.52587890625E-5, scale_max_upper_bound = 1.000000e+00>
// CHECK-SAME: c = #qfx.dtype<float32>
// CHECK-SAME: d = #qfx.dtype<float16>
// CHECK-SAME: e = #qfx.dtype<qint32>
// CHECK-SAME: f = #qfx.dtype<quint4x2, quant_max_upper_bound = 15>
// CHECK-SAME: q = #qfx.qconfig<activation = #qfx.observer<histogram, reduce_range = true>, weight = #qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric>>
func.func @dtypes_and_qconfig() attributes {
    a = #qfx.dtype<qint8>,
    b = #qfx.dtype<quint8, scale_max_upper_bound = 1.0, quant_max_upper_bound = 127, quant_min_lower_bound = 0, scale_min_lower_bound = 1.52587890625e-05>,
    c = #qfx.dtype<float>,
    d = #qfx.dtype<half>,
    e = #qfx.dtype<qint32>,
    f = #qfx.dtype<quint4x2, quant_max_upper_bound = 15>,
    q = #qfx.qconfig<activation = #qfx.observer<histogram, reduce_range = true>,
                     weight = #qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric>>} {
  return
}

// CHECK-LABEL: func.func @fake_quant
func.func @fake_quant(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<*xf32>) {
  // CHECK: qfx.fake_quant %{{.*}} as !quant.uniform<u8:f32, 5.000000e-02:128> : tensor<2x4xf32>
  %0 = qfx.fake_quant %x as !quant.uniform<u8:f32, 0.05:128> : tensor<2x4xf32>
  // CHECK: qfx.fake_quant %{{.*}} as !quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01}> : tensor<3x4xf32>
  %1 = qfx.fake_quant %w as !quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}> : tensor<3x4xf32>
  // Custom ranges (quint4x2) are storage bounds of the quantized type.
  // CHECK: qfx.fake_quant %{{.*}} as !quant.uniform<u8<0:15>:f32, 1.000000e-01:3> : tensor<*xf32>
  %u = tensor.cast %x : tensor<2x4xf32> to tensor<*xf32>
  %2 = qfx.fake_quant %u as !quant.uniform<u8<0:15>:f32, 0.1:3> : tensor<*xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @fused
func.func @fused(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  // CHECK: %[[R:.*]] = qfx.fused "conv2d_relu"(%{{.*}}, %{{.*}}, %{{.*}}) attributes {qfx.origin = "torch.nn.intrinsic.ConvReLU2d"} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  // CHECK: ^bb0(%[[A:.*]]: tensor<1x8x8x3xf32>, %[[K:.*]]: tensor<4x3x3x3xf32>, %[[C:.*]]: tensor<4xf32>):
  // CHECK: %[[CONV:.*]] = tosa.conv2d %[[A]], %[[K]], %[[C]]
  // CHECK: %[[RELU:.*]] = tosa.clamp %[[CONV]]
  // CHECK: qfx.yield %[[RELU]] : tensor<1x6x6x4xf32>
  // CHECK: return %[[R]]
  %r = qfx.fused "conv2d_relu" (%x, %w, %b) attributes {qfx.origin = "torch.nn.intrinsic.ConvReLU2d"}
      : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  ^bb0(%a: tensor<1x8x8x3xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
    %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %conv = tosa.conv2d %a, %k, %c, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
    %relu = tosa.clamp %conv {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
    qfx.yield %relu : tensor<1x6x6x4xf32>
  }
  return %r : tensor<1x6x6x4xf32>
}

// CHECK-LABEL: func.func @composite
func.func @composite(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: %[[R:.*]] = qfx.composite "torch.nn.LeakyReLU"(%{{.*}}) attributes {composite_attributes = {negative_slope = 1.000000e-01 : f32}, qfx.origin = "torch.nn.functional.leaky_relu"} : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: ^bb0(%[[A:.*]]: tensor<2x4xf32>):
  // CHECK: %[[M:.*]] = tosa.maximum %[[A]]
  // CHECK: qfx.yield %[[M]] : tensor<2x4xf32>
  // CHECK: return %[[R]]
  %r = qfx.composite "torch.nn.LeakyReLU" (%x) attributes {composite_attributes = {negative_slope = 0.1 : f32}, qfx.origin = "torch.nn.functional.leaky_relu"}
      : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %slope = "tosa.const"() {values = dense<0.1> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
    %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %s = tosa.mul %a, %slope, %shift : (tensor<2x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x4xf32>
    %m = tosa.maximum %a, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    qfx.yield %m : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

// A fused op may have no results (and its yield then has no operands).
// CHECK-LABEL: func.func @fused_no_results
// CHECK: qfx.fused "sink"(%{{.*}}) : (tensor<2xf32>) -> () {
// CHECK: qfx.yield{{$}}
func.func @fused_no_results(%x: tensor<2xf32>) {
  qfx.fused "sink" (%x) : (tensor<2xf32>) -> () {
  ^bb0(%a: tensor<2xf32>):
    qfx.yield
  }
  return
}

// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%x: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xi8>) {
  // CHECK: %[[S:.*]], %[[ZP:.*]] = qfx.choose_qparams %{{.*}} range [0, 127] : tensor<?x16xf32> -> tensor<f32>, tensor<i32>
  %scale, %zp = qfx.choose_qparams %x range [0, 127] : tensor<?x16xf32> -> tensor<f32>, tensor<i32>
  // CHECK: %[[Q:.*]] = qfx.quantize %{{.*}}, %[[S]], %[[ZP]] : (tensor<?x16xf32>, tensor<f32>, tensor<i32>) -> tensor<?x16xui8>
  %q = qfx.quantize %x, %scale, %zp : (tensor<?x16xf32>, tensor<f32>, tensor<i32>) -> tensor<?x16xui8>
  // CHECK: qfx.dequantize %[[Q]], %[[S]], %[[ZP]] : (tensor<?x16xui8>, tensor<f32>, tensor<i32>) -> tensor<?x16xf32>
  %d = qfx.dequantize %q, %scale, %zp : (tensor<?x16xui8>, tensor<f32>, tensor<i32>) -> tensor<?x16xf32>
  // CHECK: qfx.quantize {{.*}} -> tensor<?x16xi8>
  %s = qfx.quantize %x, %scale, %zp : (tensor<?x16xf32>, tensor<f32>, tensor<i32>) -> tensor<?x16xi8>
  return %d, %s : tensor<?x16xf32>, tensor<?x16xi8>
}

// A scale may be PyTorch's double (f64), as oneDNN's dynamic kernels take it.
// CHECK-LABEL: func.func @dynamic_double_scale
// CHECK: qfx.choose_qparams %{{.*}} range [0, 127] : tensor<4xf32> -> tensor<f64>, tensor<i32>
// CHECK: qfx.quantize {{.*}} : (tensor<4xf32>, tensor<f64>, tensor<i32>) -> tensor<4xui8>
// CHECK: qfx.dequantize {{.*}} : (tensor<4xui8>, tensor<f64>, tensor<i32>) -> tensor<4xf32>
func.func @dynamic_double_scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %scale, %zp = qfx.choose_qparams %x range [0, 127] : tensor<4xf32> -> tensor<f64>, tensor<i32>
  %q = qfx.quantize %x, %scale, %zp : (tensor<4xf32>, tensor<f64>, tensor<i32>) -> tensor<4xui8>
  %d = qfx.dequantize %q, %scale, %zp : (tensor<4xui8>, tensor<f64>, tensor<i32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// CHECK-LABEL: func.func @origin
// CHECK: tosa.sigmoid {{.*}} {qfx.origin = "torch.nn.Sigmoid"}
func.func @origin(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %x {qfx.origin = "torch.nn.Sigmoid"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @quantized_integers
// CHECK: tosa.clamp {{.*}} qfx.quantized = !quant.uniform<i8:f32, 5.000000e-01:-3>
func.func @quantized_integers(%x: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tosa.clamp %x {min_val = -3 : i8, max_val = 127 : i8, qfx.quantized = !quant.uniform<i8:f32, 0.5:-3>} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// CHECK-LABEL: func.func @annotations
// CHECK: tosa.sigmoid {{.*}} {qfx.pattern = ["tosa.sigmoid"], qfx.qconfig = "none"}
// CHECK: tosa.tanh {{.*}} {qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax>, weight = #qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>>}
func.func @annotations(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %x {qfx.qconfig = "none", qfx.pattern = ["tosa.sigmoid"]} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.tanh %0 {qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax>, weight = #qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>>} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Contractions: int8 with TOSA's integer requantization, PyTorch's float one,
// or none (the int32 sums); float32; a dynamic number of rows.
// CHECK-LABEL: func.func @contract
func.func @contract(%x: tensor<1x8x8x3xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>,
                    %a: tensor<1x5x16xi8>, %m: tensor<1x16x4xi8>, %d: tensor<3x3x3x2xi8>,
                    %f: tensor<?x5x16xf32>, %fm: tensor<?x16x4xf32>)
    -> (tensor<1x8x8x4xi8>, tensor<1x5x4xi8>, tensor<1x8x8x6xi32>, tensor<?x5x4xf32>) {
  // CHECK: qfx.contract conv2d %{{.*}}, %{{.*}} bias(%{{.*}}) {dilation = array<i64: 1, 1>, epilogue = #qfx.requantize<bias = [], multipliers = [1.230000e-02], zero_point = 1.280000e+02, min = 0.000000e+00, max = 2.550000e+02, output_zp = -128>, input_zp = -3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
  %0 = qfx.contract conv2d %x, %w bias(%b) {input_zp = -3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, epilogue = #qfx.requantize<bias = [], multipliers = [0.0123], zero_point = 128.0, min = 0.0, max = 255.0, output_zp = -128>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x8x8x4xi8>
  // CHECK: qfx.contract matmul %{{.*}}, %{{.*}} {epilogue = #qfx.rescale<fraction_bits = 2, bias = [1, 2, 3, 4], multipliers = [1518500250], shifts = [38], output_zp = -3, min = -128, max = 100>}
  %1 = qfx.contract matmul %a, %m {epilogue = #qfx.rescale<fraction_bits = 2, bias = [1, 2, 3, 4], multipliers = [1518500250], shifts = [38], output_zp = -3, min = -128, max = 100>} : (tensor<1x5x16xi8>, tensor<1x16x4xi8>) -> tensor<1x5x4xi8>
  // CHECK: qfx.contract depthwise_conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, input_zp = 7 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<3x3x3x2xi8>) -> tensor<1x8x8x6xi32>
  %2 = qfx.contract depthwise_conv2d %x, %d {input_zp = 7 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<3x3x3x2xi8>) -> tensor<1x8x8x6xi32>
  // CHECK: qfx.contract matmul %{{.*}}, %{{.*}} : (tensor<?x5x16xf32>, tensor<?x16x4xf32>) -> tensor<?x5x4xf32>
  %3 = qfx.contract matmul %f, %fm : (tensor<?x5x16xf32>, tensor<?x16x4xf32>) -> tensor<?x5x4xf32>
  return %0, %1, %2, %3 : tensor<1x8x8x4xi8>, tensor<1x5x4xi8>, tensor<1x8x8x6xi32>, tensor<?x5x4xf32>
}

// Packed weights (qfx-pack-weights): a matmul's K as one run, a conv2d's
// per tap and per kernel row.
// CHECK-LABEL: func.func @contract_packed
func.func @contract_packed(%a: tensor<1x5x16xi8>, %m: tensor<1x16x20xi8>, %p: tensor<2x4x64xi8>,
                           %x: tensor<1x8x8x3xi8>, %w: tensor<4x3x3x3xi8>, %t: tensor<1x9x64xi8>,
                           %r: tensor<1x15x16xi16>)
    -> (tensor<1x5x20xi32>, tensor<1x6x6x4xi32>, tensor<1x6x6x4xi32>) {
  // CHECK: qfx.contract matmul %{{.*}}, %{{.*}} packed(%{{.*}}) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 4>} : (tensor<1x5x16xi8>, tensor<1x16x20xi8>, tensor<2x4x64xi8>) -> tensor<1x5x20xi32>
  %0 = qfx.contract matmul %a, %m packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 4>} : (tensor<1x5x16xi8>, tensor<1x16x20xi8>, tensor<2x4x64xi8>) -> tensor<1x5x20xi32>
  // CHECK: qfx.contract conv2d %{{.*}}, %{{.*}} packed(%{{.*}}) {{.*}}weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 9, tap_groups = 1>}
  %1 = qfx.contract conv2d %x, %w packed(%t) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 9, tap_groups = 1>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<1x9x64xi8>) -> tensor<1x6x6x4xi32>
  // CHECK: qfx.contract conv2d {{.*}}weight_packing = #qfx.weight_packing<lanes = 8, group = 2, taps = 3, tap_groups = 5>}
  %2 = qfx.contract conv2d %x, %w packed(%r) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, weight_packing = #qfx.weight_packing<lanes = 8, group = 2, taps = 3, tap_groups = 5>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<1x15x16xi16>) -> tensor<1x6x6x4xi32>
  return %0, %1, %2 : tensor<1x5x20xi32>, tensor<1x6x6x4xi32>, tensor<1x6x6x4xi32>
}

// Host calls (graph breaks): tensors in and out, or the buffer form.
// CHECK-LABEL: func.func @host_call
func.func @host_call(%x: tensor<1x10xf32>, %m: memref<1x10xf32>, %v: memref<1x3xf32>,
                     %i: memref<1x3xi64>) -> (tensor<1x3xf32>, tensor<1x3xi64>) {
  // CHECK: %{{.*}}:2 = qfx.host_call "torch.topk" id 0(%{{.*}}) : (tensor<1x10xf32>) -> (tensor<1x3xf32>, tensor<1x3xi64>)
  %0:2 = qfx.host_call "torch.topk" id 0 (%x) : (tensor<1x10xf32>) -> (tensor<1x3xf32>, tensor<1x3xi64>)
  // CHECK: qfx.host_call "torch.topk" id 1(%{{.*}}) outs(%{{.*}}, %{{.*}}) : (memref<1x10xf32>, memref<1x3xf32>, memref<1x3xi64>) -> ()
  qfx.host_call "torch.topk" id 1 (%m) outs(%v, %i) : (memref<1x10xf32>, memref<1x3xf32>, memref<1x3xi64>) -> ()
  return %0#0, %0#1 : tensor<1x3xf32>, tensor<1x3xi64>
}
