/* Calls the residual test model compiled by quant-compile (model.h) from
 * several threads at once, each on its own input, many times, and checks
 * every result against a serial call on the same input. Prints how many
 * calls differed; exits 1 if any did. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

enum { kSize = 2 * 8 * 6 * 6, kThreads = 4, kCalls = 200 };

static float inputs[kThreads][kSize], expected[kThreads][kSize];
static int mismatches;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg) {
  int t = (int)(long)arg;
  static float outputs[kThreads][kSize];
  for (int call = 0; call < kCalls; ++call) {
    memset(outputs[t], 0, sizeof outputs[t]);
    qfx_residual(inputs[t], outputs[t]);
    if (memcmp(outputs[t], expected[t], sizeof outputs[t]) != 0) {
      pthread_mutex_lock(&lock);
      ++mismatches;
      pthread_mutex_unlock(&lock);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(inputs[0], sizeof inputs[0], 1, f) != 1)
    return 3;
  fclose(f);
  /* Distinct inputs per thread, so a result landing in the wrong thread's
   * buffer or computed from another's input shows. */
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kSize; ++i)
      inputs[t][i] = inputs[0][i] * (1.0f + 0.5f * t) - 0.25f * t;
  for (int t = 0; t < kThreads; ++t)
    qfx_residual(inputs[t], expected[t]);
  for (int t = 1; t < kThreads; ++t)
    if (memcmp(expected[t], expected[0], sizeof expected[0]) == 0)
      return 5; /* the inputs do not tell the threads apart */
  pthread_t threads[kThreads];
  for (int t = 0; t < kThreads; ++t)
    if (pthread_create(&threads[t], NULL, work, (void *)(long)t) != 0)
      return 6;
  for (int t = 0; t < kThreads; ++t)
    pthread_join(threads[t], NULL);
  printf("%d threads x %d calls: %d differ from serial calls\n", kThreads,
         kCalls, mismatches);
  return mismatches ? 1 : 0;
}
