// A recurrent module under a dynamic qconfig (torch.nn.RNNCell here; LSTM,
// LSTMCell and GRUCell alike): qfx-prepare observes inside the composite's
// body, each matmul's constant weight (per tensor, qint8) and its input
// (a placeholder quantized at run time); qfx-convert quantizes there;
// qfx-lower makes each projection PyTorch's dynamic matmul (int8 tosa.matmul
// of the input quantized per call, float epilogue). The composite stays; the
// cell's float ops (add, tanh) stay float.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"object_type": [["torch.nn.RNNCell", "default_dynamic_qconfig"]]}' > %t/dynamic.json
// RUN: quant-opt %s --qfx-prepare="backend=onednn qconfig-mapping=%t/dynamic.json" | FileCheck %s --check-prefix=PREPARED
// RUN: quant-opt %s --qfx-prepare="backend=onednn qconfig-mapping=%t/dynamic.json" --qfx-convert --qfx-lower="backend=onednn" | FileCheck %s --check-prefix=LOWERED

// A static qconfig: the tables' rows are dynamic only, so the cell stays
// float, as in PyTorch.
// RUN: quant-opt %s --qfx-prepare="backend=onednn qconfig-mapping=default:x86" --mlir-print-debuginfo 2>&1 | FileCheck %s --check-prefix=STATIC
// A table that claims a static form is refused.
// RUN: echo '{"name": "static", "configs": [{"pattern": "torch.nn.RNNCell", "dtype_configs": [{"input_dtype": "quint8", "output_dtype": "quint8", "weight_dtype": "qint8", "bias_dtype": "float32"}]}]}' > %t/static.json
// RUN: not quant-opt %s --qfx-prepare="backend=%t/static.json qconfig-mapping=default:x86" 2>&1 | FileCheck %s --check-prefix=REFUSED

// PREPARED: qfx.composite "torch.nn.RNNCell"
// PREPARED-DAG: %[[X:.*]] = qfx.observe %{{.*}} spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>)
// PREPARED-DAG: %[[W:.*]] = qfx.observe %{{.*}} spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>)
// PREPARED: tosa.matmul %[[X]], %[[W]]
// PREPARED-DAG: %[[H:.*]] = qfx.observe %{{.*}} spec(#qfx.observer<placeholder
// PREPARED-DAG: %[[W1:.*]] = qfx.observe %{{.*}} spec(#qfx.observer<minmax
// PREPARED: tosa.matmul %[[H]], %[[W1]]
// PREPARED: tosa.tanh

// LOWERED: qfx.composite "torch.nn.RNNCell"
// LOWERED: qfx.choose_qparams
// LOWERED: qfx.contract matmul {{.*}} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi32>
// LOWERED: qfx.choose_qparams
// LOWERED: qfx.contract matmul {{.*}} : (tensor<1x2x2xi8>, tensor<1x2x2xi8>) -> tensor<1x2x2xi32>
// LOWERED: tosa.tanh {{.*}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
// LOWERED-NOT: xf32>, tensor<1x3x2xf32>
// LOWERED-NOT: quant.dcast

// STATIC: remark: not quantized
// STATIC-NOT: qfx.observe

// REFUSED: error: 'torch.nn.RNNCell' is quantized dynamically only (a dynamic qconfig), as in PyTorch

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = qfx.composite "torch.nn.RNNCell" (%x) attributes {qfx.origin = "torch.nn.RNNCell", qfx.module_name = "cell"} : (tensor<2x3xf32>) -> tensor<2x2xf32> {
  ^bb0(%arg: tensor<2x3xf32>):
    %state = "tosa.const"() <{values = dense<0.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %s3 = tosa.const_shape {values = dense<[1, 2, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %a = tosa.reshape %arg, %s3 : (tensor<2x3xf32>, !tosa.shape<3>) -> tensor<1x2x3xf32>
    %w = "tosa.const"() <{values = dense<[[[0.0, -0.5], [0.375, -0.25], [-0.625, 0.25]]]> : tensor<1x3x2xf32>}> : () -> tensor<1x3x2xf32>
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %mm = tosa.matmul %a, %w, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    %b = "tosa.const"() <{values = dense<[[[-0.25, -0.125]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
    %ih = tosa.add %mm, %b : (tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>
    %s2 = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %ih2 = tosa.reshape %ih, %s2 : (tensor<1x2x2xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
    %s32 = tosa.const_shape {values = dense<[1, 2, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %h = tosa.reshape %state, %s32 : (tensor<2x2xf32>, !tosa.shape<3>) -> tensor<1x2x2xf32>
    %w1 = "tosa.const"() <{values = dense<[[[0.0, -0.125], [0.5, 0.125]]]> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
    %mm1 = tosa.matmul %h, %w1, %zp, %zp : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    %b1 = "tosa.const"() <{values = dense<[[[-0.625, -0.5]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
    %hh = tosa.add %mm1, %b1 : (tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>
    %hh2 = tosa.reshape %hh, %s2 : (tensor<1x2x2xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
    %sum = tosa.add %hh2, %ih2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %y = tosa.tanh %sum : (tensor<2x2xf32>) -> tensor<2x2xf32>
    qfx.yield %y : tensor<2x2xf32>
  }
  return %0 : tensor<2x2xf32>
}
