/* memrefCopy, the one function of MLIR's C runner utilities a lowered model
 * calls (strided memref.copy), for programs where that library is not
 * available (here: AArch64 binaries run under qemu). */
#include <stdint.h>
#include <string.h>

typedef struct {
  int64_t rank;
  void *descriptor;
} UnrankedMemRef;

/* {allocated, aligned, offset, sizes[rank], strides[rank]} */
typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
} Descriptor;

void memrefCopy(int64_t elemSize, UnrankedMemRef *src, UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  Descriptor *s = src->descriptor, *d = dst->descriptor;
  const int64_t *sizes = s->sizesAndStrides;
  const int64_t *sStrides = s->sizesAndStrides + rank;
  const int64_t *dStrides = d->sizesAndStrides + rank;
  int64_t index[16] = {0};
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i)
    total *= sizes[i];
  for (int64_t n = 0; n < total; ++n) {
    int64_t so = s->offset, dof = d->offset;
    for (int64_t i = 0; i < rank; ++i) {
      so += index[i] * sStrides[i];
      dof += index[i] * dStrides[i];
    }
    memcpy(d->aligned + dof * elemSize, s->aligned + so * elemSize, elemSize);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < sizes[i])
        break;
      index[i] = 0;
    }
  }
}
