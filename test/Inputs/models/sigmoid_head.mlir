// sigmoid_head: float TOSA exported from PyTorch by qfx.export_tosa.
// Regenerate with: /usr/bin/python3 utils/export_test_models.py
module {
  func.func @main(%x: tensor<2x12xf32> loc("x")) -> tensor<2x3xf32> {
    %shape = tosa.const_shape {values = dense<[1, 2, 12]> : tensor<3xindex>} : () -> !tosa.shape<3> loc("fc")
    %reshape = tosa.reshape %x, %shape {qfx.module_name = "fc"} : (tensor<2x12xf32>, !tosa.shape<3>) -> tensor<1x2x12xf32> loc("fc")
    %fc_weight = "tosa.const"() <{values = dense<[[[-1.64301991e-02, 1.71101302e-01, 2.10328460e-01], [-1.08743005e-01, 2.47714177e-01, -8.24058205e-02], [2.48411819e-01, -1.53647929e-01, -6.92580827e-03], [-2.75118887e-01, 1.74846187e-01, -1.60733521e-01], [-1.18326925e-01, -1.82324529e-01, 2.48054072e-01], [8.69873613e-02, -8.69290009e-02, -2.72253770e-02], [-9.84557271e-02, 1.59399480e-01, -1.45327583e-01], [-2.72313178e-01, -2.38616094e-01, -2.00354517e-01], [-1.57960191e-01, -1.44302160e-01, 1.09733440e-01], [2.12488789e-02, 7.17845261e-02, -2.80246139e-02], [-2.16405272e-01, 8.91509652e-02, -1.83556482e-01], [-1.49624914e-01, 2.53988117e-01, -8.16755816e-02]]]> : tensor<1x12x3xf32>}> : () -> tensor<1x12x3xf32> loc("fc")
    %zp = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("fc")
    %zp_1 = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("fc")
    %fc = tosa.matmul %reshape, %fc_weight, %zp, %zp_1 {qfx.origin = "torch.nn.Linear", qfx.module_name = "fc"} : (tensor<1x2x12xf32>, tensor<1x12x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32> loc("fc")
    %fc_bias = "tosa.const"() <{values = dense<[[[-7.75170103e-02, -2.49700233e-01, -8.92498251e-03]]]> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32> loc("fc")
    %fc_1 = tosa.add %fc, %fc_bias {qfx.origin = "torch.nn.Linear", qfx.module_name = "fc"} : (tensor<1x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32> loc("fc")
    %shape_1 = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2> loc("fc")
    %reshape_1 = tosa.reshape %fc_1, %shape_1 {qfx.module_name = "fc"} : (tensor<1x2x3xf32>, !tosa.shape<2>) -> tensor<2x3xf32> loc("fc")
    %sigmoid = tosa.sigmoid %reshape_1 {qfx.origin = "torch.nn.Sigmoid", qfx.module_name = "sigmoid"} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("sigmoid")
    return %sigmoid : tensor<2x3xf32> loc("output")
  }
}
