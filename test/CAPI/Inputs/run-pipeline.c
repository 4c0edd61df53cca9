/* A C client of libQFXCAPI.so: runs a pass pipeline over a file and prints
 * the status, every diagnostic record and the result.
 *   run-pipeline MODEL.mlir PIPELINE [PIPELINE...]
 * Each pipeline runs on the previous one's output, in one session. */
#include "qfx-c/QFX.h"

#include "read-file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *severities[] = {"error", "warning", "note", "remark"};

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: run-pipeline MODEL.mlir PIPELINE...\n");
    return 2;
  }
  size_t length = 0;
  char *text = readFile(argv[1], &length);
  if (!text)
    return 2;

  printf("version %d\n", qfxGetCAPIVersion());
  QfxSession session = qfxSessionCreate();
  int status = 0;
  for (int i = 2; i < argc && status == 0; ++i) {
    char *output = NULL;
    size_t outputLength = 0;
    status = qfxRunPipeline(session, text, length, argv[1], argv[i], 0, &output,
                            &outputLength);
    printf("pipeline %s: status %d\n", argv[i], status);
    for (size_t d = 0; d < qfxGetNumDiagnostics(session); ++d) {
      QfxDiagnostic diagnostic;
      if (qfxGetDiagnostic(session, d, &diagnostic) != 0)
        return 3;
      printf("diagnostic %zu: %s at %s (parent %ld): %s\n", d,
             severities[diagnostic.severity], diagnostic.location,
             diagnostic.parent, diagnostic.message);
    }
    if (status == 0) {
      if (strlen(output) != outputLength)
        return 4;
      free(text);
      text = output; /* freed below with qfxFreeString's allocator */
      length = outputLength;
    }
  }
  QfxDiagnostic unused;
  if (qfxGetDiagnostic(session, qfxGetNumDiagnostics(session), &unused) == 0)
    return 5;
  if (status == 0)
    printf("output:\n%s", text);
  qfxFreeString(text);
  qfxSessionDestroy(session);
  return status;
}
