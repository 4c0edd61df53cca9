/* A C client of libQFXCAPI.so calling one session many times, each call
 * with other weights (4 MiB of floats, by reference, under the same key):
 * each call parses into a new MLIR context, so the session does not keep
 * earlier calls' weights (a context keeps every attribute it made).
 *   contexts
 * Prints each failing call's status and diagnostics, then how much the
 * resident set grew from the 5th call to the 40th. */
#include "qfx-c/QFX.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer, freed memory is released at once (not kept in
 * its quarantine), as without it. */
const char *__asan_default_options(void) {
  return "quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
}

enum { kCount = 1 << 20, kCalls = 40 };

static const char *source =
    "func.func @weight() -> tensor<1048576xf32> {\n"
    "  %w = \"tosa.const\"() <{values = dense_resource<w> : "
    "tensor<1048576xf32>}> : () -> tensor<1048576xf32>\n"
    "  return %w : tensor<1048576xf32>\n"
    "}\n";

/* The resident set in MiB. */
static long resident(void) {
  FILE *statm = fopen("/proc/self/statm", "r");
  long size = 0, pages = 0;
  if (!statm || fscanf(statm, "%ld %ld", &size, &pages) != 2)
    exit(3);
  fclose(statm);
  return pages * 4096 / (1024 * 1024);
}

int main(void) {
  float *weight = malloc(kCount * sizeof(float));
  if (!weight)
    return 3;
  QfxSession session = qfxSessionCreate();
  long at5 = 0;
  for (int call = 1; call <= kCalls; ++call) {
    for (int i = 0; i < kCount; ++i)
      weight[i] = (float)call + (float)i / kCount;
    char *output = NULL;
    int status =
        qfxSessionAddResource(session, "w", weight, kCount * sizeof(float));
    if (status == 0)
      status = qfxRunPipeline(session, source, strlen(source), "weight.mlir",
                              "builtin.module()", 0, &output, NULL);
    if (status != 0) {
      printf("call %d: status %d\n", call, status);
      for (size_t d = 0; d < qfxGetNumDiagnostics(session); ++d) {
        QfxDiagnostic diagnostic;
        if (qfxGetDiagnostic(session, d, &diagnostic) == 0)
          printf("diagnostic: %s\n", diagnostic.message);
      }
    }
    qfxFreeString(output);
    if (call == 5)
      at5 = resident();
  }
  printf("%d calls; grew by %ld MiB from the 5th\n", kCalls, resident() - at5);
  qfxSessionDestroy(session);
  free(weight);
  return 0;
}
