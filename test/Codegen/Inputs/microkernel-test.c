/* The standalone test of one target's GEMM microkernel, as IREE's
 * mmt4d_test is of its ukernels: for each tile qfx-microkernels compiled
 * (tiles.h, from -include), random A and weights, the microkernel's sums
 * against a plain C reference of the same products. A is [rows][K] in the
 * target's elements (the microkernel packs it); the weights are packed
 * [column blocks][k groups][lane][group]; the sums are [rows][blocks *
 * lanes] int32. Prints "N of N tiles equal", and each differing sum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t state = 12345;
static int32_t next(int32_t lo, int32_t hi) {
  state = state * 1103515245u + 12345u;
  return lo + (int32_t)((state >> 8) % (uint32_t)(hi - lo + 1));
}

/* A's element i as the instruction reads it. */
static int32_t element_of_a(const void *a, int64_t i) {
  if (QFX_UK_ELEMENT_BITS == 16)
    return ((const int16_t *)a)[i];
  if (QFX_UK_UNSIGNED_A)
    return ((const uint8_t *)a)[i];
  return ((const int8_t *)a)[i];
}

static int32_t element_of_w(const void *w, int64_t i) {
  if (QFX_UK_ELEMENT_BITS == 16)
    return ((const int16_t *)w)[i];
  return ((const int8_t *)w)[i];
}

static void store(void *p, int64_t i, int32_t v) {
  if (QFX_UK_ELEMENT_BITS == 16)
    ((int16_t *)p)[i] = (int16_t)v;
  else
    ((int8_t *)p)[i] = (int8_t)v;
}

int main(void) {
  const int64_t bytes = QFX_UK_ELEMENT_BITS / 8, lanes = QFX_UK_LANES,
                group = QFX_UK_GROUP;
  int equal = 0;
  for (int64_t t = 0; t < QFX_UK_TILES; ++t) {
    int64_t rows = qfx_uk_tiles[t].rows, vectors = qfx_uk_tiles[t].vectors,
            groups = qfx_uk_tiles[t].groups, k = groups * group,
            columns = vectors * lanes;
    void *a = malloc(rows * k * bytes);
    void *w = malloc(columns * k * bytes);
    int32_t *sums = malloc(rows * columns * 4);
    /* Bytes over their whole range (the kernels see int8 values; AVX2's
     * int16 elements are sign-extended int8). */
    for (int64_t i = 0; i < rows * k; ++i)
      store(a, i, QFX_UK_UNSIGNED_A ? next(0, 255) : next(-128, 127));
    for (int64_t i = 0; i < columns * k; ++i)
      store(w, i, next(-128, 127));
    memset(sums, 0x5a, rows * columns * 4);
    qfx_uk_run(t, a, rows * k * bytes, w, columns * k * bytes, sums,
               rows * columns * 4);
    int ok = 1;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c) {
        int64_t block = c / lanes, lane = c % lanes;
        int32_t sum = 0;
        for (int64_t g = 0; g < groups; ++g)
          for (int64_t e = 0; e < group; ++e)
            sum += element_of_a(a, r * k + g * group + e) *
                   element_of_w(
                       w, ((block * groups + g) * lanes + lane) * group + e);
        if (sums[r * columns + c] != sum) {
          if (ok)
            printf("tile %lld (%lld rows, %lld blocks, %lld groups): "
                   "sum (%lld, %lld) is %d, expected %d\n",
                   (long long)t, (long long)rows, (long long)vectors,
                   (long long)groups, (long long)r, (long long)c,
                   sums[r * columns + c], sum);
          ok = 0;
        }
      }
    equal += ok;
    free(a);
    free(w);
    free(sums);
  }
  printf("%d of %d tiles equal\n", equal, QFX_UK_TILES);
  return equal == QFX_UK_TILES ? 0 : 1;
}
