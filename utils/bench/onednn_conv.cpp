// Times oneDNN's int8 convolution as qfx's conv kernels compute it: u8
// source (nhwc), s8 weights (in the layout oneDNN picks, reordered once
// outside the timed loop), s32 bias, per-output-channel output scales, s8
// destination (nhwc). GROUPS = 1 is a plain conv2d; GROUPS = C is a depthwise
// conv2d (O = C * channel multiplier). Prints the median of REPEATS timed runs
// in milliseconds on stdout, and the implementation and weight layout oneDNN
// chose on stderr.
// Built and run by utils/bench/conv_vs_peers.py:
//   clang++-22 -O2 onednn_conv.cpp -ldnnl -o onednn_conv
//   onednn_conv N H W C O KH KW STRIDE PAD GROUPS REPEATS
#include "onednn_timing.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// A memory descriptor's blocked layout as a oneDNN-style tag, e.g.
// "OhwI64o4i": the outer dimensions by decreasing stride (upper case when
// also blocked; dimensions of size 1, whose strides mean nothing, left out),
// then the inner blocks, then "+comp" when it carries a compensation buffer.
static std::string layoutName(const dnnl::memory::desc &md,
                              const char *letters) {
  const dnnl_memory_desc_t &d = md.data;
  if (d.format_kind != dnnl_blocked)
    return "non-blocked";
  const dnnl_blocking_desc_t &b = d.format_desc.blocking;
  std::vector<int> order;
  for (int dim = 0; dim < d.ndims; ++dim)
    if (d.dims[dim] > 1)
      order.push_back(dim);
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    return b.strides[x] != b.strides[y] ? b.strides[x] > b.strides[y] : x < y;
  });
  std::string name;
  for (int dim : order) {
    bool blocked = false;
    for (int i = 0; i < b.inner_nblks; ++i)
      blocked |= b.inner_idxs[i] == dim;
    name +=
        blocked ? static_cast<char>(letters[dim] - 'a' + 'A') : letters[dim];
  }
  for (int i = 0; i < b.inner_nblks; ++i)
    name += std::to_string(b.inner_blks[i]) + letters[b.inner_idxs[i]];
  if (d.extra.flags)
    name += "+comp";
  return name;
}

int main(int argc, char **argv) {
  if (argc != 12) {
    std::fprintf(stderr, "usage: onednn_conv N H W C O KH KW STRIDE PAD "
                         "GROUPS REPEATS\n");
    return 2;
  }
  long v[11];
  for (int i = 0; i < 11; ++i)
    v[i] = std::atol(argv[i + 1]);
  const long n = v[0], h = v[1], w = v[2], c = v[3], o = v[4], kh = v[5],
             kw = v[6], stride = v[7], pad = v[8], groups = v[9],
             repeats = v[10];
  if (groups < 1 || c % groups || o % groups) {
    std::fprintf(stderr, "onednn_conv: GROUPS must divide C and O\n");
    return 2;
  }
  const long oh = (h + 2 * pad - kh) / stride + 1;
  const long ow = (w + 2 * pad - kw) / stride + 1;
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  // oneDNN's logical dimensions are always N, C, H, W (and O, I, KH, KW for
  // the weights, with a leading G when grouped); the tag gives the layout.
  const memory::dims weiDims =
      groups == 1 ? memory::dims{o, c, kh, kw}
                  : memory::dims{groups, o / groups, c / groups, kh, kw};
  const tag weiPlainTag = groups == 1 ? tag::oihw : tag::goihw;
  memory::desc src({n, c, h, w}, dt::u8, tag::nhwc);
  memory::desc wei(weiDims, dt::s8, tag::any);
  memory::desc bias({o}, dt::s32, tag::x);
  memory::desc dst({n, o, oh, ow}, dt::s8, tag::nhwc);
  primitive_attr attr;
  std::vector<float> scales(o);
  for (long i = 0; i < o; ++i)
    scales[i] = 0.01f + 0.0001f * static_cast<float>(i % 7);
  attr.set_output_scales(/*mask=*/1 << 1, scales);
  convolution_forward::primitive_desc pd(
      convolution_forward::desc(prop_kind::forward_inference,
                                algorithm::convolution_direct, src, wei, bias,
                                dst, {stride, stride}, {pad, pad}, {pad, pad}),
      attr, eng);
  std::fprintf(
      stderr, "%s, weights %s\n", pd.impl_info_str(),
      layoutName(pd.weights_desc(), groups == 1 ? "oihw" : "goihw").c_str());
  memory weights =
      packWeights({weiDims, dt::s8, weiPlainTag}, pd.weights_desc(), eng, strm);
  printMedianMs(convolution_forward(pd), pd, bias, weights, eng, strm, repeats);
  return 0;
}
