//===- Activations.cpp - Float activations as PyTorch computes them -------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// oneDNN 2.6's jit_uni_eltwise_injector_f32::gelu_erf_compute_vector_fwd and
// exp_compute_vector_fwd, one lane at a time: every vmulps, vaddps and vdivps
// is one rounded float operation, every vfmadd one std::fma (this file is
// compiled with -ffp-contract=off, so nothing else is fused), vminps and
// vmaxps return their second operand unless the first compares less
// (greater).
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/Activations.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

using namespace qfx;

static float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

static uint32_t toBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// The injector's exp: exp(v) = 2^n exp(r), r = v - n ln2, exp(r) a
/// degree-5 polynomial, 2^n formed as 2 * 2^(n-1) in the exponent bits.
/// Values below ln(FLT_MIN) give 0.
static float expAsOneDnn(float v) {
  const float lnFltMax = fromBits(0x42b17218), lnFltMin = fromBits(0xc2aeac50);
  const float log2e = fromBits(0x3fb8aa3b), ln2 = fromBits(0x3f317218);
  const float p[] = {fromBits(0x3f7ffffb), fromBits(0x3efffee3),
                     fromBits(0x3e2aad40), fromBits(0x3d2b9d0d),
                     fromBits(0x3c07cfce)};
  bool underflows = v < lnFltMin;
  v = v < lnFltMax ? v : lnFltMax;
  v = v > lnFltMin ? v : lnFltMin;
  float n = std::floor(v * log2e + 0.5f);
  float r = std::fma(-n, ln2, v);
  // n - 1 is in [-127, 127]: its biased exponent fits the field.
  int32_t biased = static_cast<int32_t>(n - 1.0f) + 127;
  float twoToNMinus1 =
      underflows ? 0.0f : fromBits(static_cast<uint32_t>(biased) << 23);
  float q = p[4];
  for (int i = 3; i >= 0; --i)
    q = std::fma(q, r, p[i]);
  q = std::fma(q, r, 1.0f);
  return q * twoToNMinus1 * 2.0f;
}

float qfx::geluAsPyTorch(float s) {
  const float oneOverSqrt2 = fromBits(0x3f3504f3);
  const float p = fromBits(0x3ea7ba05);
  const float a[] = {fromBits(0x3e827906), fromBits(0xbe91a98e),
                     fromBits(0x3fb5f0e3), fromBits(0xbfba00e3),
                     fromBits(0x3f87dc22)};
  float x = s * oneOverSqrt2;
  float t = 1.0f / std::fma(p, std::fabs(x), 1.0f);
  float e = -expAsOneDnn(-(x * x)) * t;
  float poly = a[4];
  for (int i = 3; i >= 0; --i)
    poly = std::fma(poly, t, a[i]);
  // erf(|x|), then x's sign bit.
  float erf = std::fma(e, poly, 1.0f);
  erf = fromBits(toBits(erf) ^ (toBits(x) & 0x80000000u));
  float half = s * 0.5f;
  return std::fma(erf, half, half);
}

float qfx::hardsigmoidAsQnnpack(float x) {
  return std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
}

float qfx::hardswishAsQnnpack(float x) {
  return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
}
