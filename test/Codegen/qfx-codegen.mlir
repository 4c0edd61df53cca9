// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=x86-64-avx512vnni --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=none --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=x86-64-avx512vnni --qfx-lower-intrinsic-calls --split-input-file | FileCheck %s --check-prefix=INTR
// RUN: not quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=riscv 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=aarch64-dotprod --split-input-file | FileCheck %s --check-prefix=SDOT
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=x86-64-avx2 --split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=aarch64-i8mm --split-input-file | FileCheck %s --check-prefix=I8MM
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=x86-64-amx --split-input-file | FileCheck %s --check-prefix=AMX
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-codegen=target=x86-64-amx --qfx-lower-intrinsic-calls --split-input-file | FileCheck %s --check-prefix=AMXASM

// A Linear's int8 chain becomes a call of a VNNI kernel. The weights
// [[1, 2], [3, 4], [5, 6]] (K = 3, N = 2) are packed per 16-column block and
// group of 4 k values: lane n holds w[0..3][n], zero beyond K and N. The
// folded constant is bias - (128 + zp_a) * column sum: 100 - 130 * 9 = -1070
// and -100 - 130 * 12 = -1660.
// CHECK-DAG: func.func private @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512(vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32> attributes {qfx_llvm_intrinsic = "llvm.x86.avx512.vpdpbusd.512"}
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[A:.*]]: tensor<1x2x3xi8>)
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<1x2x3xi8> to memref<1x2x3xi8>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x2x2xi8>
// CHECK: %[[W:.*]] = memref.get_global @qfx_vnni_matmul_0_weights
// CHECK: %[[C:.*]] = memref.get_global @qfx_vnni_matmul_0_bias
// CHECK: %[[S:.*]] = memref.get_global @qfx_vnni_matmul_0_scalars
// CHECK: call @qfx_vnni_matmul_0(%[[BUF]], %[[OUT]], %[[W]], %[[C]], %[[S]], %{{.*}}, %{{.*}})
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NOT: tosa.matmul
// CHECK-NOT: tosa.rescale
// CHECK: return %[[R]]
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_weights : memref<1x1x64xi8> = dense<{{\[\[\[}}1, 3, 5, 0, 2, 4, 6, 0, 0,
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_bias : memref<1x16xi32> = dense<{{\[\[}}-1070, -1660, 0,
// The epilogue's scalars: no fraction bits, output zero point -5, the clamp
// [-128, 127], input zero point 2 (and the float ones, unused).
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_scalars : memref<8xi32> = dense<[0, -5, -128, 127, 2, 0, 0, 0]>
// The kernel takes its constants as arguments, in that order.
// CHECK: func.func private @qfx_vnni_matmul_0(%{{.*}}: memref<1x2x3xi8>, %{{.*}}: memref<1x2x2xi8>, %{{.*}}: memref<1x1x64xi8>, %{{.*}}: memref<1x16xi32>, %{{.*}}: memref<8xi32>, %{{.*}}: memref<1x16xi32>, %{{.*}}: memref<1x16xi64>)
// CHECK: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512
// AArch64 SDOT multiplies signed bytes: no +128, so the folded constant is
// bias - zp_a * column sum (100 - 2 * 9 = 82, -100 - 2 * 12 = -124); 4-lane
// blocks of 16 bytes; plain loops (no OpenMP runtime is assumed there).
// SDOT-DAG: func.func private @qfx.intrinsic.llvm.aarch64.neon.sdot.v4i32.v16i8(vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>
// SDOT-LABEL: func.func @linear
// SDOT: call @qfx_sdot_matmul_0
// SDOT-DAG: memref.global "private" constant @qfx_sdot_matmul_0_weights : memref<1x1x16xi8> = dense<{{\[\[\[}}1, 3, 5, 0, 2, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0]]]>
// SDOT-DAG: memref.global "private" constant @qfx_sdot_matmul_0_bias : memref<1x4xi32> = dense<{{\[\[}}82, -124, 0, 0]]>
// SDOT: func.func private @qfx_sdot_matmul_0
// SDOT-NOT: scf.parallel
// SDOT-NOT: arith.xori
// SDOT: return
// With AVX2, int16 pairs (vpmaddwd, then an add): 8-lane blocks of 8 int16, no
// +128.
// AVX2-DAG: func.func private @qfx.intrinsic.llvm.x86.avx2.pmadd.wd(vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// AVX2-LABEL: func.func @linear
// AVX2: call @qfx_avx2_matmul_0
// AVX2-DAG: memref.global "private" constant @qfx_avx2_matmul_0_weights : memref<1x2x16xi16> = dense<{{\[\[\[}}1, 3, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [5, 0, 6, 0, 0,
// AVX2-DAG: memref.global "private" constant @qfx_avx2_matmul_0_bias : memref<1x8xi32> = dense<{{\[\[}}82, -124, 0, 0, 0, 0, 0, 0]]>
// AVX2: func.func private @qfx_avx2_matmul_0
// AVX2: arith.extsi {{.*}} : i8 to i16
// AVX2: call @qfx.intrinsic.llvm.x86.avx2.pmadd.wd
// AVX2: arith.addi {{.*}} : vector<8xi32>
// With I8MM (SMMLA: a 2x8 block of A times an 8x2 block of weights), 8-column
// blocks of 8 k values a column (16 bytes a column pair); A copied in pairs
// of rows, [M / 2][K / 8][2][8], zero-filled; a row's 8 sums gathered from
// its half of each column pair's 2x2 result.
// I8MM-DAG: func.func private @qfx.intrinsic.llvm.aarch64.neon.smmla.v4i32.v16i8(vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>
// I8MM-LABEL: func.func @linear
// I8MM: call @qfx_i8mm_matmul_0
// I8MM-DAG: memref.global "private" constant @qfx_i8mm_matmul_0_weights : memref<1x1x64xi8> = dense<{{\[\[\[}}1, 3, 5, 0, 0, 0, 0, 0, 2, 4, 6, 0, 0, 0, 0, 0, 0,
// I8MM-DAG: memref.global "private" constant @qfx_i8mm_matmul_0_bias : memref<1x8xi32> = dense<{{\[\[}}82, -124, 0, 0, 0, 0, 0, 0]]>
// I8MM: func.func private @qfx_i8mm_matmul_0
// I8MM: memref.view {{.*}} : memref<16xi8> to memref<1x1x16xi8>
// I8MM: linalg.fill
// I8MM-NOT: arith.xori
// I8MM-COUNT-4: call @qfx.intrinsic.llvm.aarch64.neon.smmla.v4i32.v16i8
// I8MM: vector.shuffle %{{.*}}#0, %{{.*}}#1 [0, 1, 4, 5]
// I8MM: vector.shuffle %{{.*}}#2, %{{.*}}#3 [0, 1, 4, 5]
// I8MM: vector.shuffle %{{.*}}#0, %{{.*}}#1 [2, 3, 6, 7]
// With AMX, a dispatch that calls the tile kernel if Linux grants AMX tile
// data (asked once, remembered in @qfx_amx_state, which threads read and
// write atomically) and else the VNNI kernel.
// The tile kernel's weights are the VNNI layout with K padded to 64 (16
// groups, one tile of 16 rows); A is copied with M padded to 16 and K to 64;
// 16x16 int32 tiles go through a stack buffer to the epilogue; the kernel
// is compiled for AMX whatever the module's CPU. The VNNI kernel reads the
// same packing (qfx-pack-weights packs for the tile kernel), with the
// `_ranges` that skip its zero groups; the constants both kernels have are
// one global each. The dispatch takes both kernels' constants (5 and 6) and
// passes each kernel its own.
// AMX-LABEL: func.func @linear
// AMX: %[[TW:.*]] = memref.get_global @qfx_amx_matmul_0_tiles_weights
// AMX: %[[RANGES:.*]] = memref.get_global @qfx_amx_matmul_0_vnni_ranges
// AMX-NEXT: %[[VW:.*]] = memref.get_global @qfx_amx_matmul_0_tiles_weights
// AMX-NOT: memref.get_global @qfx_amx_matmul_0_vnni
// AMX: call @qfx_amx_matmul_0(%{{.*}}, %{{.*}}, %[[TW]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RANGES]], %[[VW]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// AMX-NOT: memref.global {{.*}}@qfx_amx_matmul_0_vnni_weights
// AMX-DAG: memref.global "private" constant @qfx_amx_matmul_0_tiles_weights : memref<1x16x64xi8> = dense<"0x0103050002040600{{0+}}">
// AMX-DAG: memref.global "private" constant @qfx_amx_matmul_0_tiles_bias : memref<1x16xi32> = dense<{{\[\[}}-1070, -1660, 0,
// AMX: func.func private @qfx_amx_matmul_0_tiles(%{{.*}}: memref<1x2x3xi8>, %{{.*}}: memref<1x2x2xi8>, %{{.*}}: memref<1x16x64xi8>, {{.*}}) attributes {target_features = #llvm.target_features<["+amx-tile", "+amx-int8"]>}
// AMX: memref.view {{.*}} : memref<1024xi8> to memref<16x64xi8>
// AMX: memref.alloca_scope
// AMX: memref.alloca() {alignment = 64 : i64} : memref<32x32xi32>
// AMX: amx.tile_zero : !amx.tile<16x16xi32>
// AMX: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (!amx.tile<16x16xi32>)
// AMX: amx.tile_load {{.*}} : memref<1x16x64xi8> into !amx.tile<16x64xi8>
// AMX: amx.tile_load {{.*}} : memref<16x64xi8> into !amx.tile<16x64xi8>
// AMX: amx.tile_muli %{{.*}} zext, %{{.*}}, %{{.*}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// AMX: amx.tile_store {{.*}} : memref<32x32xi32>, !amx.tile<16x16xi32>
// AMX: vector.load {{.*}} : memref<32x32xi32>, vector<16xi32>
// AMX: func.func private @qfx_amx_matmul_0_vnni(
// AMX: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512
// AMX: func.func private @qfx.syscall(i64, i64, i64) -> i64 attributes {qfx_inline_asm = "syscall"
// AMX: llvm.mlir.global internal @qfx_amx_state(0 : i32) {addr_space = 0 : i32} : i32
// AMX: func.func private @qfx_amx_ready() -> i1
// AMX: %[[ADDRESS:.*]] = llvm.mlir.addressof @qfx_amx_state
// AMX: %[[STATE:.*]] = llvm.load %[[ADDRESS]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// AMX: arith.cmpi eq, %[[STATE]], %c0_i32
// AMX: scf.if
// AMX: func.call @qfx.syscall(%c158_i64, %c4131_i64, %c18_i64)
// AMX: llvm.store %{{.*}}, %[[ADDRESS]] atomic monotonic {alignment = 4 : i64} : i32, !llvm.ptr
// AMX: func.func private @qfx_amx_matmul_0(%[[IN:[^:]*]]: {{[^,]*}}, %[[OUT:[^:]*]]: {{[^,]*}}, %[[T0:[^:]*]]: {{[^,]*}}, {{.*}}, %[[T4:[^:]*]]: memref<1x16xi64>, %[[V0:[^:]*]]: memref<1x2xi32>, %{{[^:]*}}: memref<1x16x64xi8>,
// AMX: %[[GRANTED:.*]] = call @qfx_amx_ready()
// AMX: scf.if %[[GRANTED]]
// AMX: call @qfx_amx_matmul_0_tiles(%[[IN]], %[[OUT]], %[[T0]], {{.*}}, %[[T4]])
// AMX: } else {
// AMX: call @qfx_amx_matmul_0_vnni(%[[IN]], %[[OUT]], %[[V0]],
// The permission request becomes the system call.
// AMXASM-NOT: @qfx.syscall
// AMXASM: llvm.inline_asm has_side_effects asm_dialect = att "syscall", "={ax},{ax},{di},{si},~{rcx},~{r11},~{memory},~{dirflag},~{fpsr},~{flags}" %c158_i64, %c4131_i64, %c18_i64 : (i64, i64, i64) -> i64
// NONE-LABEL: func.func @linear
// NONE: qfx.contract matmul
// INTR-NOT: func.func private @qfx.intrinsic
// INTR: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// The target is an enum option whose values are the registry's names
// (qfx/Codegen/Targets.h): an unknown one is rejected when it is parsed.
// BAD: for the --target option: Cannot find option named 'riscv'!
func.func @linear(%a: tensor<1x2x3xi8>) -> tensor<1x2x2xi8> {
  %w = "tosa.const"() <{values = dense<[[[1, 2], [3, 4], [5, 6]]]> : tensor<1x3x2xi8>}> : () -> tensor<1x3x2xi8>
  %r = qfx.contract matmul %a, %w {input_zp = 2 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [100, -100], multipliers = [1073741824], shifts = [33], output_zp = -5, min = -128, max = 127>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi8>
  return %r : tensor<1x2x2xi8>
}

// -----

// Two chains of the same shape and epilogue structure (other weights, zero
// points and clamp) call one kernel, each with its own globals; a chain of
// another shape gets its own.
// CHECK-LABEL: func.func @shared
// CHECK: %[[W0:.*]] = memref.get_global @qfx_vnni_matmul_0_weights
// CHECK: call @qfx_vnni_matmul_0(%{{.*}}, %{{.*}}, %[[W0]],
// CHECK: %[[W1:.*]] = memref.get_global @qfx_vnni_matmul_1_weights
// CHECK: %[[S1:.*]] = memref.get_global @qfx_vnni_matmul_1_scalars
// CHECK: call @qfx_vnni_matmul_0(%{{.*}}, %{{.*}}, %[[W1]], %{{.*}}, %[[S1]],
// CHECK: call @qfx_vnni_matmul_2(
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_scalars : memref<8xi32> = dense<[0, -5, -128, 127, 2, 0, 0, 0]>
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_1_scalars : memref<8xi32> = dense<[0, 9, -128, 100, -7, 0, 0, 0]>
// CHECK-DAG: func.func private @qfx_vnni_matmul_0(
// CHECK-DAG: func.func private @qfx_vnni_matmul_2(
// CHECK-NOT: func.func private @qfx_vnni_matmul_1(
func.func @shared(%a: tensor<1x2x2xi8>) -> tensor<1x2x3xi8> {
  %w = "tosa.const"() <{values = dense<[[[1, 2], [3, 4]]]> : tensor<1x2x2xi8>}> : () -> tensor<1x2x2xi8>
  %r = qfx.contract matmul %a, %w {input_zp = 2 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = -5, min = -128, max = 127>} : (tensor<1x2x2xi8>, tensor<1x2x2xi8>) -> tensor<1x2x2xi8>
  %w1 = "tosa.const"() <{values = dense<[[[5, -6], [7, 8]]]> : tensor<1x2x2xi8>}> : () -> tensor<1x2x2xi8>
  %c1 = qfx.contract matmul %r, %w1 {input_zp = -7 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = 9, min = -128, max = 100>} : (tensor<1x2x2xi8>, tensor<1x2x2xi8>) -> tensor<1x2x2xi8>
  %w2 = "tosa.const"() <{values = dense<1> : tensor<1x2x3xi8>}> : () -> tensor<1x2x3xi8>
  %r2 = qfx.contract matmul %c1, %w2 {input_zp = 2 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = -5, min = -128, max = 127>} : (tensor<1x2x2xi8>, tensor<1x2x3xi8>) -> tensor<1x2x3xi8>
  return %r2 : tensor<1x2x3xi8>
}

// -----

// A float requantization (PyTorch's onednn engine's, as qfx-lower writes it)
// after the kernel's sums, which start from the folded constant (no fraction
// bits: nothing to add after the loop). The int8 clamp after the output zero
// point is folded into the float clamp: its bounds are clamped to [lo - zp,
// hi - zp] once (scalars), and the vectors are only clamped once. On AVX-512
// one vcvtps2dq rounds half to even ({rn-sae}: rounding 8) and converts; on
// AVX2, roundeven then a conversion.
// CHECK-LABEL: func.func @float_requantization
// CHECK: func.func private @qfx_vnni_matmul_0(
// CHECK: %[[C:.*]] = vector.load %{{.*}} : memref<1x16xi32>, vector<16xi32>
// CHECK: %[[SUMS:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[C]])
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.select %{{.*}} : f32
// CHECK: %[[SUMSF:.*]] = arith.sitofp %[[SUMS]] : vector<16xi32> to vector<16xf32>
// CHECK: arith.addf %[[SUMSF]]
// CHECK: arith.select {{.*}} vector<16xf32>
// CHECK: %[[CLAMPED:.*]] = arith.select {{.*}} vector<16xf32>
// CHECK: %[[Q:.*]] = call @qfx.intrinsic.llvm.x86.avx512.mask.cvtps2dq.512(%[[CLAMPED]], %{{.*}}, %c-1_i16, %c8_i32)
// CHECK: %[[OUT:.*]] = arith.addi %[[Q]]
// CHECK-NEXT: arith.trunci %[[OUT]] : vector<16xi32> to vector<16xi8>
// AVX2-LABEL: func.func @float_requantization
// AVX2: func.func private @qfx_avx2_matmul_0(
// AVX2: math.roundeven %{{.*}} : vector<8xf32>
// AVX2-NEXT: arith.fptosi
func.func @float_requantization(%a: tensor<1x1x4xi8>) -> tensor<1x1x2xi8> {
  %w = "tosa.const"() <{values = dense<[[[1, 2], [3, 4], [5, 6], [7, 8]]]> : tensor<1x4x2xi8>}> : () -> tensor<1x4x2xi8>
  %c = qfx.contract matmul %a, %w {input_zp = 3 : i64, epilogue = #qfx.requantize<bias = [0.5, -1.5], multipliers = [0.25], zero_point = 10.0, min = 10.0, max = 127.0, output_zp = 0>} : (tensor<1x1x4xi8>, tensor<1x4x2xi8>) -> tensor<1x1x2xi8>
  return %c : tensor<1x1x2xi8>
}

// -----

// A weight zero point other than 0 is left to the generic lowering.
// CHECK-LABEL: func.func @weight_zero_point
// CHECK: qfx.contract matmul
func.func @weight_zero_point(%a: tensor<1x2x3xi8>) -> tensor<1x2x2xi8> {
  %w = "tosa.const"() <{values = dense<1> : tensor<1x3x2xi8>}> : () -> tensor<1x3x2xi8>
  %r = qfx.contract matmul %a, %w {weight_zp = 3 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = 0, min = -128, max = 127>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi8>
  return %r : tensor<1x2x2xi8>
}

// -----

// A depthwise convolution's chain becomes a direct-convolution kernel over
// blocks of 16 output channels (VNNI's lanes), one vpdpbusd a tap: a lane
// holds the input byte (top bit flipped) and three zero bytes, the weights
// the tap's weight and three zeros ([tap][block][lane][4] bytes); the
// epilogue constant is the conv bias minus (128 + the input zero point) times
// the weights' sum (7 - 133 * 4 * 3). The input is copied into a buffer
// padded with the flipped zero point (1 row at the bottom, 1 column on the
// right; the border filled, not the inside), each channel twice for the
// multiplier of 2, so that the taps read it without a check.
// CHECK-LABEL: func.func @depthwise
// CHECK: call @qfx_vnni_depthwise_0
// CHECK-NOT: tosa.depthwise_conv2d
// CHECK-DAG: memref.global "private" constant @qfx_vnni_depthwise_0_weights : memref<4x2x64xi8> = dense<"0x03000000030000000300
// CHECK-DAG: memref.global "private" constant @qfx_vnni_depthwise_0_bias : memref<2x16xi32> = dense<-1589>
// CHECK: func.func private @qfx_vnni_depthwise_0(%{{.*}}: memref<1x3x3x16xi8>, %{{.*}}: memref<1x2x2x32xi8>, %{{.*}}: memref<4x2x64xi8>,
// CHECK: %[[PADDING:.*]] = arith.xori
// CHECK: %[[PADDED:.*]] = memref.view {{.*}} : memref<512xi8> to memref<1x4x4x32xi8>
// CHECK: %[[BOTTOM:.*]] = memref.subview %[[PADDED]][0, 3, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%[[PADDING]] : i8) outs(%[[BOTTOM]]
// CHECK: %[[RIGHT:.*]] = memref.subview %[[PADDED]][0, 0, 3, 0] [1, 3, 1, 32] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%[[PADDING]] : i8) outs(%[[RIGHT]]
// CHECK-NOT: linalg.fill
// CHECK: %[[FLIPPED:.*]] = arith.xori
// CHECK: memref.store %[[FLIPPED]], %[[PADDED]]
// CHECK: memref.store %[[FLIPPED]], %[[PADDED]]
// CHECK: %[[POSITIONS:.*]] = memref.view {{.*}} : memref<512xi8> to memref<16x32xi8>
// CHECK-NOT: scf.if
// CHECK: %[[W:.*]] = vector.load %{{.*}} : memref<4x2x64xi8>, vector<64xi8>
// CHECK: %[[X:.*]] = vector.load %[[POSITIONS]]{{.*}} : memref<16x32xi8>, vector<16xi8>
// CHECK: %[[LANES:.*]] = arith.extui %[[X]] : vector<16xi8> to vector<16xi32>
// CHECK: %[[BYTES:.*]] = vector.bitcast %[[LANES]] : vector<16xi32> to vector<64xi8>
// CHECK: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512(%{{.*}}, %[[BYTES]], %[[W]])
// CHECK: return
// SDOT multiplies signed bytes: no flip, no 128 (7 - 5 * 4 * 3); I8MM's
// SMMLA is no lane dot product: a multiply and an add of int32 lanes.
// SDOT-LABEL: func.func @depthwise
// SDOT: call @qfx_sdot_depthwise_0
// SDOT-DAG: memref.global "private" constant @qfx_sdot_depthwise_0_weights : memref<4x8x16xi8>
// SDOT-DAG: memref.global "private" constant @qfx_sdot_depthwise_0_bias : memref<8x4xi32> = dense<-53>
// SDOT: func.func private @qfx_sdot_depthwise_0(
// SDOT-NOT: arith.xori
// SDOT: call @qfx.intrinsic.llvm.aarch64.neon.sdot.v4i32.v16i8
// I8MM-LABEL: func.func @depthwise
// I8MM: call @qfx_i8mm_depthwise_0
// I8MM-DAG: memref.global "private" constant @qfx_i8mm_depthwise_0_weights : memref<4x4x8xi8> = dense<3>
// I8MM-DAG: memref.global "private" constant @qfx_i8mm_depthwise_0_bias : memref<4x8xi32> = dense<-53>
// I8MM: func.func private @qfx_i8mm_depthwise_0(
// I8MM-NOT: call @qfx.intrinsic
// I8MM: arith.muli {{.*}} : vector<8xi32>
// I8MM-NOT: call @qfx.intrinsic
// I8MM: return
func.func @depthwise(%a: tensor<1x3x3x16xi8>) -> tensor<1x2x2x32xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<2x2x16x2xi8>}> : () -> tensor<2x2x16x2xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<32xi32>}> : () -> tensor<32xi32>
  %r = qfx.contract depthwise_conv2d %a, %w bias(%b) {input_zp = 5 : i64, dilation = array<i64: 1, 1>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = 0, min = -128, max = 127>} : (tensor<1x3x3x16xi8>, tensor<2x2x16x2xi8>, tensor<32xi32>) -> tensor<1x2x2x32xi8>
  return %r : tensor<1x2x2x32xi8>
}

// -----

// An average pool's window sum (a depthwise convolution with ones, then an
// add and a division, not a rescale the kernels take): the kernel stores the
// int32 sums (with the bias) and the add stays.
// CHECK-LABEL: func.func @window_sum
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x1x1x4xi32>
// CHECK: call @qfx_vnni_depthwise_0(%{{.*}}, %[[OUT]],
// CHECK: %[[SUM:.*]] = bufferization.to_tensor %[[OUT]]
// CHECK: tosa.add %[[SUM]]
// CHECK-NOT: tosa.depthwise_conv2d
// CHECK: func.func private @qfx_vnni_depthwise_0(%{{.*}}: memref<1x2x2x4xi8>, %{{.*}}: memref<1x1x1x4xi32>,
// CHECK-NOT: arith.trunci {{.*}} to vector
// CHECK: vector.extract {{.*}} : i32 from vector<16xi32>
// CHECK: memref.store {{.*}} : memref<1x4xi32>
func.func @window_sum(%a: tensor<1x2x2x4xi8>) -> tensor<1x1x1x4xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x2x4x1xi8>}> : () -> tensor<2x2x4x1xi8>
  %acc = qfx.contract depthwise_conv2d %a, %w {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x4xi8>, tensor<2x2x4x1xi8>) -> tensor<1x1x1x4xi32>
  %two = "tosa.const"() <{values = dense<2> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
  %sum = tosa.add %acc, %two : (tensor<1x1x1x4xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x4xi32>
  return %sum : tensor<1x1x1x4xi32>
}

// -----

// A convolution on VNNI reads its windows from a copy of the input padded
// with the input zero point (here 1 row on top and 1 column on the right;
// C = 3 rounded up to a group of 4: 1x4x4x4 bytes), tap by tap: the weights
// packed per tap with a zero fourth channel; the folded constant
// 7 - (128 + 5) * 78 = -10367.
// CHECK-LABEL: func.func @conv
// CHECK: call @qfx_vnni_matmul_0
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_weights : memref<1x4x64xi8> = dense<"0x01020300{{0+}}04050600{{0+}}0708090{{0+}}A0B0C00{{0+}}">
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_bias : memref<1x16xi32> = dense<{{\[\[}}-10367, 0,
// CHECK: func.func private @qfx_vnni_matmul_0
// CHECK: %[[BYTES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi8>
// CHECK: %[[PADDED:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<64xi8> to memref<1x4x4x4xi8>
// CHECK: linalg.fill ins(%{{.*}} : i8) outs(%[[PADDED]] : memref<1x4x4x4xi8>)
// CHECK: memref.store %{{.*}}, %[[PADDED]]
// CHECK: %[[WORDS:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<64xi8> to memref<16x1xi32>
// CHECK: scf.for {{.*}} to %c4
// CHECK: scf.for
// CHECK: memref.load %[[WORDS]]
// CHECK: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512
func.func @conv(%a: tensor<1x3x3x3xi8>) -> tensor<1x3x3x1xi8> {
  %w = "tosa.const"() <{values = dense<[[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]]> : tensor<1x2x2x3xi8>}> : () -> tensor<1x2x2x3xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<1xi32>}> : () -> tensor<1xi32>
  %r = qfx.contract conv2d %a, %w bias(%b) {input_zp = 5 : i64, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 0, 1>, stride = array<i64: 1, 1>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = 0, min = -128, max = 127>} : (tensor<1x3x3x3xi8>, tensor<1x2x2x3xi8>, tensor<1xi32>) -> tensor<1x3x3x1xi8>
  return %r : tensor<1x3x3x1xi8>
}

// -----

// A pointwise convolution (1x1, stride 1, no padding): the window of output
// pixel m starts at input position m, with no division of m into (n, oh, ow)
// for each row of a tile.
// CHECK-LABEL: func.func @pointwise_conv
// CHECK: func.func private @qfx_vnni_matmul_0
// CHECK: %[[WORDS:.*]] = memref.view {{.*}} : memref<24xi8> to memref<6x1xi32>
// CHECK-NOT: arith.{{divui|remui}} %{{.*}}, %c{{[36]}}{{(_[0-9]+)?}} :
// CHECK: memref.load %[[WORDS]]
// CHECK: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512
func.func @pointwise_conv(%a: tensor<1x2x3x4xi8>) -> tensor<1x2x3x1xi8> {
  %w = "tosa.const"() <{values = dense<[[[[1, 2, 3, 4]]]]> : tensor<1x1x1x4xi8>}> : () -> tensor<1x1x1x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<1xi32>}> : () -> tensor<1xi32>
  %r = qfx.contract conv2d %a, %w bias(%b) {input_zp = 5 : i64, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = 0, min = -128, max = 127>} : (tensor<1x2x3x4xi8>, tensor<1x1x1x4xi8>, tensor<1xi32>) -> tensor<1x2x3x1xi8>
  return %r : tensor<1x2x3x1xi8>
}

// -----

// M = 49 (7x7) is not a multiple of the tiles' 8 rows: the tiles of the
// last row run in the same parallel loop as the others (one fork and join
// fewer), a branch on the tile's first row; each branch in an
// scf.execute_region that canonicalization keeps (an AMX tile's
// memref.alloca_scope splits its block when lowered).
// CHECK-LABEL: func.func @tail_rows
// CHECK: func.func private @qfx_vnni_matmul_0(
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: %[[FULL:.*]] = arith.cmpi ult, %{{.*}}, %c48{{(_[0-9]+)?}} : index
// CHECK: scf.if %[[FULL]] {
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK: } else {
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @tail_rows(%a: tensor<1x7x7x832xi8>) -> tensor<1x7x7x384xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<384x1x1x832xi8>}> : () -> tensor<384x1x1x832xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<384xi32>}> : () -> tensor<384xi32>
  %r = qfx.contract conv2d %a, %w bias(%b) {input_zp = 5 : i64, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [40], output_zp = 0, min = -128, max = 127>} : (tensor<1x7x7x832xi8>, tensor<384x1x1x832xi8>, tensor<384xi32>) -> tensor<1x7x7x384xi8>
  return %r : tensor<1x7x7x384xi8>
}

// -----

// With one channel (C not a whole number of groups of 4), a 3x3 kernel's row
// of 3 positions is contiguous in the padded copy: a tap is a kernel row, 3
// values in one group (not three groups of 1 value and 3 zeros), read with an
// unaligned 4-byte load; the copy has 3 more columns on the right (1 + 4 + 1
// + 3 = 9) for the group that reads past the row's last position.
// CHECK-LABEL: func.func @conv_row_taps
// CHECK: call @qfx_vnni_matmul_0
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_weights : memref<1x3x64xi8> = dense<"0x01020300{{0+}}04050600{{0+}}07080900{{0+}}">
// CHECK: func.func private @qfx_vnni_matmul_0
// CHECK: %[[PADDED:.*]] = memref.view {{.*}} : memref<54xi8> to memref<1x6x9x1xi8>
// CHECK: memref.subview %[[PADDED]][0, 1, 5, 0] [1, 4, 4, 1]
// CHECK: %[[ELEMENTS:.*]] = memref.view {{.*}} : memref<54xi8> to memref<54xi8>
// CHECK: scf.for {{.*}} to %c3
// CHECK: %[[GROUP:.*]] = vector.load %[[ELEMENTS]][%{{.*}}] : memref<54xi8>, vector<4xi8>
// CHECK: vector.bitcast %[[GROUP]] : vector<4xi8> to vector<1xi32>
// CHECK: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512
func.func @conv_row_taps(%a: tensor<1x4x4x1xi8>) -> tensor<1x4x4x1xi8> {
  %w = "tosa.const"() <{values = dense<[[[[1], [2], [3]], [[4], [5], [6]], [[7], [8], [9]]]]> : tensor<1x3x3x1xi8>}> : () -> tensor<1x3x3x1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<1xi32>}> : () -> tensor<1xi32>
  %r = qfx.contract conv2d %a, %w bias(%b) {input_zp = 5 : i64, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = 0, min = -128, max = 127>} : (tensor<1x4x4x1xi8>, tensor<1x3x3x1xi8>, tensor<1xi32>) -> tensor<1x4x4x1xi8>
  return %r : tensor<1x4x4x1xi8>
}

// -----

// A grouped convolution, as the exporter writes it (a conv2d whose weight is
// zero outside each output channel's group; here 2 groups of 4 input and 16
// output channels): each column block of 16 outputs reads only its group's
// channels, so the kernel loops over the groups of 4 k values in the block's
// `_ranges`, [0, 1) and [1, 2) of each tap's 2, not over all of them; one
// block a tile, as a pair would read both groups.
// CHECK-LABEL: func.func @grouped_conv
// CHECK: call @qfx_vnni_matmul_0
// CHECK-DAG: memref.global "private" constant @qfx_vnni_matmul_0_ranges : memref<2x2xi32> = dense<{{\[\[}}0, 1], [1, 2]]>
// CHECK: func.func private @qfx_vnni_matmul_0(%{{.*}}: memref<1x4x4x8xi8>, %{{.*}}: memref<1x4x4x32xi8>, %[[RANGES:.*]]: memref<2x2xi32>,
// CHECK: %[[FIRST:.*]] = memref.load %[[RANGES]]
// CHECK: %[[FROM:.*]] = arith.index_cast %[[FIRST]]
// CHECK: %[[END:.*]] = memref.load %[[RANGES]]
// CHECK: %[[TO:.*]] = arith.index_cast %[[END]]
// CHECK: scf.for %{{.*}} = %[[FROM]] to %[[TO]]
// CHECK: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512
func.func @grouped_conv(%a: tensor<1x4x4x8xi8>) -> tensor<1x4x4x32xi8> {
  %w = "tosa.const"() <{values = dense<[[[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[1, 1, 1, 1, 0, 0, 0, 0]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]], [[[0, 0, 0, 0, 1, 1, 1, 1]]]]> : tensor<32x1x1x8xi8>}> : () -> tensor<32x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<32xi32>}> : () -> tensor<32xi32>
  %r = qfx.contract conv2d %a, %w bias(%b) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [33], output_zp = 0, min = -128, max = 127>} : (tensor<1x4x4x8xi8>, tensor<32x1x1x8xi8>, tensor<32xi32>) -> tensor<1x4x4x32xi8>
  return %r : tensor<1x4x4x32xi8>
}

// -----

// A float convolution (an observed model's, which calibration runs) becomes
// a call of a float kernel: weights packed [block][k][lane]; every sum starts from
// its channel's bias and adds each product with its own rounding (a mulf,
// then an addf, as the generic lowering; no fused multiply-add). The column
// block is the target's float vector: 16 lanes on AVX-512, 8 on AVX2, 4 on
// NEON.
// CHECK-LABEL: func.func @float_conv
// CHECK: call @qfx_vnni_f32_0({{.*}}) : (memref<1x3x3x2xf32>, memref<1x3x3x3xf32>, memref<1x2x16xf32>, memref<1x16xf32>) -> ()
// CHECK-DAG: memref.global "private" constant @qfx_vnni_f32_0_weights : memref<1x2x16xf32>
// CHECK-DAG: memref.global "private" constant @qfx_vnni_f32_0_bias : memref<1x16xf32> = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00,
// CHECK: func.func private @qfx_vnni_f32_0({{.*}}, %{{.*}}: memref<1x2x16xf32>, %[[BIAS:.*]]: memref<1x16xf32>)
// CHECK: vector.load %[[BIAS]]
// CHECK: scf.for
// CHECK: %[[PRODUCT:.*]] = arith.mulf %{{.*}} : vector<16xf32>
// CHECK: arith.addf %{{.*}}, %[[PRODUCT]] : vector<16xf32>
// CHECK-NOT: math.fma
// CHECK: memref.store %{{.*}} : memref<9x3xf32>
// NONE-LABEL: func.func @float_conv
// NONE: qfx.contract conv2d
// AVX2-LABEL: func.func @float_conv
// AVX2: call @qfx_avx2_f32_0
// AVX2: memref.global "private" constant @qfx_avx2_f32_0_bias : memref<1x8xf32>
// SDOT-LABEL: func.func @float_conv
// SDOT: call @qfx_sdot_f32_0
// SDOT: memref.global "private" constant @qfx_sdot_f32_0_bias : memref<1x4xf32>
func.func @float_conv(%a: tensor<1x3x3x2xf32>) -> tensor<1x3x3x3xf32> {
  %w = "tosa.const"() <{values = dense<[[[[0.5, -1.0]]], [[[2.0, 0.25]]], [[[1.0, 1.0]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %a, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// -----

// A grouped float convolution (2 groups of 4 input and 16 output channels,
// the weight zero outside them): each column block of 16 outputs adds only
// its group's channels, [0, 4) and [4, 8) of the tap's 8 (`_ranges`), one
// block a tile; PyTorch's grouped convolution never multiplies the zeros.
// CHECK-LABEL: func.func @float_grouped_conv
// CHECK-DAG: memref.global "private" constant @qfx_vnni_f32_0_ranges : memref<2x2xi32> = dense<{{\[\[}}0, 4], [4, 8]]>
// CHECK: func.func private @qfx_vnni_f32_0(%{{.*}}: memref<1x2x2x8xf32>, %{{.*}}: memref<1x2x2x32xf32>, %{{.*}}: memref<2x8x16xf32>, %{{.*}}: memref<2x16xf32>, %[[RANGES:.*]]: memref<2x2xi32>)
// CHECK: %[[FIRST:.*]] = memref.load %[[RANGES]]
// CHECK: %[[FROM:.*]] = arith.index_cast %[[FIRST]]
// CHECK: %[[END:.*]] = memref.load %[[RANGES]]
// CHECK: %[[TO:.*]] = arith.index_cast %[[END]]
// CHECK: scf.for %{{.*}} = %[[FROM]] to %[[TO]]
// CHECK: arith.mulf %{{.*}} : vector<16xf32>
func.func @float_grouped_conv(%a: tensor<1x2x2x8xf32>) -> tensor<1x2x2x32xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]], [[[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]]]> : tensor<32x1x1x8xf32>}> : () -> tensor<32x1x1x8xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<32xf32>}> : () -> tensor<32xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %a, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x8xf32>, tensor<32x1x1x8xf32>, tensor<32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x32xf32>
  return %y : tensor<1x2x2x32xf32>
}

// -----

// A float matmul with a constant weight (a Linear's; its bias is the add
// after it) reads A's rows in place, without a copy, and starts each sum
// from 0.0, as the generic lowering's fill.
// CHECK-LABEL: func.func @float_matmul
// CHECK: call @qfx_vnni_f32_0({{.*}}) : (memref<1x2x3xf32>, memref<1x2x20xf32>, memref<2x3x16xf32>, memref<2x16xf32>) -> ()
// CHECK-DAG: memref.global "private" constant @qfx_vnni_f32_0_weights : memref<2x3x16xf32>
// CHECK-DAG: memref.global "private" constant @qfx_vnni_f32_0_bias : memref<2x16xf32> = dense<0.000000e+00>
// CHECK: func.func private @qfx_vnni_f32_0
// CHECK-NOT: memref.alloc
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<1x2x3xf32> into memref<2x3xf32>
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @float_matmul(%a: tensor<1x2x3xf32>) -> tensor<1x2x20xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<1x3x20xf32>}> : () -> tensor<1x3x20xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %a, %w, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x20xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x20xf32>
  return %y : tensor<1x2x20xf32>
}

// -----

// A float matmul by a weight computed at run time (attention's Q K^T): the
// weight is the kernel's third argument; each batch's [K, N] is packed into
// 16-column blocks, the last one lane by lane with zeros beyond N, then
// multiplied as a constant weight is, every sum from 0.0. Two batches of
// little work run one after the other.
// CHECK-LABEL: func.func @runtime_matmul
// CHECK: call @qfx_vnni_f32_0(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<2x3x5xf32>, memref<2x3x20xf32>, memref<2x5x20xf32>) -> ()
// CHECK: func.func private @qfx_vnni_f32_0(%[[A:.*]]: memref<2x3x5xf32>, %[[OUT:.*]]: memref<2x3x20xf32>, %[[W:.*]]: memref<2x5x20xf32>)
// CHECK: %[[PACKED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x5x16xf32>
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[B:.*]] =
// CHECK: %[[BPACKED:.*]] = memref.subview %[[PACKED]][%[[B]], 0, 0, 0] [1, 2, 5, 16]
// CHECK: %[[BW:.*]] = memref.subview %[[W]][%[[B]], 0, 0] [1, 5, 20]
// CHECK: %[[ROW:.*]] = vector.load %[[BW]]{{.*}} vector<16xf32>
// CHECK: vector.store %[[ROW]], %[[BPACKED]]
// CHECK: vector.store %[[ZEROS:.*]], %[[BPACKED]]
// CHECK-COUNT-4: memref.load %[[BW]]
// CHECK: %[[BA:.*]] = memref.subview %[[A]][%[[B]], 0, 0] [1, 3, 5]
// CHECK: %[[BOUT:.*]] = memref.subview %[[OUT]][%[[B]], 0, 0] [1, 3, 20]
// CHECK: vector.load %[[BPACKED]]
// CHECK: memref.load %[[BA]]
// CHECK: %[[PRODUCT:.*]] = arith.mulf %{{.*}} : vector<16xf32>
// CHECK: arith.addf %{{.*}}, %[[PRODUCT]] : vector<16xf32>
// CHECK-NOT: math.fma
// CHECK: vector.store %{{.*}}, %[[BOUT]]
// CHECK-NOT: scf.parallel
// CHECK: return
// NONE-LABEL: func.func @runtime_matmul
// NONE: qfx.contract matmul
// AVX2-LABEL: func.func @runtime_matmul
// AVX2: func.func private @qfx_avx2_f32_0
// AVX2: memref.alloc() {alignment = 64 : i64} : memref<2x3x5x8xf32>
// SDOT-LABEL: func.func @runtime_matmul
// SDOT: func.func private @qfx_sdot_f32_0
// SDOT: memref.alloc() {alignment = 64 : i64} : memref<2x5x5x4xf32>
func.func @runtime_matmul(%a: tensor<2x3x5xf32>, %w: tensor<2x5x20xf32>) -> tensor<2x3x20xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %a, %w, %zp, %zp : (tensor<2x3x5xf32>, tensor<2x5x20xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x20xf32>
  return %y : tensor<2x3x20xf32>
}

// -----

// Attention's scores of 4 heads: one head's 2^20 multiply-adds are too few
// for threads, the four heads' are enough: the heads run on threads, each
// head's tiles on one.
// CHECK-LABEL: func.func @attention_scores
// CHECK: func.func private @qfx_vnni_f32_0
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x8x64x16xf32>
// CHECK: scf.parallel (%[[HEAD:.*]]) =
// CHECK: memref.subview %{{.*}}[%[[HEAD]], 0, 0, 0]
// CHECK-NOT: scf.parallel
// CHECK: return
// SDOT-LABEL: func.func @attention_scores
// SDOT: func.func private @qfx_sdot_f32_0
// SDOT-NOT: scf.parallel
// SDOT: return
func.func @attention_scores(%q: tensor<4x128x64xf32>, %k: tensor<4x64x128xf32>) -> tensor<4x128x128xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %q, %k, %zp, %zp : (tensor<4x128x64xf32>, tensor<4x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x128x128xf32>
  return %y : tensor<4x128x128xf32>
}

// -----

// An int8 max pool keeps each block of channels' maximum in a register: 64
// bytes, then the remaining 6 channels as 4 and 2, over the window's rows and
// columns clipped to the input (the padding, TOSA's int8 minimum, never
// wins), starting from -128. Without kernels it stays TOSA.
// CHECK-LABEL: func.func @max_pool
// CHECK: call @qfx_vnni_maxpool_0({{.*}}) : (memref<1x9x9x70xi8>, memref<1x5x5x70xi8>) -> ()
// CHECK: func.func private @qfx_vnni_maxpool_0
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.constant dense<-128> : vector<64xi8>
// CHECK: scf.for
// CHECK: vector.load %{{.*}} : memref<1x9x9x70xi8>, vector<64xi8>
// CHECK: arith.maxsi %{{.*}} : vector<64xi8>
// CHECK: vector.store %{{.*}} : memref<25x70xi8>, vector<64xi8>
// CHECK: vector.load %{{.*}} : memref<1x9x9x70xi8>, vector<4xi8>
// CHECK: vector.load %{{.*}} : memref<1x9x9x70xi8>, vector<2xi8>
// CHECK-NOT: vector<1xi8>
// NONE-LABEL: func.func @max_pool
// NONE: tosa.max_pool2d
// SDOT-LABEL: func.func @max_pool
// SDOT: call @qfx_sdot_maxpool_0
func.func @max_pool(%a: tensor<1x9x9x70xi8>) -> tensor<1x5x5x70xi8> {
  %y = tosa.max_pool2d %a {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x9x9x70xi8>) -> tensor<1x5x5x70xi8>
  return %y : tensor<1x5x5x70xi8>
}
