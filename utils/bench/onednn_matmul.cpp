// Times oneDNN's int8 matmul as qfx's VNNI kernel computes it: u8 source
// [M, K], s8 weights [K, N], s32 bias, per-channel output scales, s8
// destination. Prints the median of REPEATS timed runs in milliseconds.
// Built and run by utils/bench/gemm_vs_peers.py:
//   clang++-22 -O2 onednn_matmul.cpp -ldnnl -o onednn_matmul
//   onednn_matmul M N K REPEATS
#include "onednn_timing.h"

#include <oneapi/dnnl/dnnl.hpp>

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
  memory weights =
      packWeights({{k, n}, memory::data_type::s8, memory::format_tag::ab},
                  pd.weights_desc(), eng, strm);
  printMedianMs(matmul(pd), pd, bias, weights, eng, strm, repeats);
  return 0;
}
