// RUN: quant-opt %s --qfx-prepare 2>/dev/null | FileCheck %s
// RUN: quant-opt %s --qfx-prepare="qconfig-mapping=default:x86 backend=x86" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark
// RUN: quant-opt %s --qfx-prepare="qconfig-mapping=%S/Inputs/tosa-mapping.json backend=tosa" \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=TOSA
// RUN: quant-opt %s --qfx-prepare 2>/dev/null > %t.once.mlir
// RUN: quant-opt %t.once.mlir --qfx-prepare 2>/dev/null > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// qfx-prepare with get_default_qconfig_mapping("x86") on the x86 table:
// histogram activations (reduce_range), per-channel symmetric qint8 weights.

// Preparing an observed model again changes nothing: inputs, outputs and
// weights that are observed already keep their observers.

// Activations in and out of quantized ops, weights per channel (OHWI axis
// 0), biases and zero points float. max_pool2d shares its input's observer;
// concat makes all its inputs and its output share the first input's.
// CHECK-LABEL: func.func @conv_pool_cat
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x2xf32>)
// CHECK-NEXT: %[[XO:.*]] = qfx.observe %[[X]] id 0 spec(#qfx.observer<histogram, reduce_range = true>) : tensor<1x4x4x2xf32>
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<2x1x1x2xf32>}>
// CHECK-DAG: %[[W2:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<2x3x3x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<1.000000e-01> : tensor<2xf32>}>
// CHECK: %[[WO:.*]] = qfx.observe %[[W]] id 1 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 0>)
// CHECK-NEXT: %[[C:.*]] = tosa.conv2d %[[XO]], %[[WO]], %[[B]],
// CHECK-NEXT: %[[CO:.*]] = qfx.observe %[[C]] id 2 spec(#qfx.observer<histogram, reduce_range = true>)
// CHECK-NEXT: %[[P:.*]] = tosa.max_pool2d %[[CO]]
// CHECK-NEXT: %[[PO:.*]] = qfx.observe %[[P]] id 2 spec(#qfx.observer<histogram, reduce_range = true>)
// CHECK-NEXT: %[[W2O:.*]] = qfx.observe %[[W2]] id 3 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 0>)
// CHECK-NEXT: %[[C2:.*]] = tosa.conv2d %[[XO]], %[[W2O]], %[[B]],
// CHECK-NEXT: %[[C2O:.*]] = qfx.observe %[[C2]] id 2 spec(#qfx.observer<histogram, reduce_range = true>)
// CHECK-NEXT: %[[CAT:.*]] = tosa.concat %[[PO]], %[[C2O]]
// CHECK-NEXT: %[[CATO:.*]] = qfx.observe %[[CAT]] id 2
// CHECK-NEXT: return %[[CATO]]
func.func @conv_pool_cat(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x4xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32> loc("conv")
  %w2 = "tosa.const"() <{values = dense<0.5> : tensor<2x3x3x2xf32>}> : () -> tensor<2x3x3x2xf32> loc("conv2")
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32> loc("conv")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("conv")
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %p = tosa.max_pool2d %c {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, qfx.origin = "torch.nn.MaxPool2d"} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> loc("pool")
  %c2 = tosa.conv2d %x, %w2, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x4x4x2xf32>, tensor<2x3x3x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32> loc("conv2")
  %cat = tosa.concat %p, %c2 {axis = 3 : i32, qfx.origin = "torch.cat"} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32> loc(""("cat"))
  return %cat : tensor<1x2x2x4xf32>
}

// Linear is matmul + bias add: weight [1, IN, OUT] per channel along 2, the
// bias stays float, one output observer after the add. The output feeds two
// ops but is observed once; sigmoid and tanh get PyTorch's fixed qparams.
// CHECK-LABEL: func.func @linear_sigmoid_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x2xf32>)
// CHECK: %[[XO:.*]] = qfx.observe %[[X]] id 4 spec(#qfx.observer<histogram, reduce_range = true>)
// CHECK: %[[WO:.*]] = qfx.observe %{{.*}} id 5 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 2>) : tensor<1x2x2xf32>
// CHECK-NEXT: %[[MM:.*]] = tosa.matmul %[[XO]], %[[WO]],
// CHECK-NEXT: %[[BIAS:.*]] = "tosa.const"()
// CHECK-NEXT: %[[A:.*]] = tosa.add %[[MM]], %[[BIAS]]
// CHECK-NEXT: %[[AO:.*]] = qfx.observe %[[A]] id 6 spec(#qfx.observer<histogram, reduce_range = true>)
// CHECK-NEXT: %[[S:.*]] = tosa.sigmoid %[[AO]]
// CHECK-NEXT: qfx.observe %[[S]] id 7 spec(#qfx.observer<fixed_qparams, dtype = quint8, quant_min = 0, quant_max = 255, scale = 3.906250e-03, zero_point = 0>)
// CHECK-NEXT: %[[T:.*]] = tosa.tanh %[[AO]]
// CHECK-NEXT: qfx.observe %[[T]] id 8 spec(#qfx.observer<fixed_qparams, dtype = quint8, quant_min = 0, quant_max = 255, scale = 7.812500e-03, zero_point = 128>)
// The tosa table's fixed qparams are qint8 (with a qint8 QConfig,
// Inputs/tosa-mapping.json: default_per_channel_symmetric_qnnpack_qconfig).
// TOSA-LABEL: func.func @linear_sigmoid_tanh
// TOSA: tosa.sigmoid
// TOSA-NEXT: qfx.observe %{{.*}} spec(#qfx.observer<fixed_qparams, dtype = qint8, quant_min = -128, quant_max = 127, scale = 3.906250e-03, zero_point = -128>)
// TOSA: tosa.tanh
// TOSA-NEXT: qfx.observe %{{.*}} spec(#qfx.observer<fixed_qparams, dtype = qint8, quant_min = -128, quant_max = 127, scale = 7.812500e-03, zero_point = 0>)
func.func @linear_sigmoid_tanh(%x: tensor<1x3x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3x2xf32>) {
  %w = "tosa.const"() <{values = dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32> loc("fc")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("fc")
  %mm = tosa.matmul %x, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x3x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32> loc("fc")
  %bias = "tosa.const"() <{values = dense<[[[5.0, 6.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32> loc("fc")
  %a = tosa.add %mm, %bias {qfx.origin = "torch.nn.Linear"} : (tensor<1x3x2xf32>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32> loc("fc")
  %s = tosa.sigmoid %a {qfx.origin = "torch.nn.Sigmoid"} : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32> loc("sig")
  %t = tosa.tanh %a {qfx.origin = "torch.nn.Tanh"} : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32> loc("tanh")
  return %s, %t : tensor<1x3x2xf32>, tensor<1x3x2xf32>
}

// Depthwise HWCM weights: PyTorch's output channel is C*M. With M = 1 that is
// axis 2; with M > 1 the weight is observed as [KH, KW, C*M] along 2.
// CHECK-LABEL: func.func @depthwise
// CHECK-DAG: %[[W1:.*]] = "tosa.const"() {{.*}} tensor<1x1x2x1xf32>
// CHECK-DAG: %[[W2:.*]] = "tosa.const"() {{.*}} tensor<1x1x2x2xf32>
// CHECK: %[[W1O:.*]] = qfx.observe %[[W1]] id 10 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 2>) : tensor<1x1x2x1xf32>
// CHECK-NEXT: tosa.depthwise_conv2d %{{.*}}, %[[W1O]],
// CHECK: %[[S3:.*]] = tosa.const_shape {{.*}}dense<[1, 1, 4]>
// CHECK-NEXT: %[[FLAT:.*]] = tosa.reshape %[[W2]], %[[S3]] : (tensor<1x1x2x2xf32>, !tosa.shape<3>) -> tensor<1x1x4xf32>
// CHECK-NEXT: %[[W2O:.*]] = qfx.observe %[[FLAT]] id 12 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 2>) : tensor<1x1x4xf32>
// CHECK-NEXT: %[[S4:.*]] = tosa.const_shape {{.*}}dense<[1, 1, 2, 2]>
// CHECK-NEXT: %[[W2R:.*]] = tosa.reshape %[[W2O]], %[[S4]] : (tensor<1x1x4xf32>, !tosa.shape<4>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT: tosa.depthwise_conv2d %{{.*}}, %[[W2R]],
func.func @depthwise(%x: tensor<1x3x3x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x4xf32>) {
  %w1 = "tosa.const"() <{values = dense<1.0> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32> loc("dw1")
  %b1 = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32> loc("dw1")
  %w2 = "tosa.const"() <{values = dense<1.0> : tensor<1x1x2x2xf32>}> : () -> tensor<1x1x2x2xf32> loc("dw2")
  %b2 = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32> loc("dw2")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %d1 = tosa.depthwise_conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32> loc("dw1")
  %d2 = tosa.depthwise_conv2d %x, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<1x1x2x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x4xf32> loc("dw2")
  return %d1, %d2 : tensor<1x3x3x2xf32>, tensor<1x3x3x4xf32>
}

// add with one tensor operand (the other a constant) shares its input's
// observer; tosa.exp has no pattern and stays float, with a remark; the add
// after it observes its input again.
// CHECK-LABEL: func.func @scalar_add_and_float_ops
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[XO:.*]] = qfx.observe %[[X]] id 14
// CHECK: %[[A:.*]] = tosa.add %[[XO]], %{{.*}}
// CHECK-NEXT: %[[AO:.*]] = qfx.observe %[[A]] id 14
// CHECK-NEXT: %[[E:.*]] = tosa.exp %[[AO]]
// CHECK-NEXT: %[[EO:.*]] = qfx.observe %[[E]] id 15
// CHECK-NEXT: %[[B:.*]] = tosa.add %[[EO]], %[[EO]]
// CHECK-NEXT: qfx.observe %[[B]] id 16
// REMARK: remark: loc(""("exp")): not quantized: no pattern of backend 'x86' matches tosa.exp
func.func @scalar_add_and_float_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = "tosa.const"() <{values = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %a = tosa.add %x, %one {qfx.origin = "operator.add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(""("add"))
  %e = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32> loc(""("exp"))
  %b = tosa.add %e, %e {qfx.origin = "operator.add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(""("add_1"))
  return %b : tensor<4xf32>
}

// In a function whose ops carry qfx.origin, a transpose or reshape without
// one is the importer's layout glue: it is not observed; the value before it
// is, where an op needs it, as PyTorch observes the tensor its op takes (a
// tensor observed twice would count twice in a histogram, and every user of
// the PyTorch value shares the one observer).
// CHECK-LABEL: func.func @layout_glue
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[XO:.*]] = qfx.observe %[[X]] id 17
// CHECK-NEXT: %[[T:.*]] = tosa.transpose %[[XO]]
// CHECK: tosa.conv2d %[[T]],
// CHECK-NEXT: %[[CO:.*]] = qfx.observe %{{.*}} id 19
// CHECK-NEXT: %[[B:.*]] = tosa.transpose %[[CO]]
// CHECK-NEXT: return %[[B]]
func.func @layout_glue(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32> loc("conv")
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32> loc("conv")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("conv")
  %c = tosa.conv2d %t, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %o = tosa.transpose %c {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32> loc("output")
  return %o : tensor<1x2x4x4xf32>
}

// A slice without qfx.origin is glue too (the rows a strided window never
// reads): a conv's input is observed before it, whole, as PyTorch observes
// the conv's input.
// CHECK-LABEL: func.func @slice_glue
// CHECK-SAME: (%[[X:.*]]: tensor<1x5x5x2xf32>)
// CHECK-NEXT: %[[XO:.*]] = qfx.observe %[[X]]
// CHECK: %[[S:.*]] = tosa.slice %[[XO]]
// CHECK: tosa.conv2d %[[S]],
func.func @slice_glue(%x: tensor<1x5x5x2xf32>) -> tensor<1x2x2x2xf32> {
  %start = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4> loc("conv")
  %size = tosa.const_shape {values = dense<[1, 3, 3, 2]> : tensor<4xindex>} : () -> !tosa.shape<4> loc("conv")
  %s = tosa.slice %x, %start, %size : (tensor<1x5x5x2xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x3x2xf32> loc("conv")
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32> loc("conv")
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32> loc("conv")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("conv")
  %c = tosa.conv2d %s, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32> loc("conv")
  return %c : tensor<1x2x2x2xf32>
}

// add_relu of x + x: qfx.fused takes x once, but PyTorch counts the add's
// two tensor arguments, so the output has an observer of its own (as for an
// add of two values), not the input's.
// CHECK-LABEL: func.func @fused_add_of_one_value
// CHECK: qfx.observe %{{.*}} id 23
// CHECK: qfx.fused "add_relu"
// CHECK: qfx.observe %{{.*}} id 24
func.func @fused_add_of_one_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.fused "add_relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = tosa.add %a, %a {qfx.origin = "operator.add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = tosa.clamp %1 {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32, qfx.origin = "torch.relu"} : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %2 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// Layout glue shared by an op that is quantized and one that stays float
// (torch.exp): PyTorch observes the conv's input edge only, so the conv
// reads a copy of the glue on the observer and the float op reads the value
// unobserved.
// CHECK-LABEL: func.func @shared_glue
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[XO:.*]] = qfx.observe %[[X]]
// CHECK-NEXT: %[[T:.*]] = tosa.transpose %[[X]]
// CHECK: %[[TO:.*]] = tosa.transpose %[[XO]]
// CHECK-NEXT: tosa.conv2d %[[TO]],
// CHECK: tosa.exp %[[T]]
// REMARK: remark: loc("exp"): not quantized: no pattern of backend 'x86' matches tosa.exp (torch.exp)
func.func @shared_glue(%x: tensor<1x2x4x4xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32> loc("conv")
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32> loc("conv")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("conv")
  %c = tosa.conv2d %t, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %e = tosa.exp %t {qfx.origin = "torch.exp"} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("exp")
  return %c, %e : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}
