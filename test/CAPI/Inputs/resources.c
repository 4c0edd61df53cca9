/* A C client of libQFXCAPI.so giving weights by reference: the module's
 * `dense_resource<w>` gets its bytes from this program's memory
 * (qfxSessionAddResource), and the printed result holds the values.
 *   resources CASE
 * CASE: given, short (a byte count its type does not have), missing (no
 * bytes given), ended (the offer ended by another call), null (a NULL
 * key). */
#include "qfx-c/QFX.h"

#include <stdio.h>
#include <string.h>

static const char *source =
    "func.func @weight() -> tensor<3xf32> {\n"
    "  %w = \"tosa.const\"() <{values = dense_resource<w> : tensor<3xf32>}> "
    ": () -> tensor<3xf32>\n"
    "  return %w : tensor<3xf32>\n"
    "}\n";

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: resources CASE\n");
    return 2;
  }
  const char *which = argv[1];
  float weight[3] = {1.0f, 2.0f, -3.0f};
  QfxSession session = qfxSessionCreate();
  size_t size = strcmp(which, "short") == 0 ? 8 : sizeof(weight);
  int status = 0;
  if (strcmp(which, "null") == 0)
    status = qfxSessionAddResource(session, NULL, weight, size);
  else if (strcmp(which, "missing") != 0)
    status = qfxSessionAddResource(session, "w", weight, size);
  printf("add: status %d\n", status);
  if (strcmp(which, "ended") == 0) {
    char *config = NULL;
    qfxGetBuiltinConfig(session, "backend_config", "x86", &config, NULL);
    qfxFreeString(config);
  }
  char *output = NULL;
  if (status == 0)
    status = qfxRunPipeline(session, source, strlen(source), "weight.mlir",
                            "builtin.module()", 0, &output, NULL);
  printf("pipeline: status %d\n", status);
  for (size_t d = 0; d < qfxGetNumDiagnostics(session); ++d) {
    QfxDiagnostic diagnostic;
    if (qfxGetDiagnostic(session, d, &diagnostic) != 0)
      return 3;
    printf("diagnostic at %s: %s\n", diagnostic.location, diagnostic.message);
  }
  if (output)
    printf("output:\n%s", output);
  qfxFreeString(output);
  qfxSessionDestroy(session);
  return 0;
}
