// depthwise_multiplier: float TOSA exported from PyTorch by qfx.export_tosa.
// Regenerate with: /usr/bin/python3 utils/export_test_models.py
module {
  func.func @main(%x: tensor<2x4x5x5xf32> loc("x")) -> tensor<2x3xf32> {
    %transpose = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>, qfx.module_name = "dw"} : (tensor<2x4x5x5xf32>) -> tensor<2x5x5x4xf32> loc("dw")
    %dw_weight = "tosa.const"() <{values = dense<[[[[3.14301848e-01, -1.06350467e-01], [-1.60805628e-01, -9.86539572e-02], [-3.17843169e-01, -7.88022727e-02], [-1.66139692e-01, 1.18200943e-01]], [[2.22352147e-01, 4.70786504e-02], [-1.00064039e-01, 2.90426552e-01], [-3.04333806e-01, -2.56447524e-01], [1.48317695e-01, 2.96698570e-01]], [[-1.37185022e-01, 1.09535895e-01], [1.71018809e-01, -6.16650209e-02], [5.57164773e-02, -1.31631106e-01], [2.04559922e-01, -1.58667251e-01]]], [[[-2.39016175e-01, 1.64604589e-01], [-2.62333333e-01, 1.53033420e-01], [1.29165024e-01, 8.56930017e-02], [2.86090821e-01, -9.90738869e-02]], [[-2.93774843e-01, -3.03830385e-01], [2.51922101e-01, -8.10594559e-02], [2.84943461e-01, 3.21700662e-01], [7.06632948e-03, 1.49454877e-01]], [[-3.00780654e-01, -8.53959769e-02], [-1.72898501e-01, 2.11897537e-01], [-3.35386619e-02, -2.45804757e-01], [1.97067618e-01, 1.36773586e-02]]], [[[-1.79210037e-01, 1.90623686e-01], [1.90427706e-01, 2.56163210e-01], [-2.58322686e-01, 6.93337917e-02], [-5.94476461e-02, -2.35425919e-01]], [[-8.75730962e-02, 2.13010311e-02], [2.36322135e-01, 2.85505593e-01], [8.55963677e-02, 2.61008680e-01], [2.73146838e-01, -9.45112333e-02]], [[-1.34892464e-01, -3.34362197e-03], [7.41151199e-02, -3.12407315e-01], [-2.21055120e-01, -3.02218676e-01], [-2.92054594e-01, -3.14284176e-01]]]]> : tensor<3x3x4x2xf32>}> : () -> tensor<3x3x4x2xf32> loc("dw")
    %dw_bias = "tosa.const"() <{values = dense<[-2.70077348e-01, -1.71286583e-01, -3.19855541e-01, 1.65080547e-01, 1.48874685e-01, -9.05210972e-02, -3.08966398e-01, 7.81169385e-02]> : tensor<8xf32>}> : () -> tensor<8xf32> loc("dw")
    %zp = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("dw")
    %zp_1 = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("dw")
    %dw = tosa.depthwise_conv2d %transpose, %dw_weight, %dw_bias, %zp, %zp_1 {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d", qfx.module_name = "dw"} : (tensor<2x5x5x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x5x5x8xf32> loc("dw")
    %bn = qfx.composite "torch.nn.BatchNorm2d" (%dw) attributes {composite_attributes = {axis = 3 : i64, eps = 9.99999975e-06 : f32, running_mean = dense<[2.52992034e-01, -2.56884515e-01, 4.70864534e-01, 1.45052493e-01, 1.10253453e-01, 2.75928557e-01, -5.08829355e-02, -4.06230748e-01]> : tensor<8xf32>, running_var = dense<[1.10149598e+00, 1.82500458e+00, 1.31289768e+00, 1.96876991e+00, 5.95520973e-01, 1.62421262e+00, 1.59724283e+00, 5.12279868e-01]> : tensor<8xf32>, weight = dense<[8.33561122e-01, 1.43864536e+00, 9.79185462e-01, 1.26568925e+00, 1.29116535e+00, 8.66863787e-01, 1.04429686e+00, 9.95991647e-01]> : tensor<8xf32>, bias = dense<[-1.06070898e-01, 4.84151617e-02, -6.78014085e-02, -1.48986345e-02, 9.49129835e-02, -5.98843805e-02, -6.23620041e-02, 4.19305563e-02]> : tensor<8xf32>}, qfx.origin = "torch.nn.BatchNorm2d", qfx.module_name = "bn"} : (tensor<2x5x5x8xf32>) -> tensor<2x5x5x8xf32> {
    ^bb0(%arg: tensor<2x5x5x8xf32>):
      %bn_scale = "tosa.const"() <{values = dense<[[[[7.94225872e-01, 1.06492877e+00, 8.54570448e-01, 9.02045667e-01, 1.67313004e+00, 6.80186629e-01, 8.26298833e-01, 1.39154685e+00]]]]> : tensor<1x1x1x8xf32>}> : () -> tensor<1x1x1x8xf32> loc("bn")
      %mul_shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("bn")
      %mul = tosa.mul %arg, %bn_scale, %mul_shift {qfx.module_name = "bn"} : (tensor<2x5x5x8xf32>, tensor<1x1x1x8xf32>, tensor<1xi8>) -> tensor<2x5x5x8xf32> loc("bn")
      %bn_shift = "tosa.const"() <{values = dense<[[[[-3.07003707e-01, 3.21978867e-01, -4.70188320e-01, -1.45742595e-01, -8.95553753e-02, -2.47567296e-01, -2.03174949e-02, 6.07219696e-01]]]]> : tensor<1x1x1x8xf32>}> : () -> tensor<1x1x1x8xf32> loc("bn")
      %add = tosa.add %mul, %bn_shift {qfx.module_name = "bn"} : (tensor<2x5x5x8xf32>, tensor<1x1x1x8xf32>) -> tensor<2x5x5x8xf32> loc("bn")
      qfx.yield %add : tensor<2x5x5x8xf32> loc("bn")
    } loc("bn")
    %clamp = tosa.clamp %bn {min_val = 0.00000000e+00 : f32, max_val = 3.40282347e+38 : f32, qfx.origin = "torch.nn.ReLU", qfx.module_name = "relu"} : (tensor<2x5x5x8xf32>) -> tensor<2x5x5x8xf32> loc("relu")
    %zp_2 = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("pool")
    %zp_3 = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("pool")
    %pool = tosa.avg_pool2d %clamp, %zp_2, %zp_3 {acc_type = f32, kernel = array<i64: 5, 5>, stride = array<i64: 5, 5>, pad = array<i64: 0, 0, 0, 0>, qfx.qnnpack_pool, qfx.origin = "torch.nn.AdaptiveAvgPool2d", qfx.module_name = "pool"} : (tensor<2x5x5x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x1x1x8xf32> loc("pool")
    %shape = tosa.const_shape {values = dense<[2, 8]> : tensor<2xindex>} : () -> !tosa.shape<2> loc(""("flatten"))
    %reshape = tosa.reshape %pool, %shape {qfx.origin = "torch.flatten", qfx.module_name = "", qfx.node_name = "flatten"} : (tensor<2x1x1x8xf32>, !tosa.shape<2>) -> tensor<2x8xf32> loc(""("flatten"))
    %shape_1 = tosa.const_shape {values = dense<[1, 2, 8]> : tensor<3xindex>} : () -> !tosa.shape<3> loc("fc")
    %reshape_1 = tosa.reshape %reshape, %shape_1 {qfx.module_name = "fc"} : (tensor<2x8xf32>, !tosa.shape<3>) -> tensor<1x2x8xf32> loc("fc")
    %fc_weight = "tosa.const"() <{values = dense<[[[5.14334403e-02, -2.48999655e-01, -2.50898063e-01], [1.12172151e-02, -5.76012544e-02, -1.48486301e-01], [-3.41427386e-01, -3.26845884e-01, -6.12958893e-02], [-2.66856343e-01, -1.79281771e-01, -3.09545845e-01], [-3.31695266e-02, -3.11078817e-01, 2.33713966e-02], [-1.84086561e-01, -1.70012370e-01, -7.09474310e-02], [-9.82473791e-02, 3.39132845e-01, -2.58929104e-01], [-8.51482674e-02, -2.76204228e-01, 3.18395674e-01]]]> : tensor<1x8x3xf32>}> : () -> tensor<1x8x3xf32> loc("fc")
    %zp_4 = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("fc")
    %zp_5 = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("fc")
    %fc = tosa.matmul %reshape_1, %fc_weight, %zp_4, %zp_5 {qfx.origin = "torch.nn.Linear", qfx.module_name = "fc"} : (tensor<1x2x8xf32>, tensor<1x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32> loc("fc")
    %fc_bias = "tosa.const"() <{values = dense<[[[-2.50012159e-01, 2.99591333e-01, 9.31226183e-03]]]> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32> loc("fc")
    %fc_1 = tosa.add %fc, %fc_bias {qfx.origin = "torch.nn.Linear", qfx.module_name = "fc"} : (tensor<1x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32> loc("fc")
    %shape_2 = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2> loc("fc")
    %reshape_2 = tosa.reshape %fc_1, %shape_2 {qfx.module_name = "fc"} : (tensor<1x2x3xf32>, !tosa.shape<2>) -> tensor<2x3xf32> loc("fc")
    return %reshape_2 : tensor<2x3xf32> loc("output")
  }
}
