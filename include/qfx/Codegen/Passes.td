//===- Passes.td - qfx code generation passes --------------*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CODEGEN_PASSES_TD
#define QFX_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def QFXCodegen : Pass<"qfx-codegen", "::mlir::ModuleOp"> {
  let summary = "Replaces qfx.contract ops (int8 with their requantization, "
                "and float) and int8 max_pool2d with native kernels (AVX-512 "
                "VNNI, AMX, AVX2, AArch64 SDOT and SMMLA)";
  let description = [{
    Turns each `qfx.contract` that `qfx-lower` writes for a Linear layer or a
    Conv2d (`qfx-tosa-to-contract` writes a float model's contractions so
    too),

    ```mlir
    %y = qfx.contract matmul %x, %w {input_zp = -3 : i64,   // %w constant
           epilogue = #qfx.rescale<fraction_bits = 0, bias = [...],
                                   multipliers = [...], shifts = [...],
                                   output_zp = 5, min = -128, max = 127>}
         : (tensor<1x8x64xi8>, tensor<1x64x32xi8>) -> tensor<1x8x32xi8>
    ```

    into a call of a generated kernel function that computes the same
    integers bit for bit: the weights are packed at compile time into the
    layout the microkernel reads (`qfx-pack-weights`, for contractions it
    has not packed; a packing another target's kernels read is an error),
    the zero-point terms and the bias are folded
    into one int32 constant per output channel, and the epilogue is the
    op's: `tosa.rescale`'s arithmetic (64-bit multiply, rounding add, shift,
    output zero point, clamp) for `#qfx.rescale`, PyTorch's float
    requantization for `#qfx.requantize`; without an epilogue the kernel
    stores the int32 sums. A conv2d runs as a GEMM whose rows are the
    input's windows, read tap by tap from a copy of the input padded with
    its zero point (SMMLA and AMX kernels copy the im2col rows).

    Targets:
    - `x86-64-avx512vnni`: an 8x32 microkernel of `vpdpbusd` (unsigned x
      signed bytes, called as an LLVM intrinsic, since LLVM does not select
      it from plain IR). Activations are made unsigned by flipping their top
      bit (adding 128); the compensation `128 * column sums` is part of the
      folded constant. K is padded to a multiple of 4 and N to 16 in the
      packed weights (and A copied into a zero-padded buffer when K is not a
      multiple of 4); the last rows use a shorter tile and a partial last
      column block is stored lane by lane.
    - `x86-64-amx`: matmul and conv2d contractions get a dispatch that asks Linux
      once per process for AMX tile data (`arch_prctl(ARCH_REQ_XCOMP_PERM,
      XFEATURE_XTILEDATA)`, an inline `syscall`; the answer is kept in a
      global) and then calls a tile kernel, or the VNNI kernel when Linux
      refuses (no AMX in the CPU or the kernel). The tile kernel: A copied
      (im2col rows for a convolution) with M padded to 16 and K to 64, the
      VNNI weight layout with K padded to 64, a 32x32 microkernel of four
      16x16 int32 tiles (`amx.tile_muli`, i.e. `tdpbusd`, per 64 k values),
      the tiles stored to a stack buffer for the same epilogue; compiled
      with `+amx-tile,+amx-int8` whatever the module's CPU. Depthwise
      convolutions get the VNNI kernel. `qfx-emulate-amx` runs the tile
      kernels without AMX, for testing.
    - `x86-64-avx2`: for x86 machines without VNNI, the same kernels with
      `vpmaddwd` (8 lanes of a ymm register) on A and weights sign-extended
      to int16 pairs, then an add (the byte form `vpmaddubsw` saturates).
    - `aarch64-dotprod`: the same kernels with SDOT (signed x signed bytes,
      4 int32 lanes per NEON register, `llvm.aarch64.neon.sdot`): no top-bit
      flip, plain loops (no OpenMP runtime is assumed on AArch64).
    - `aarch64-i8mm`: SMMLA (`llvm.aarch64.neon.smmla`: a 2x8 block of
      signed bytes by an 8x2 block into a 2x2 block of int32): A copied in
      pairs of rows interleaved by 8 k values, 8-column blocks, an 8x8
      microkernel of 16 SMMLAs per 8 k values; each row's sums gathered by
      shuffles before the same epilogue. Plain loops.
    - `host`: `x86-64-avx512vnni` if this machine has AVX-512 VNNI, else
      `x86-64-avx2` if it has AVX2, else `aarch64-i8mm` if it has I8MM, else
      `aarch64-dotprod` if it has the dot-product extension, else nothing
      (the contractions stay for the generic lowering).
    - `none`: nothing.

    On x86, for GEMMs of at least 2^22 multiply-adds (smaller ones run on
    one thread: a fork and join would cost more), the tiles and the copy of
    A are `scf.parallel` loops that the lowering (`convert-scf-to-openmp`)
    runs on OpenMP threads: column-block pairs are split across threads, or
    rows when the packed weights fit in L2 (256 KB). Contractions whose
    weight zero point is not 0, whose weights are not constant, whose shapes
    are not static, a matmul of more than one batch, a transpose_conv2d and
    a float depthwise_conv2d are left alone (`qfx-contract-to-tosa` expands
    them for the generic lowering).

    A `depthwise_conv2d` contraction (the same epilogues) becomes a direct
    convolution over the NHWC input, vectorized over blocks of output
    channels (the target's lanes): for each output pixel and block, the sum
    over the taps inside the input of `(x - input zero point) * w` in int32
    (a tap in the padding adds nothing, as in TOSA), with plain vector
    arithmetic (both factors sign-extended bytes, which x86 multiplies with
    `vpmaddwd`), then the same epilogue. Output channel `o` reads input
    channel `o / multiplier`: one load and a shuffle when the multiplier
    divides the lanes, else lane by lane. Output pixels run on OpenMP threads
    under the same rule as the GEMMs, a depthwise multiply-add counted as 8.

    Float contractions get kernels too (`<prefix>f32_N`): a conv2d on f32
    with a constant weight and bias and a matmul on f32 with a constant
    weight (an observed model's convolutions and Linears, which calibration
    runs), as the same GEMMs on float vectors (16 lanes on
    AVX-512, 8 on AVX2, 4 on NEON) in 8x2 tiles (4x2 on AVX2). Each sum
    starts from the bias (a matmul's from 0.0) and adds the products in k
    order with a multiply and an add each (no fused multiply-add): the
    generic lowering's floats, bit for bit.

    A contraction without epilogue (a global average pool's window sums,
    which PyTorch's rounding division follows; a dynamic Linear's sums) gets
    a kernel that stores the int32 sums with the accumulator bias.

    An int8 `tosa.max_pool2d` with static shapes becomes a max pooling
    kernel (`<prefix>maxpool_N`): for each output pixel (on threads under
    the GEMMs' rule) and block of channels (a register of bytes, then
    vectors of halving widths for the rest), the maximum over the window's
    rows and columns clipped to the input (TOSA pads with the int8 minimum,
    which never wins), kept in a register from -128; the generic lowering
    keeps it in the output buffer, a load and a store per tap.

    A kernel's constants are module globals (`<kernel>_weights`, `_bias`,
    `_scalars`: the output and input zero points, the clamp and the float
    requantization's zero point and bounds, ...) that the call passes as
    arguments after the input and the output: contractions of the same
    geometry and epilogue structure build the same function, and every one
    after the first calls the first one with its own globals.
  }];
  let options = [
    Option<"target", "target", "::qfx::NativeTarget",
           /*default=*/"::qfx::NativeTarget::Host",
           "The target of the kernels (qfx/Codegen/Targets.h): host, "
           "x86-64-avx512vnni, x86-64-amx, x86-64-avx2, aarch64-dotprod, "
           "aarch64-i8mm or none", "::qfx::nativeTargetValues()">
  ];
  let dependentDialects = [
    "::mlir::amx::AMXDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def QFXPackWeights : Pass<"qfx-pack-weights", "::mlir::ModuleOp"> {
  let summary = "Packs the constant weights of GEMM contractions (int8 and "
                "float) into their target's kernel layout, as IR";
  let description = [{
    The first layer of qfx-codegen's GEMM kernels, in the IR (as IREE's data
    tiling packs with `linalg.pack`): each `qfx.contract` that the target's
    GEMM kernels take (an int8 or float `matmul` of one batch or `conv2d`
    with a constant weight, weight zero point 0 and static shapes) gets its
    weights packed for the target's microkernel as a `packed` operand with
    its `#qfx.weight_packing`:

    ```mlir
    %k = tensor.collapse_shape %w [[0, 1], [2]]
         : tensor<1x20x40xi8> into tensor<20x40xi8>
    %t = linalg.transpose ins(%k : tensor<20x40xi8>)
         outs(%e : tensor<40x20xi8>) permutation = [1, 0]
    %p = linalg.pack %t padding_value(%c0_i8 : i8) inner_dims_pos = [0, 1]
         inner_tiles = [16, 4] into %e2 : tensor<40x20xi8> -> tensor<3x5x16x4xi8>
    %c = tensor.collapse_shape %p [[0], [1], [2, 3]]
         : tensor<3x5x16x4xi8> into tensor<3x5x64xi8>
    %y = qfx.contract matmul %a, %w packed(%c) {weight_packing =
           #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 5>,
           ...}
    ```

    The weights as [N, K] (a matmul's transposed; a convolution's
    `[O, KH, KW, C]` as `[O, taps, K / taps]`), widened to i16 where the
    target multiplies int16 (AVX2), each tap's run zero-padded to whole
    groups (and K to the microkernel's multiple: 64 values on AMX), then
    `linalg.pack` into `[column block][k group][lane][group]`, held as
    `[column block][k group][lane * group]` (the kernel's global). Which runs
    the target reads: one per tap (C channels) for the dot-product kernels'
    direct convolutions, one per kernel row (KW * C values) where C is not a
    whole number of groups and that saves groups, one for all of K (an
    im2col row) on SMMLA and AMX and for a matmul. The float kernels read
    one k value at a time (groups of 1) in the target's float lanes. On `x86-64-amx` the VNNI
    kernel that runs where Linux refuses AMX reads the tile kernel's packing.

    With `fold`, the packing ops are evaluated at compile time into the
    constant the contraction reads, as qfx-codegen does before building its
    kernels (it packs the contractions this pass has not). Other
    contractions are left as they are.
  }];
  let options = [
    Option<"target", "target", "::qfx::NativeTarget",
           /*default=*/"::qfx::NativeTarget::Host",
           "The target whose microkernels read the packed weights "
           "(qfx/Codegen/Targets.h)", "::qfx::nativeTargetValues()">,
    Option<"fold", "fold", "bool", /*default=*/"false",
           "Evaluate the packing into constants">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def QFXEmulateAmx : Pass<"qfx-emulate-amx", "::mlir::ModuleOp"> {
  let summary = "Runs qfx-codegen's AMX tile kernels with AVX-512 VNNI "
                "(for testing on machines without AMX)";
  let description = [{
    Rewrites the `amx` dialect ops of `qfx-codegen{target=x86-64-amx}`'s
    tile kernels into vector code that computes the same integers, and
    calls the tile kernels without asking Linux for AMX: the kernels'
    packing, padding, loops and epilogue then run, and are tested, on any
    machine with AVX-512 VNNI. A tile is one 1-D vector a row (loaded and
    stored row by row); `tdpbusd` is, by its definition, for each row `m` and group
    `g` of 4 k values, `C[m] = vpdpbusd(C[m], broadcast(A[m][g]), B[g])`.

    ```mlir
    %c = amx.tile_muli %a zext, %b, %acc
        : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
    // becomes, for each of the 16 rows and 16 groups,
    %r = func.call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512(%row, %bcast, %b_g)
    ```

    Only the ops qfx-codegen emits are handled (`tile_zero`, `tile_load` and
    `tile_store` with an implicit stride, `tile_muli` unsigned x signed);
    others make the pass fail. Not a substitute for AMX: it is slower than
    the VNNI kernels.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def QFXFuseElementwise : Pass<"qfx-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "linalg-fuse-elementwise-ops, fusing a producer only into a "
                "consumer that reads each of its elements once";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` fuses any single-use
    elementwise producer into its consumer, also where the consumer reads
    the producer's elements many times: a dequantization (eight float ops
    per element, PyTorch's fma form) fused into the matmul of two
    activations ran once per multiply-add, 86 % of a BERT encoder's time.
    This pass applies the same patterns (elementwise fusion, reshape
    folding by expansion, constant folding, canonicalizations) but fuses a
    producer only where the consumer's indexing map of it is a permutation
    of all the consumer's loops; otherwise the producer stays a loop nest
    of its own, computed once.

    ```mlir
    %a = linalg.generic ... ins(%q : tensor<4x128x64xi8>) -> tensor<4x128x64xf32>  // dequantize
    %c = linalg.batch_matmul ins(%a, %b ...)  // reads %a once per output column: not fused
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def QFXInterchangeReductions : Pass<"qfx-interchange-reductions",
                                    "::mlir::func::FuncOp"> {
  let summary = "Moves the loop of a linalg op's innermost output dimension "
                "innermost when reductions are innermost (pooling, "
                "depthwise convolution), so that LLVM vectorizes it";
  let description = [{
    `convert-linalg-to-loops` emits a linalg op's loops in its iteration
    order. Pooling and depthwise convolution iterate `(n, oh, ow, c, kh,
    kw)`: the innermost loops are the window's reductions, three iterations
    each, and LLVM's loop vectorizer finds nothing to vectorize (an int8
    3x3 max pooling of 112x112x64 took 3-5 ms). Where the innermost loop
    is a reduction, the output's innermost dimension is a parallel loop `d`,
    and every operand either does not use `d` or has it, alone, as its
    innermost dimension (contiguous), this pass generalizes the op and makes
    `d` the innermost loop, the others keeping their order: `(n, oh, ow,
    kh, kw, c)`, whose inner loop runs over contiguous channels. Ops it
    cannot generalize, and those where `d` would be strided in an operand
    (a convolution's filter), are left alone.

    ```mlir
    %r = linalg.pooling_nhwc_max {strides = dense<2> : vector<2xi64>, ...}
        ins(%x, %window : tensor<1x113x113x64xi8>, tensor<3x3xi8>) outs(%init : ...)
    // becomes a linalg.generic with iterator_types
    //   [parallel, parallel, parallel, reduction, reduction, parallel]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def QFXParallelLinalg : Pass<"qfx-parallel-linalg", "::mlir::ModuleOp"> {
  let summary = "Splits the outer parallel loops of the linalg ops between "
                "the kernels (elementwise ops, table lookups, pools) across "
                "threads";
  let description = [{
    qfx-codegen's kernels run their tiles on OpenMP threads; the ops it
    leaves to the generic lowering (elementwise ops and casts, table
    lookups, average pools, the ops of float islands) became sequential
    loops on the calling thread. On two threads they took as long as on
    one, and the kernel after each read half of its input from the other
    core's cache (efficientnet_b0 ran slower on two threads than on one).

    On buffers (after bufferization, before `convert-linalg-to-loops`), a
    linalg op with static loop ranges, not already inside an
    `scf.parallel`, whose work (its iterations times the ops of one
    iteration) is at least 2^15, is tiled (`linalg::tileLinalgOp`) into an
    `scf.parallel` over the parallel loops before its first reduction,
    outermost first: the outermost loop of more than one iteration is
    split into at most 32 pieces, and the next ones only while there are
    fewer than 8 (a 7x7 activation: 7 rows); a piece's size divides its
    loop's range (static shapes), the innermost loop (contiguous channels,
    which LLVM vectorizes) only in multiples of 16. `convert-scf-to-openmp`
    runs the pieces on the kernels' threads, each thread a contiguous run of
    them (the static schedule): a thread takes the same rows of an NHWC
    activation as in a kernel that splits rows, and reads what it wrote. An
    op no such split divides into two pieces (a global pool: one output
    pixel, its reductions before the channels) stays. Reductions stay whole
    and in order: the results are the sequential loops', bit for bit.

    Each split op moves into a private function of its own
    (`<function>_parallel`, called in its place; constants cloned, other
    values passed): the runtime compiles a program's functions in parallel
    partitions, and left in a model's one straight-line function, every
    split op and its OpenMP region would compile on one thread
    (efficientnet_b0's int8 program: `quant-run`, compiling and one call,
    5.2 s instead of 4.1 s).

    The module's `qfx.target` attribute (qfx-codegen sets it) says whether
    the target's kernels run threads (x86); for the others (AArch64, `none`)
    the pass changes nothing.

    ```mlir
    linalg.generic {iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : memref<1x112x112x32xi8>) outs(%y : memref<1x112x112x32xi8>) {...}
    // becomes
    call @main_parallel(%x, %y) : (memref<1x112x112x32xi8>, memref<1x112x112x32xi8>) -> ()
    ...
    func.func private @main_parallel(%x: memref<1x112x112x32xi8>, %y: memref<1x112x112x32xi8>) {
      scf.parallel (%h) = (%c0) to (%c112) step (%c4) {
        %xs = memref.subview %x[0, %h, 0, 0] [1, 4, 112, 32] [1, 1, 1, 1] ...
        %ys = memref.subview %y[0, %h, 0, 0] [1, 4, 112, 32] [1, 1, 1, 1] ...
        linalg.generic ... ins(%xs : ...) outs(%ys : ...) {...}
      }
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect"];
}

def QFXStridedCopiesToLoops : Pass<"qfx-strided-copies-to-loops",
                                   "::mlir::ModuleOp"> {
  let summary = "Copies between non-contiguous buffers row by row: loops "
                "around contiguous memref.copy (memcpy)";
  let description = [{
    Bufferization copies with `memref.copy`; `finalize-memref-to-llvm`
    makes a copy between contiguous buffers an `llvm.memcpy`, but calls the
    runner utilities' `memrefCopy` for any other, which copies one element
    at a time with index arithmetic: padding the 112x112x64 int8 input of a
    max pooling took about 3 ms. Run after bufferization, this pass turns
    each `memref.copy` between static buffers that are not both contiguous
    into one loop over its rows (the outer dimensions, flattened) around a
    `memref.copy` of the innermost block both hold contiguously (a padded
    tensor's rows): a `memcpy` each. Rows shorter than 256 bytes (a
    concatenation input's few channels) become a call of one function per
    element type the pass adds to the module, `qfx_copy_rows_<type>`
    (loops over the rows and their elements; LLVM vectorizes the inner one
    in int8 programs), on
    one-dimensional views of both buffers, when the outer dimensions of
    each are one sequence of equally spaced rows (else `memrefCopy` stays):
    a loop of small inlined copies per concatenation input made LLVM compile
    densenet121's calibration model in 77 s instead of 27 s, and memrefCopy
    took 23 of its int8 program's 53 ms. A copy of no elements is erased. A
    copy with no contiguous innermost
    dimension (a transposition) becomes a `linalg.copy`, loops LLVM
    vectorizes.

    ```mlir
    memref.copy %x, %interior : memref<1x4x64x8xi8> to memref<1x4x64x8xi8, strided<[2600, 520, 8, 1], offset: 528>>
    // becomes
    scf.for %row = %c0 to %c4 step %c1 {     // n * 4 + h
      %h = arith.remui %row, %c4 : index
      %n = ...
      %from = memref.subview %x[%n, %h, 0, 0] [1, 1, 64, 8] [1, 1, 1, 1] : ...
      %to = memref.subview %interior[%n, %h, 0, 0] [1, 1, 64, 8] [1, 1, 1, 1] : ...
      memref.copy %from, %to : ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def QFXInt8Clamps : Pass<"qfx-int8-clamps", "::mlir::func::FuncOp"> {
  let summary = "An integer chain from int8 to int8 that clamps its input "
                "becomes tosa.clamp";
  let description = [{
    `qfx-lower` writes PyTorch's requantizations as integer arithmetic. A
    ReLU6 or hardtanh on int8 (`quantized::hardtanh`, whose output shares its
    input's scale and zero point: mobilenet_v2 has 35) becomes a cast to
    int32, a multiply by 1048575, an add of 127, a shift right by 20 (the
    ratio of the scales, 1 in 20 bits), a maximum and a minimum, and a cast
    to int8: a separate pass over the activation, though on every int8 input
    it is the input clamped.

    This pass takes each such chain: from a `tosa.cast` of int8 to int32,
    each op the only user of the one before, `tosa.mul` (with its shift),
    `tosa.add`, `tosa.sub`, `tosa.arithmetic_right_shift`, `tosa.maximum`,
    `tosa.minimum` of the value (first operand) and a constant whose
    elements are all equal, or `tosa.clamp`, to a `tosa.cast` to int8. It
    computes the chain on the 256 int8 inputs as TOSA's int32 arithmetic does
    (no intermediate leaving int32, every result in int8 range); if the
    results are the input clamped to `[lo, hi]`, the chain becomes
    `tosa.clamp %x {min_val = lo, max_val = hi}` on int8 (keeping the last
    cast's location and `qfx.quantized`). Other chains are left alone. A
    `tosa.clamp` of a `qfx.contract`'s only use then narrows the
    contraction's epilogue (the op's canonicalization), so the kernel clamps.
    Runs in `qfx-lower-to-native` before `qfx-codegen`.

    ```mlir
    %0 = tosa.cast %x : (tensor<1x112x112x96xi8>) -> tensor<1x112x112x96xi32>
    %1 = tosa.mul %0, %c1048575, %shift0 : ...
    %2 = tosa.add %1, %c127 : ...
    %3 = tosa.arithmetic_right_shift %2, %c20 {round = false} : ...
    %4 = tosa.maximum %3, %cm59 : ...
    %5 = tosa.minimum %4, %c127 : ...
    %6 = tosa.cast %5 : (tensor<1x112x112x96xi32>) -> tensor<1x112x112x96xi8>
    // becomes
    %6 = tosa.clamp %x {max_val = 127 : i8, min_val = -59 : i8} : (tensor<1x112x112x96xi8>) -> tensor<1x112x112x96xi8>
    ```
  }];
  let dependentDialects = ["::mlir::tosa::TosaDialect"];
}

def QFXSinkConcats : Pass<"qfx-sink-concats", "::mlir::func::FuncOp"> {
  let summary = "An elementwise op of a concatenation becomes the "
                "concatenation of the op on each operand";
  let description = [{
    A `tosa.concat` whose only user is an elementwise op (`tosa.cast`,
    `tosa.mul`, `tosa.add`, `tosa.sub`, `tosa.arithmetic_right_shift`,
    `tosa.maximum`, `tosa.minimum`, `tosa.clamp`, `tosa.table`) of which it is
    the one operand that is not a `tosa.const`, and that keeps its shape,
    becomes the concatenation of that op applied to each of the concat's
    operands: a constant with the concat's extent along its axis (a batch
    norm's per-channel multiplier) is sliced for each piece, others (a scalar,
    a shift, a table, one that broadcasts along the axis) are shared. Applied
    until no pattern matches, the concat moves past the whole elementwise
    chain. Each piece's loop then writes straight into its part of the
    concatenated buffer (`eliminate-empty-tensors` before bufferization), so
    the concatenation copies nothing: a densenet's dense layer concatenates
    all earlier features and runs its batch norm and ReLU on the result; the
    copies took 1.2 of densenet121's 18 ms. Constants of more than 2^16
    elements are not sliced, and concatenations of more than `max-operands`
    operands (12) are left alone: every piece is a loop of the program's
    function, and LLVM's loop analyses cost more than linearly in the loops
    of one function (sinking all of densenet121's concatenations, up to 25
    operands, made 535 loops: compiling took 18.6 s instead of 5.2 s, for
    1.0 ms; at most 12 operands, 8.6 s for 0.85 ms). Runs in
    `qfx-lower-to-native` before `qfx-codegen`.

    ```mlir
    %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x7x7x32xi32>, tensor<1x7x7x16xi32>) -> tensor<1x7x7x48xi32>
    %y = tosa.add %c, %bias : (tensor<1x7x7x48xi32>, tensor<1x1x1x48xi32>) -> tensor<1x7x7x48xi32>
    // becomes
    %ya = tosa.add %a, %bias_0_32 : (tensor<1x7x7x32xi32>, tensor<1x1x1x32xi32>) -> tensor<1x7x7x32xi32>
    %yb = tosa.add %b, %bias_32_48 : (tensor<1x7x7x16xi32>, tensor<1x1x1x16xi32>) -> tensor<1x7x7x16xi32>
    %y = tosa.concat %ya, %yb {axis = 3 : i32} : (tensor<1x7x7x32xi32>, tensor<1x7x7x16xi32>) -> tensor<1x7x7x48xi32>
    ```
  }];
  let options = [
    Option<"maxOperands", "max-operands", "unsigned", /*default=*/"12",
           "Sink only concatenations of at most this many operands: each "
           "operand gets a loop of its own, and LLVM's compile time grows "
           "faster than linearly with the loops of one function">
  ];
  let dependentDialects = ["::mlir::tosa::TosaDialect"];
}

def QFXFloatIslandTables : Pass<"qfx-float-island-tables",
                                "::mlir::func::FuncOp"> {
  let summary = "An elementwise float op between an int8 dequantization and "
                "quantization becomes a 256-entry table the program computes";
  let description = [{
    An op the backend does not quantize (SiLU on onednn: efficientnet_b0
    has 49) runs in float between a dequantization and a quantization, as
    in PyTorch: each element is dequantized, goes through the op (a SiLU's
    `expf`, one libm call an element) and is quantized again, about 3 ns an
    element. Where the input is int8 per-tensor, the op is a `qfx.composite`
    whose body is elementwise TOSA on its one input (other operands
    constants of size 1) and its only user is a per-tensor
    `quant.qcast`, the output takes at most 256 values: this pass makes the
    program compute them, the same composite on the 256 possible inputs (a
    `[1, ..., 1, 256]` tensor of every int8 value, dequantized and
    quantized as the activation is; its body retyped to that shape), and
    look the activation up in them with `tosa.table`. The float arithmetic
    is the same ops lowered the same way (a GELU's by `qfx-lower-gelu`, a
    composite's body once inlined), so the output is the same bit for bit;
    it runs on 256 elements instead of the activation's. Run before
    `qfx-lower-gelu`, `qfx-inline-composites` and
    `qfx-lower-quant-to-linalg`, in `qfx-lower-to-native`.

    ```mlir
    %d = quant.dcast %x : tensor<1x112x112x32x!quant.uniform<u8:f32, 0.03:63>> to tensor<1x112x112x32xf32>
    %s = qfx.composite "torch.nn.SiLU"(%d) ... { sigmoid, mul }
    %q = quant.qcast %s : tensor<1x112x112x32xf32> to tensor<1x112x112x32x!quant.uniform<u8:f32, 0.017:16>>
    // becomes
    %levels = "tosa.const"() <{values = dense<[-128, ..., 127]> : tensor<1x1x1x256xi8>}>
    ... quant.scast, quant.dcast, the composite, quant.qcast, quant.scast of %levels
    %table = tosa.reshape ... : tensor<256xi8>
    %bytes = quant.scast %x : ... to tensor<1x112x112x32xi8>
    %y = tosa.table %bytes, %table
    %q = quant.scast %y : tensor<1x112x112x32xi8> to tensor<1x112x112x32x!quant.uniform<u8:f32, 0.017:16>>
    ```
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect",
                           "::mlir::tosa::TosaDialect"];
}

def QFXEarlyDealloc : Pass<"qfx-early-dealloc", "::mlir::func::FuncOp"> {
  let summary = "Frees each buffer after its last use instead of at the end "
                "of its block";
  let description = [{
    `buffer-deallocation-pipeline` (ownership-based deallocation) frees a
    buffer at the end of the block that allocates it: every activation of a
    model's straight-line `@main` stays allocated until the call returns,
    and the call's peak memory is the sum of all of them (resnet50's int8
    program: 19 MB at batch 1, against PyTorch's 6 MB). Run after it, this
    pass moves each `memref.dealloc` of a `memref.alloc` of the same block
    to just after the buffer's last use in that block: the last op of the
    block that uses the buffer or an alias of it (a result of memref type of
    any op that uses one: views, casts, calls, loops), in its regions or
    directly. A buffer with an alias that a terminator takes (yielded,
    returned, passed to another block), or that an op turns into a pointer
    (`memref.extract_aligned_pointer_as_index`, casts to the LLVM dialect),
    is left as it is. The buffers the program frees early serve its later
    allocations of their size (the buffer cache of `quant-run` and the
    Python front end).

    ```mlir
    %a = memref.alloc() : memref<4xi8>
    call @kernel(%x, %a) : (memref<4xi8>, memref<4xi8>) -> ()
    %b = memref.alloc() : memref<4xi8>
    call @kernel(%a, %b) : (memref<4xi8>, memref<4xi8>) -> ()
    ...
    memref.dealloc %a : memref<4xi8>
    // becomes
    %a = memref.alloc() : memref<4xi8>
    call @kernel(%x, %a) : (memref<4xi8>, memref<4xi8>) -> ()
    %b = memref.alloc() : memref<4xi8>
    call @kernel(%a, %b) : (memref<4xi8>, memref<4xi8>) -> ()
    memref.dealloc %a : memref<4xi8>
    ```
  }];
}

def QFXByteConstants : Pass<"qfx-byte-constants", "::mlir::ModuleOp"> {
  let summary = "Constant LLVM globals of wider elements held as their bytes";
  let description = [{
    LLVM writes a constant array of floats or wide integers into the object
    value by value (`AsmPrinter` turns each element into an `APFloat` or
    `APInt` and emits it on its own), but an array of bytes as one block: a
    model's weights in float (an observed model's 100 MB for resnet50) took
    seconds to compile for this alone. Run on the LLVM dialect, before
    translation, this pass gives each constant `llvm.mlir.global` whose value
    is a dense, non-splat array of at least 4096 bytes of elements wider
    than a byte the type `!llvm.array<bytes x i8>` and the same bytes as its
    value. With opaque pointers nothing else changes: the global's users
    address it through `llvm.mlir.addressof`, and their `getelementptr`s
    carry their own element types. The bytes are the host's: a module
    compiled for a target of the other byte order would need the
    conversion undone (every target qfx compiles for is little-endian, as
    the hosts it runs on). `qfx-lower-to-native` ends with it for object
    files (`quant-compile`); qfx's JIT does not compile constants of more
    than 4096 bytes at all (it binds them to buffers of its own) and runs
    the pipeline with `byte-constants=false`.

    ```mlir
    llvm.mlir.global private constant @w(dense<[...]> : tensor<2048xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<2048 x f32>
    // becomes
    llvm.mlir.global private constant @w(dense<[...]> : tensor<8192xi8>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<8192 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def QFXLowerIntrinsicCalls : Pass<"qfx-lower-intrinsic-calls",
                                  "::mlir::ModuleOp"> {
  let summary = "Turns calls of qfx-codegen's intrinsic declarations into "
                "llvm.call_intrinsic (and inline assembly)";
  let description = [{
    qfx-codegen's kernels call LLVM intrinsics (e.g. `vpdpbusd`) through
    private `func.func` declarations carrying `qfx_llvm_intrinsic`, because
    bufferization and buffer deallocation reject ops with unknown memory
    effects such as `llvm.call_intrinsic`. Run after them, this pass replaces
    each call with `llvm.call_intrinsic` and drops the declarations.

    ```mlir
    func.func private @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512(
        vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
        attributes {qfx_llvm_intrinsic = "llvm.x86.avx512.vpdpbusd.512"}
    %r = func.call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512(%acc, %a, %b) ...
    // becomes
    %r = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%acc, %a, %b) ...
    ```

    A declaration carrying `qfx_inline_asm` (and
    `qfx_inline_asm_constraints`) is inline assembly instead: its calls
    become `llvm.inline_asm has_side_effects` with that text and those
    constraints (the AMX permission request's `syscall`).

    It also turns every `math.roundeven` (the float requantization's, and
    each `tosa.cast` from float to int) into `llvm.intr.roundeven`, which
    LLVM lowers to a (vector) rounding instruction; `convert-math-to-libm`
    would call `roundevenf` once per element instead. Likewise `math.fma`,
    `math.floor` and `math.absf` (qfx-lower-gelu's arithmetic) become
    `llvm.intr.fma`, `llvm.intr.floor` and `llvm.intr.fabs`: the same
    exact operations, as instructions rather than libm calls. And every f32
    `math.exp` (softmax, sigmoid) becomes glibc's expf written out in
    arithmetic (double-precision fused multiply-adds, a 32-entry table
    `qfx_expf_table`, a cubic), equal to libm's result on every input, which
    LLVM vectorizes where it cannot vectorize calls of `expf`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // QFX_CODEGEN_PASSES_TD
