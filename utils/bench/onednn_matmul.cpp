// Times oneDNN's int8 matmul as qfx's VNNI kernel computes it: u8 source
// [M, K], s8 weights [K, N], s32 bias, per-channel output scales, s8
// destination. Prints the median of REPEATS timed runs in milliseconds.
// Built and run by utils/bench/gemm_vs_peers.py:
//   clang++-22 -O2 onednn_matmul.cpp -ldnnl -o onednn_matmul
//   onednn_matmul M N K REPEATS
#include "onednn_timing.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: onednn_matmul M N K REPEATS\n");
    return 2;
  }
  const long m = std::atol(argv[1]), n = std::atol(argv[2]),
             k = std::atol(argv[3]), repeats = std::atol(argv[4]);
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  memory::desc src({m, k}, memory::data_type::u8, memory::format_tag::ab);
  memory::desc wei({k, n}, memory::data_type::s8, memory::format_tag::any);
  memory::desc bias({1, n}, memory::data_type::s32, memory::format_tag::ab);
  memory::desc dst({m, n}, memory::data_type::s8, memory::format_tag::ab);
  primitive_attr attr;
  attr.set_output_scales(/*mask=*/1 << 1, std::vector<float>(n, 0.01f));
  matmul::primitive_desc pd(matmul::desc(src, wei, bias, dst), attr, eng);
  // Weights reordered once into the layout the primitive wants, as qfx
  // packs them at compile time.
  memory weiPlain({{k, n}, memory::data_type::s8, memory::format_tag::ab}, eng);
  memory weiPacked(pd.weights_desc(), eng);
  std::vector<int8_t> w(k * n);
  for (long i = 0; i < k * n; ++i)
    w[i] = static_cast<int8_t>(i * 7 % 255 - 127);
  std::copy(w.begin(), w.end(),
            static_cast<int8_t *>(weiPlain.get_data_handle()));
  reorder(weiPlain, weiPacked).execute(strm, weiPlain, weiPacked);
  memory srcMem(pd.src_desc(), eng), biasMem(bias, eng),
      dstMem(pd.dst_desc(), eng);
  auto *s = static_cast<uint8_t *>(srcMem.get_data_handle());
  for (long i = 0; i < m * k; ++i)
    s[i] = static_cast<uint8_t>(i * 13 % 256);
  std::fill_n(static_cast<int32_t *>(biasMem.get_data_handle()), n, 100);
  matmul prim(pd);
  printMedianMs(prim, strm,
                {{DNNL_ARG_SRC, srcMem},
                 {DNNL_ARG_WEIGHTS, weiPacked},
                 {DNNL_ARG_BIAS, biasMem},
                 {DNNL_ARG_DST, dstMem}},
                repeats);
  return 0;
}
