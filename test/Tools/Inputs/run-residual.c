/* Runs the residual test model compiled by quant-compile (model.h) on a raw
 * float32 input file and writes the raw float32 output. */
#include <stdio.h>

#include "model.h"

int main(int argc, char **argv) {
  static float in[2 * 8 * 6 * 6], out[2 * 8 * 6 * 6];
  if (argc != 3)
    return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(in, sizeof in, 1, f) != 1)
    return 3;
  fclose(f);
  qfx_residual(in, out);
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out, sizeof out, 1, f) != 1)
    return 4;
  fclose(f);
  return 0;
}
