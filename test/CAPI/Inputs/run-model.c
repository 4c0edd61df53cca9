/* A C client of libQFXCAPI.so's calibration, JIT and ahead-of-time calls:
 *   run-model run MODEL.mlir ENTRY TARGET  compile, print the signature, run
 *                                          on inputs x[i] = 0.5 * i + k
 *                                          (argument k), print the results,
 *                                          then run once with a wrong shape
 *   run-model calibrate MODEL.mlir SAMPLES...  print progress, then the
 *                                              calibrated module
 *   run-model calibrating MODEL.mlir OUT1 OUT2  compile for calibration a
 *                                          run at a time; run on the inputs
 *                                          of `run`, write the statistics to
 *                                          OUT1; run on a NaN input (an
 *                                          error); then, in a new session
 *                                          (the model outlives its own), on
 *                                          the inputs times -2, and write
 *                                          the statistics to OUT2
 *   run-model calibrating-with BASE.mlir OTHER.mlir OUT1 OUT2 BAD.mlir
 *                                          compile BASE for calibration,
 *                                          OTHER (BASE at other shapes)
 *                                          observing into BASE's observers,
 *                                          run each once, write the
 *                                          statistics to OUT1 (through
 *                                          OTHER); BAD with BASE is an
 *                                          error; destroy BASE, run OTHER
 *                                          again, write to OUT2
 *   run-model compile MODEL.mlir OUT.so|OUT.o  compile ahead of time
 *   run-model record MODEL.mlir ENTRY      compile recording, run on the
 *                                          inputs of `run`, print what it
 *                                          recorded
 *   run-model profile MODEL.mlir ENTRY     compile profiling, run, print
 *                                          the layers timed (not the times:
 *                                          whether they are valid)
 *   run-model host MODEL.mlir ENTRY        run test/Runtime/Inputs/
 *                                          host-call.mlir with its host
 *                                          calls (6 floats each: id 0
 *                                          negates, id 1 adds 10), with a
 *                                          failing host, and with none
 * ENTRY and TARGET may be "" (the default). Each call's diagnostics are
 * printed as records. */
#include "qfx-c/QFX.h"

#include "read-file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *severities[] = {"error", "warning", "note", "remark"};
static const char *dtypes[] = {"float32", "float16", "int8",
                               "uint8",   "int32",   "int64"};
static const size_t dtypeSizes[] = {4, 2, 1, 1, 4, 8};

static void printDiagnostics(QfxSession session) {
  for (size_t d = 0; d < qfxGetNumDiagnostics(session); ++d) {
    QfxDiagnostic diagnostic;
    if (qfxGetDiagnostic(session, d, &diagnostic) == 0)
      printf("diagnostic %zu: %s at %s: %s\n", d,
             severities[diagnostic.severity], diagnostic.location,
             diagnostic.message);
  }
}

static size_t countElements(const QfxTensor *tensor) {
  size_t count = 1;
  for (size_t d = 0; d < tensor->rank; ++d)
    count *= (size_t)tensor->shape[d];
  return count;
}

static void printTensor(const char *what, size_t index,
                        const QfxTensor *tensor) {
  printf("%s %zu: %s[", what, index, dtypes[tensor->dtype]);
  for (size_t d = 0; d < tensor->rank; ++d)
    printf("%s%lld", d ? ", " : "", (long long)tensor->shape[d]);
  printf("]");
  if (tensor->data) {
    printf(" =");
    for (size_t i = 0; i < countElements(tensor); ++i) {
      if (tensor->dtype == QfxDTypeFloat32)
        printf(" %g", ((const float *)tensor->data)[i]);
      else if (tensor->dtype == QfxDTypeInt32)
        printf(" %d", ((const int *)tensor->data)[i]);
    }
  }
  printf("\n");
}

/* The model's inputs (x[i] = 0.5 * i + k for argument k) and result
 * buffers, one spare entry each; their signatures printed if `print`. */
static int makeTensors(QfxModel model, int print, QfxTensor **inputsOut,
                       QfxTensor **resultsOut) {
  size_t numInputs = qfxModelGetNumInputs(model);
  size_t numResults = qfxModelGetNumResults(model);
  QfxTensor *inputs = calloc(numInputs + 1, sizeof(QfxTensor));
  QfxTensor *results = calloc(numResults + 1, sizeof(QfxTensor));
  for (size_t k = 0; k < numInputs; ++k) {
    if (qfxModelGetInput(model, k, &inputs[k]) != 0)
      return 3;
    if (print)
      printTensor("input", k, &inputs[k]);
    float *data = malloc(countElements(&inputs[k]) * sizeof(float));
    for (size_t i = 0; i < countElements(&inputs[k]); ++i)
      data[i] = 0.5f * (float)i + (float)k;
    inputs[k].data = data;
  }
  for (size_t k = 0; k < numResults; ++k) {
    if (qfxModelGetResult(model, k, &results[k]) != 0)
      return 3;
    if (print)
      printTensor("result", k, &results[k]);
    results[k].data =
        calloc(countElements(&results[k]), dtypeSizes[results[k].dtype]);
  }
  *inputsOut = inputs;
  *resultsOut = results;
  return 0;
}

static void freeTensors(QfxModel model, QfxTensor *inputs, QfxTensor *results) {
  for (size_t k = 0; k < qfxModelGetNumInputs(model); ++k)
    free(inputs[k].data);
  for (size_t k = 0; k < qfxModelGetNumResults(model); ++k)
    free(results[k].data);
  free(inputs);
  free(results);
}

static int run(QfxSession session, const char *text, size_t length,
               const char *path, const char *entry, const char *target) {
  QfxModel model = NULL;
  int status =
      qfxModelCompile(session, text, length, path, entry, target, &model);
  printf("compile: status %d\n", status);
  printDiagnostics(session);
  if (status != 0)
    return status;
  printf("entry @%s\n", qfxModelGetEntry(model));
  size_t numInputs = qfxModelGetNumInputs(model);
  size_t numResults = qfxModelGetNumResults(model);
  QfxTensor *inputs, *results;
  if (makeTensors(model, 1, &inputs, &results) != 0)
    return 3;
  if (qfxModelGetInput(model, numInputs, &inputs[numInputs]) == 0)
    return 4;
  status = qfxModelRun(session, model, inputs, numInputs, results, numResults);
  printf("run: status %d\n", status);
  printDiagnostics(session);
  for (size_t k = 0; k < numResults && status == 0; ++k)
    printTensor("result", k, &results[k]);

  /* The first input with its dimensions reversed: a wrong shape. */
  if (numInputs > 0 && inputs[0].rank == 2) {
    QfxTensor right = inputs[0];
    int64_t reversed[2] = {right.shape[1], right.shape[0]};
    inputs[0].shape = reversed;
    printf("wrong shape: status %d\n",
           qfxModelRun(session, model, inputs, numInputs, results, numResults));
    printDiagnostics(session);
    inputs[0] = right;
  }
  printf("too few inputs: status %d\n",
         qfxModelRun(session, model, inputs, 0, results, numResults));
  printDiagnostics(session);
  freeTensors(model, inputs, results);
  qfxModelDestroy(model);
  return 0;
}

typedef int (*CompileFn)(QfxSession, const char *, size_t, const char *,
                         const char *, const char *, QfxModel *);

/* Compiles with `compile` (printing "compile WHAT: status") and runs the
 * model once on the inputs of `run`; returns the run's status, or 100 + the
 * compile status if it failed (nothing to free then). */
static int compileAndRun(QfxSession session, CompileFn compile,
                         const char *what, const char *text, size_t length,
                         const char *path, const char *entry, QfxModel *model,
                         QfxTensor **inputs, QfxTensor **results) {
  int status = compile(session, text, length, path, entry, "", model);
  printf("compile %s: status %d\n", what, status);
  printDiagnostics(session);
  if (status != 0 || makeTensors(*model, 0, inputs, results) != 0)
    return 100 + status;
  return qfxModelRun(session, *model, *inputs, qfxModelGetNumInputs(*model),
                     *results, qfxModelGetNumResults(*model));
}

static int record(QfxSession session, const char *text, size_t length,
                  const char *path, const char *entry) {
  QfxModel model = NULL;
  QfxTensor *inputs, *results;
  int status =
      compileAndRun(session, qfxModelCompileRecording, "recording", text,
                    length, path, entry, &model, &inputs, &results);
  if (status >= 100)
    return status - 100 ? status - 100 : 3;
  printf("run: status %d, %zu values recorded\n", status,
         qfxGetNumRecordedValues(session));
  for (size_t k = 0; k < qfxGetNumRecordedValues(session); ++k) {
    QfxRecordedValue value;
    if (qfxGetRecordedValue(session, k, &value) != 0)
      return 3;
    printf("%s (%s)", value.name, value.opName);
    if (value.quantized)
      printf(" scale %g zero point %lld", value.scale,
             (long long)value.zeroPoint);
    printf(": ");
    printTensor("value", k, &value.value);
  }
  QfxRecordedValue past;
  printf("out of range: %d\n",
         qfxGetRecordedValue(session, qfxGetNumRecordedValues(session), &past));
  freeTensors(model, inputs, results);
  qfxModelDestroy(model);
  return 0;
}

static int profile(QfxSession session, const char *text, size_t length,
                   const char *path, const char *entry) {
  QfxModel model = NULL;
  QfxTensor *inputs, *results;
  int status =
      compileAndRun(session, qfxModelCompileProfiling, "profiling", text,
                    length, path, entry, &model, &inputs, &results);
  if (status >= 100)
    return status - 100 ? status - 100 : 3;
  printf("run: status %d, %zu layers timed\n", status,
         qfxGetNumLayerTimes(session));
  for (size_t k = 0; k < qfxGetNumLayerTimes(session); ++k) {
    QfxLayerTime time;
    if (qfxGetLayerTime(session, k, &time) != 0)
      return 3;
    printf("%s (%s): %s\n", time.name, time.opName,
           time.seconds >= 0 && time.seconds < 1 ? "timed" : "bad time");
  }
  QfxLayerTime past;
  printf("out of range: %d\n",
         qfxGetLayerTime(session, qfxGetNumLayerTimes(session), &past));
  freeTensors(model, inputs, results);
  qfxModelDestroy(model);
  return 0;
}

/* The host of host-call.mlir: counts its calls in `userData`; fails if
 * `failing` or for an unknown id. */
static int failing = 0;
static int hostCall(void *userData, int64_t id, void *const *buffers,
                    size_t numBuffers) {
  ++*(int *)userData;
  printf("host call %lld with %zu buffers\n", (long long)id, numBuffers);
  if (failing || numBuffers != 2 || id < 0 || id > 1)
    return 1;
  const float *in = buffers[0];
  float *out = buffers[1];
  for (int i = 0; i < 6; ++i)
    out[i] = id == 0 ? -in[i] : in[i] + 10.0f;
  return 0;
}

static int host(QfxSession session, const char *text, size_t length,
                const char *path, const char *entry) {
  QfxModel model = NULL;
  int status = qfxModelCompile(session, text, length, path, entry, "", &model);
  printf("compile: status %d\n", status);
  printDiagnostics(session);
  if (status != 0)
    return status;
  QfxTensor *inputs, *results;
  if (makeTensors(model, 0, &inputs, &results) != 0)
    return 3;
  int calls = 0;
  qfxSetHostCallback(hostCall, &calls);
  status = qfxModelRun(session, model, inputs, 1, results, 1);
  printf("run: status %d after %d host calls\n", status, calls);
  printDiagnostics(session);
  if (status == 0)
    printTensor("result", 0, &results[0]);
  failing = 1;
  calls = 0;
  status = qfxModelRun(session, model, inputs, 1, results, 1);
  printf("failing host: status %d after %d host calls\n", status, calls);
  printDiagnostics(session);
  qfxSetHostCallback(NULL, NULL);
  status = qfxModelRun(session, model, inputs, 1, results, 1);
  printf("no host: status %d\n", status);
  printDiagnostics(session);
  freeTensors(model, inputs, results);
  qfxModelDestroy(model);
  return 0;
}

static void progress(void *userData, int64_t done, int64_t total) {
  ++*(int *)userData;
  printf("progress %lld/%lld\n", (long long)done, (long long)total);
}

static int writeStatistics(QfxSession session, QfxModel model,
                           const char *path) {
  char *output = NULL;
  int status = qfxModelWriteStatistics(session, model, 1, &output, NULL);
  printf("statistics after %lld runs: status %d\n",
         (long long)qfxModelGetNumRuns(model), status);
  printDiagnostics(session);
  if (status == 0) {
    FILE *file = fopen(path, "w");
    if (!file)
      return 2;
    fputs(output, file);
    fclose(file);
  }
  qfxFreeString(output);
  return status;
}

static int calibrating(QfxSession session, const char *text, size_t length,
                       const char *path, const char *out1, const char *out2) {
  QfxModel model = NULL;
  int status =
      qfxModelCompileCalibrating(session, text, length, path, NULL, &model);
  printf("compile calibrating: status %d\n", status);
  printDiagnostics(session);
  if (status != 0)
    return status;
  printf("observers: %zu\n", qfxModelGetNumObservers(model));
  QfxTensor *inputs, *results;
  if ((status = makeTensors(model, 0, &inputs, &results)) != 0)
    return status;
  size_t numInputs = qfxModelGetNumInputs(model);
  size_t numResults = qfxModelGetNumResults(model);
  status = qfxModelRun(session, model, inputs, numInputs, results, numResults);
  printf("run: status %d\n", status);
  printTensor("result", 0, &results[0]);
  if (status != 0 || (status = writeStatistics(session, model, out1)) != 0)
    return status;
  float *x = inputs[0].data;
  float saved = x[1];
  x[1] = 0.0f / 0.0f;
  printf("NaN input: status %d\n",
         qfxModelRun(session, model, inputs, numInputs, results, numResults));
  printDiagnostics(session);
  x[1] = saved;
  qfxSessionDestroy(session);
  session = qfxSessionCreate();
  for (size_t i = 0; i < countElements(&inputs[0]); ++i)
    x[i] *= -2.0f;
  status = qfxModelRun(session, model, inputs, numInputs, results, numResults);
  printf("run in a new session: status %d\n", status);
  if (status == 0)
    status = writeStatistics(session, model, out2);
  // Not a calibrating model: an error.
  QfxModel plain = NULL;
  if (qfxModelCompile(session, text, length, path, NULL, NULL, &plain) == 0) {
    char *output = NULL;
    printf("plain model: status %d, %lld runs, %zu observers\n",
           qfxModelWriteStatistics(session, plain, 1, &output, NULL),
           (long long)qfxModelGetNumRuns(plain),
           qfxModelGetNumObservers(plain));
    printDiagnostics(session);
    qfxModelDestroy(plain);
  }
  freeTensors(model, inputs, results);
  qfxModelDestroy(model);
  qfxSessionDestroy(session);
  return status;
}

static int calibratingWith(QfxSession session, const char *basePath,
                           const char *otherPath, const char *out1,
                           const char *out2, const char *badPath) {
  size_t lengths[3] = {0, 0, 0};
  char *texts[3] = {readFile(basePath, &lengths[0]),
                    readFile(otherPath, &lengths[1]),
                    readFile(badPath, &lengths[2])};
  if (!texts[0] || !texts[1] || !texts[2])
    return 2;
  QfxModel base = NULL, other = NULL, bad = NULL;
  int status = qfxModelCompileCalibrating(session, texts[0], lengths[0],
                                          basePath, NULL, &base);
  printf("compile base: status %d\n", status);
  printDiagnostics(session);
  if (status != 0)
    return status;
  status = qfxModelCompileCalibratingWith(session, base, texts[1], lengths[1],
                                          otherPath, NULL, &other);
  printf("compile other with base: status %d, %zu observers\n", status,
         qfxModelGetNumObservers(other));
  printDiagnostics(session);
  if (status != 0)
    return status;
  printf("bad with base: status %d\n",
         qfxModelCompileCalibratingWith(session, base, texts[2], lengths[2],
                                        badPath, NULL, &bad));
  printDiagnostics(session);
  QfxModel models[2] = {base, other};
  QfxTensor *inputs[2], *results[2];
  for (int m = 0; m < 2; ++m) {
    if ((status = makeTensors(models[m], 0, &inputs[m], &results[m])) != 0)
      return status;
    status = qfxModelRun(session, models[m], inputs[m], 1, results[m], 1);
    printf("run %s: status %d\n", m ? "other" : "base", status);
  }
  printf("runs: %lld and %lld\n", (long long)qfxModelGetNumRuns(base),
         (long long)qfxModelGetNumRuns(other));
  if ((status = writeStatistics(session, other, out1)) != 0)
    return status;
  freeTensors(base, inputs[0], results[0]);
  qfxModelDestroy(base);
  status = qfxModelRun(session, other, inputs[1], 1, results[1], 1);
  printf("other after base is gone: status %d\n", status);
  if (status == 0)
    status = writeStatistics(session, other, out2);
  freeTensors(other, inputs[1], results[1]);
  qfxModelDestroy(other);
  for (int t = 0; t < 3; ++t)
    free(texts[t]);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: run-model run|calibrate|compile MODEL.mlir ...\n");
    return 2;
  }
  size_t length = 0;
  char *text = readFile(argv[2], &length);
  if (!text)
    return 2;

  QfxSession session = qfxSessionCreate();
  int status = 2;
  if (strcmp(argv[1], "run") == 0 && argc == 5) {
    status = run(session, text, length, argv[2], argv[3], argv[4]);
  } else if (strcmp(argv[1], "record") == 0 && argc == 4) {
    status = record(session, text, length, argv[2], argv[3]);
  } else if (strcmp(argv[1], "host") == 0 && argc == 4) {
    status = host(session, text, length, argv[2], argv[3]);
  } else if (strcmp(argv[1], "profile") == 0 && argc == 4) {
    status = profile(session, text, length, argv[2], argv[3]);
  } else if (strcmp(argv[1], "calibrating") == 0 && argc == 5) {
    status = calibrating(session, text, length, argv[2], argv[3], argv[4]);
    free(text);
    return status;
  } else if (strcmp(argv[1], "calibrating-with") == 0 && argc == 7) {
    status =
        calibratingWith(session, argv[2], argv[3], argv[4], argv[5], argv[6]);
  } else if (strcmp(argv[1], "calibrate") == 0) {
    char *output = NULL;
    int calls = 0;
    status = qfxCalibrate(session, text, length, argv[2], NULL,
                          (const char *const *)(argv + 3), (size_t)(argc - 3),
                          progress, &calls, 1, &output, NULL);
    printf("calibrate: status %d after %d progress calls\n", status, calls);
    printDiagnostics(session);
    if (status == 0)
      printf("output:\n%s", output);
    qfxFreeString(output);
  } else if (strcmp(argv[1], "compile") == 0) {
    status = qfxCompileToFile(session, text, length, argv[2], NULL, NULL, NULL,
                              argv[3], NULL);
    printf("compile: status %d\n", status);
    printDiagnostics(session);
  }
  qfxSessionDestroy(session);
  free(text);
  return status;
}
