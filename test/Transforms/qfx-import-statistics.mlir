// RUN: quant-opt %s --split-input-file --qfx-import-statistics --verify-diagnostics | FileCheck %s

// PyTorch's statistics reach qfx's observers through the argument attribute,
// a layout transpose, a fused region's yield and a shared observer id; the
// weight's per-channel statistics are computed from the constant; the tags
// are gone afterwards.

// CHECK-LABEL: func.func @imported
// CHECK-SAME: (%{{.*}}: tensor<1x2x2x2xf32>)
// CHECK-NOT: qfx.torch_observer
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 2.000000e+00>)
// CHECK: qfx.observe %{{.*}} id 1 spec({{.*}}per_channel_minmax{{.*}}) stats(#qfx.per_channel_minmax<min = [-3.000000e+00, 0.000000e+00], max = [1.000000e+00, 4.000000e+00]>)
// CHECK: qfx.observe %{{.*}} id 2 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = 0.000000e+00, max = 5.000000e-01>)
// CHECK: qfx.observe %{{.*}} id 2 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = 0.000000e+00, max = 5.000000e-01>)
func.func @imported(%x: tensor<1x2x2x2xf32> {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 2.0>}}) -> tensor<1x2xf32> {
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %0 = qfx.observe %t id 0 spec(#qfx.observer<minmax>) : tensor<1x2x2x2xf32>
  %w = "tosa.const"() <{values = dense<[[[[1.0, -3.0]]], [[[0.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %1 = qfx.observe %w id 1 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 0>) : tensor<2x1x1x2xf32>
  %2 = qfx.fused "conv2d_relu"(%0, %1, %b) : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%a: tensor<1x2x2x2xf32>, %k: tensor<2x1x1x2xf32>, %c: tensor<2xf32>):
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %v = tosa.conv2d %a, %k, %c, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
    %r = tosa.clamp %v {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32, qfx.torch_observer = {name = "activation_post_process_1", type = "MinMaxObserver", stats = #qfx.minmax<min = 0.0, max = 0.5>}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    qfx.yield %r : tensor<1x2x2x2xf32>
  }
  %3 = qfx.observe %2 id 2 spec(#qfx.observer<minmax>) : tensor<1x2x2x2xf32>
  %s = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %m = tosa.reduce_max %3 {axis = 1 : i32} : (tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
  %n = tosa.reduce_max %m {axis = 2 : i32, qfx.torch_observer = {name = "activation_post_process_1", type = "MinMaxObserver", stats = #qfx.minmax<min = 0.0, max = 0.5>}} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32>
  %r = tosa.reshape %n, %s : (tensor<1x1x1x2xf32>, !tosa.shape<2>) -> tensor<1x2xf32>
  %4 = qfx.observe %r id 2 spec(#qfx.observer<minmax>) : tensor<1x2xf32>
  return %4 : tensor<1x2xf32>
}

// -----

// A weight of a QAT model carries its fake quantizer's statistics (the
// exporter ran it on the float weight, as convert_fx does): they win over the
// constant's own (here min -3, max 4).
// CHECK-LABEL: func.func @qat_weight
// CHECK-NOT: qfx.torch_observer
// CHECK: qfx.observe %{{.*}} id 0 spec({{.*}}per_channel_minmax{{.*}}) stats(#qfx.per_channel_minmax<min = [-2.000000e+00, -1.000000e+00], max = [5.000000e-01, 3.000000e+00]>)
func.func @qat_weight() -> tensor<2x1x1x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, -3.0]]], [[[0.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> {qfx.torch_observer = {name = "conv.weight_fake_quant", type = "FusedMovingAvgObsFakeQuantize", stats = #qfx.per_channel_minmax<min = [-2.0, -1.0], max = [0.5, 3.0]>}} : () -> tensor<2x1x1x2xf32>
  %0 = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 0>) : tensor<2x1x1x2xf32>
  return %0 : tensor<2x1x1x2xf32>
}

// -----

// A histogram observer takes PyTorch's histogram; fixed-qparams observers
// need none.

// CHECK-LABEL: func.func @histogram
// CHECK: stats(#qfx.histogram<min = -1.000000e+00, max = 1.000000e+00, counts = [1.000000e+00, 0.000000e+00, 3.000000e+00]>)
// CHECK: qfx.observe %{{.*}} id 1 spec(#qfx.observer<fixed_qparams{{.*}}>) :
func.func @histogram(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.tanh %x {qfx.torch_observer = {name = "activation_post_process_0", type = "HistogramObserver", stats = #qfx.histogram<min = -1.0, max = 1.0, counts = [1.0, 0.0, 3.0]>}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = qfx.observe %0 id 0 spec(#qfx.observer<histogram, bins = 3>) : tensor<4xf32>
  %2 = tosa.sigmoid %1 {qfx.torch_observer = {name = "activation_post_process_1", type = "FixedQParamsObserver"}} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = qfx.observe %2 id 1 spec(#qfx.observer<fixed_qparams, scale = 3.906250e-03, zero_point = 0>) : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// A PyTorch observer no qfx observer takes gets a remark.

func.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{qfx does not observe the value PyTorch's activation_post_process_0 (MinMaxObserver) observes}}
  %0 = tosa.tanh %x {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 1.0>}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{the value is produced by tosa.tanh}}
  %0 = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{no statistics for observer id 0 #qfx.observer<minmax>: PyTorch's model has no observer of this value (no qfx.torch_observer on the op producing it), it is not a constant, and no observer it shares its qparams with has statistics}}
  %1 = qfx.observe %0 id 0 spec(#qfx.observer<minmax>) : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A value PyTorch records no observer for, made by ops that share their
// input's qparams (F.interpolate written as reshapes and tiles: PyTorch
// observes only its input and its result, with one shared observer), takes
// the statistics of its id.

// CHECK-LABEL: func.func @shared_without_a_record
// CHECK-COUNT-3: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 2.000000e+00>)
func.func @shared_without_a_record(%x: tensor<1x2xf32> {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 2.0>}}) -> tensor<2x2xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<1x2xf32>
  %1 = tosa.tanh %0 : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %2 = qfx.observe %1 id 0 spec(#qfx.observer<minmax>) : tensor<1x2xf32>
  %m2 = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %3 = tosa.tile %2, %m2 {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 2.0>}} : (tensor<1x2xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  %4 = qfx.observe %3 id 0 spec(#qfx.observer<minmax>) : tensor<2x2xf32>
  return %4 : tensor<2x2xf32>
}

// -----

// A reshaped constant is a constant (a depthwise weight with a channel
// multiplier, observed as [KH, KW, C*M]): its own statistics, per channel of
// the reshaped value.
// CHECK-LABEL: func.func @reshaped_weight
// CHECK: stats(#qfx.per_channel_minmax<min = [-1.000000e+00, 0.000000e+00], max = [1.000000e+00, 3.000000e+00]>)
func.func @reshaped_weight() -> tensor<2x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[1.0, 0.0]], [[-1.0, 3.0]]]> : tensor<2x1x2xf32>}> : () -> tensor<2x1x2xf32>
  %s = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %w, %s : (tensor<2x1x2xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  %0 = qfx.observe %r id 0 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 1>) : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A constant sharing an observer id with a value PyTorch observed (ViT's
// class token concatenated with the patches: PyTorch's cat shares one
// observer among its inputs and output, which saw the constant too) takes
// PyTorch's statistics, not its own (min 3, max 4), in either order.

// CHECK-LABEL: func.func @shared_with_a_constant
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 4.000000e+00>)
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 4.000000e+00>)
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 4.000000e+00>)
func.func @shared_with_a_constant(%x: tensor<1x2xf32>) -> tensor<2x2xf32> {
  %c = "tosa.const"() <{values = dense<[[3.0, 4.0]]> : tensor<1x2xf32>}> : () -> tensor<1x2xf32>
  %0 = qfx.observe %c id 0 spec(#qfx.observer<minmax>) : tensor<1x2xf32>
  %t = tosa.tanh %x {qfx.torch_observer = {name = "activation_post_process_1", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 4.0>}} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %1 = qfx.observe %t id 0 spec(#qfx.observer<minmax>) : tensor<1x2xf32>
  %2 = tosa.concat %0, %1 {axis = 0 : i32, qfx.torch_observer = {name = "activation_post_process_1", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 4.0>}} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %3 = qfx.observe %2 id 0 spec(#qfx.observer<minmax>) : tensor<2x2xf32>
  return %3 : tensor<2x2xf32>
}

// -----

// Two constants sharing an id without a PyTorch observer must agree.
func.func @shared_constants_differ() -> (tensor<2xf32>, tensor<2xf32>) {
  %c = "tosa.const"() <{values = dense<[3.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %d = "tosa.const"() <{values = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = qfx.observe %c id 0 spec(#qfx.observer<minmax>) : tensor<2xf32>
  // expected-error @+1 {{observer id 0 shares its qparams with the observer at}}
  %1 = qfx.observe %d id 0 spec(#qfx.observer<minmax>) : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @wrong_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.tanh %x {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 1.0>}} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{the statistics of PyTorch's observer activation_post_process_0 (MinMaxObserver) do not fit qfx's observer #qfx.observer<histogram>}}
  %1 = qfx.observe %0 id 0 spec(#qfx.observer<histogram>) : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @no_stats(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.tanh %x {qfx.torch_observer = {name = "activation_post_process_0", type = "FixedQParamsObserver"}} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{PyTorch's observer of this value, activation_post_process_0 (FixedQParamsObserver), keeps no statistics, but qfx's observer #qfx.observer<minmax> needs them}}
  %1 = qfx.observe %0 id 0 spec(#qfx.observer<minmax>) : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @shared_differ(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tosa.tanh %x {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 1.0>}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = qfx.observe %0 id 0 spec(#qfx.observer<minmax>) : tensor<4xf32>
  %2 = tosa.sigmoid %x {qfx.torch_observer = {name = "activation_post_process_1", type = "MinMaxObserver", stats = #qfx.minmax<min = 0.0, max = 1.0>}} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{observer id 0 shares its qparams with the observer at}}
  %3 = qfx.observe %2 id 0 spec(#qfx.observer<minmax>) : tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// PyTorch's observer after an op that keeps its input's qparams (a reshape
// of the observed input here) sets no qparam of its converted model, which
// runs the op on the quantized input: where its statistics differ from the
// id's (PyTorch's prepare can leave it apart from the input's, as when a
// later cat shares the input's observer with another value), it takes the
// id's.
// CHECK-LABEL: func.func @kept_qparams_take_the_ids
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 2.000000e+00>)
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 2.000000e+00>)
func.func @kept_qparams_take_the_ids(%x: tensor<1x4xf32> {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 2.0>}}) -> tensor<2x2xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<1x4xf32>
  %s = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %0, %s {qfx.torch_observer = {name = "activation_post_process_1", type = "MinMaxObserver", stats = #qfx.minmax<min = 0.0, max = 1.0>}} : (tensor<1x4xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  %1 = qfx.observe %r id 0 spec(#qfx.observer<minmax>) : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// Such an observer may even be another value's fixed-qparams observer (a
// later cat shares it, after a sigmoid): it keeps no statistics, and the
// observer takes the id's.
// CHECK-LABEL: func.func @kept_qparams_without_statistics
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 2.000000e+00>)
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 2.000000e+00>)
func.func @kept_qparams_without_statistics(%x: tensor<1x4xf32> {qfx.torch_observer = {name = "activation_post_process_0", type = "MinMaxObserver", stats = #qfx.minmax<min = -1.0, max = 2.0>}}) -> tensor<2x2xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<1x4xf32>
  %s = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %0, %s {qfx.torch_observer = {name = "activation_post_process_1", type = "FixedQParamsObserver"}} : (tensor<1x4xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  %1 = qfx.observe %r id 0 spec(#qfx.observer<minmax>) : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
