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

func.func @scalar_add_and_float_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = "tosa.const"() <{values = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %a = tosa.add %x, %one {qfx.origin = "operator.add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(""("add"))
  %e = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32> loc(""("exp"))
  %b = tosa.add %e, %e {qfx.origin = "operator.add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(""("add_1"))
  return %b : tensor<4xf32>
}

func.func @layout_glue(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32> loc("conv")
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32> loc("conv")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("conv")
  %c = tosa.conv2d %t, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %o = tosa.transpose %c {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32> loc("output")
  return %o : tensor<1x2x4x4xf32>
}
