func.func @observe(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %h: tensor<?x8xf16>)
    -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<?x8xf16>) {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<2x4xf32>
  %1 = qfx.observe %0 id 1 spec(#qfx.observer<moving_average_minmax, averaging_constant = 0.5, qscheme = per_tensor_symmetric, dtype = qint8>) stats(#qfx.minmax<min = -1.5, max = 2.25>) : tensor<2x4xf32>
  %2 = qfx.observe %w id 2 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = -2>) stats(#qfx.per_channel_minmax<min = [-1.0, -2.0, 0.0], max = [1.0, 0.5, 0.0]>) : tensor<3x4xf32>
  %3 = qfx.observe %h id 3 spec(#qfx.observer<histogram, bins = 4, upsample_rate = 16, reduce_range = true>) stats(#qfx.histogram<min = -1.0, max = 3.0, counts = [1.0, -2.86102295E-6, 2.5, 2.0]>) : tensor<?x8xf16>
  %4 = qfx.observe %1 id 1 spec(#qfx.observer<moving_average_minmax, averaging_constant = 0.5, qscheme = per_tensor_symmetric, dtype = qint8>) : tensor<2x4xf32>
  return %4, %2, %3 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<?x8xf16>
}

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

func.func @fake_quant(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<*xf32>) {
  %0 = qfx.fake_quant %x as !quant.uniform<u8:f32, 0.05:128> : tensor<2x4xf32>
  %1 = qfx.fake_quant %w as !quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}> : tensor<3x4xf32>
  %u = tensor.cast %x : tensor<2x4xf32> to tensor<*xf32>
  %2 = qfx.fake_quant %u as !quant.uniform<u8<0:15>:f32, 0.1:3> : tensor<*xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<*xf32>
}

func.func @fused(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x4xf32> {
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

func.func @fused_no_results(%x: tensor<2xf32>) {
  qfx.fused "sink" (%x) : (tensor<2xf32>) -> () {
  ^bb0(%a: tensor<2xf32>):
    qfx.yield
  }
  return
}

func.func @dynamic(%x: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xi8>) {
  %scale, %zp = qfx.choose_qparams %x range [0, 127] : tensor<?x16xf32> -> tensor<f32>, tensor<i32>
  %q = qfx.quantize %x, %scale, %zp : (tensor<?x16xf32>, tensor<f32>, tensor<i32>) -> tensor<?x16xui8>
  %d = qfx.dequantize %q, %scale, %zp : (tensor<?x16xui8>, tensor<f32>, tensor<i32>) -> tensor<?x16xf32>
  %s = qfx.quantize %x, %scale, %zp : (tensor<?x16xf32>, tensor<f32>, tensor<i32>) -> tensor<?x16xi8>
  return %d, %s : tensor<?x16xf32>, tensor<?x16xi8>
}

func.func @origin(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %x {qfx.origin = "torch.nn.Sigmoid"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @quantized_integers(%x: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tosa.clamp %x {min_val = -3 : i8, max_val = 127 : i8, qfx.quantized = !quant.uniform<i8:f32, 0.5:-3>} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

func.func @annotations(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %x {qfx.qconfig = "none", qfx.pattern = ["tosa.sigmoid"]} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.tanh %0 {qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax>, weight = #qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>>} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
