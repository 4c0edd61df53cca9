/*===- qfx-c/QFX.h - qfx's C API ----------------------------------*- C -*-===*\
|*                                                                            *|
|* Part of the qfx project.                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * qfx from C, and from any language with a C foreign-function interface
 * (Python's ctypes: python/qfx/_capi.py), in the style of upstream's mlir-c:
 * opaque handles, plain C types, no exceptions. The library is
 * libQFXCAPI.so; it links Debian's libMLIR.so.
 *
 * A session is an MLIR context with qfx's and upstream's dialects, passes
 * and named pipelines registered. Each call records the diagnostics it
 * emitted (errors, warnings, remarks and their notes) as structured records,
 * replacing those of the previous call; nothing is printed.
 *
 *   QfxSession session = qfxSessionCreate();
 *   char *observed = NULL;
 *   if (qfxRunPipeline(session, text, strlen(text), "model.mlir",
 *                      "builtin.module(qfx-prepare-pipeline{backend=x86})",
 *                      1, &observed, NULL) != 0)
 *     for (size_t i = 0; i < qfxGetNumDiagnostics(session); ++i) ...
 *   qfxFreeString(observed);
 *   qfxSessionDestroy(session);
 */

#ifndef QFX_C_QFX_H
#define QFX_C_QFX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QFX_CAPI_EXPORTED __attribute__((visibility("default")))

/* The version of the C API; adding or changing a function changes it. */
#define QFX_CAPI_VERSION 9

typedef struct QfxSessionImpl *QfxSession;

typedef enum QfxSeverity {
  QfxSeverityError = 0,
  QfxSeverityWarning = 1,
  QfxSeverityNote = 2,
  QfxSeverityRemark = 3
} QfxSeverity;

/* One diagnostic. The strings belong to the session and live until its next
 * call. */
typedef struct QfxDiagnostic {
  QfxSeverity severity;
  /* The location as MLIR prints it inside loc(...): "\"model.mlir\":3:5",
   * "\"layer1.0.conv1\"", "unknown". */
  const char *location;
  const char *message;
  /* The index of the diagnostic a note belongs to; -1 for the others. */
  long parent;
} QfxDiagnostic;

/* QFX_CAPI_VERSION of the library. */
QFX_CAPI_EXPORTED int qfxGetCAPIVersion(void);

/* A new session; NULL if out of memory. */
QFX_CAPI_EXPORTED QfxSession qfxSessionCreate(void);

QFX_CAPI_EXPORTED void qfxSessionDestroy(QfxSession session);

/* How many sources the session's calls have parsed. Each call that takes a
 * source parses it into a new MLIR context, so that a session holds one
 * call's IR at a time (a context keeps every attribute it made, weights
 * included, until it is destroyed). A call given the text the session
 * printed last with locations (a stage the previous call returned) does not
 * parse it: the session kept that module and moves it to the new context as
 * bytecode, which is what the text parses to. */
QFX_CAPI_EXPORTED size_t qfxGetNumParsedSources(QfxSession session);

/* Gives the bytes of `dense_resource<key>` to the session's next call that
 * takes a source (any call of the session ends the offer): weights that
 * reach the library by reference, not as text, as torch-mlir's FX importer
 * hands them to MLIR. `data` (`size` bytes, the elements in the order and
 * the little-endian form of their type) is not copied: the caller keeps it
 * until that call returns. The call's parse replaces each `dense_resource`
 * by the dense elements of its bytes (qfx's passes read elements), so
 * what is printed afterwards holds the values. A key given again replaces
 * the earlier bytes; a later call may use the same keys. Errors of that
 * call: a given key that an earlier source of the same call named (MLIR
 * renames a resource key its context has seen); a resource the source names
 * with neither bytes given nor a dialect_resources entry, or whose byte
 * count is not its type's. Returns non-zero for a NULL key, or NULL
 * data of a non-zero size. */
QFX_CAPI_EXPORTED int qfxSessionAddResource(QfxSession session, const char *key,
                                            const void *data, size_t size);

/* Parses `source` (MLIR text of `length` bytes; diagnostics name it
 * `sourceName`), runs `pipeline` on it (a textual pass pipeline anchored on
 * builtin.module, as mlir-opt's --pass-pipeline: "builtin.module(qfx-fuse,
 * qfx-prepare{backend=x86})"), verifies it and prints it, with locations if
 * `printDebugInfo` (the text `quant-opt` prints). Returns 0 and sets `*output`
 * (NUL-terminated; free with qfxFreeString) and, if not NULL, `*outputLength`;
 * otherwise returns non-zero, sets `*output` to NULL and records why (a
 * malformed module, pipeline or option is an error record, never a crash). */
QFX_CAPI_EXPORTED int qfxRunPipeline(QfxSession session, const char *source,
                                     size_t length, const char *sourceName,
                                     const char *pipeline, int printDebugInfo,
                                     char **output, size_t *outputLength);

/* Gives the session's next call that takes a source the file `path` to
 * read its source from: a call given a NULL source (length ignored) reads
 * the file (MLIR text or bytecode) instead, its name the source name when
 * that is NULL; any call of the session ends the offer. A file the session
 * wrote with locations (qfxSessionSetOutputFile) that has not changed since
 * (the same file, hard links included, of the same size and modification
 * time) is not parsed: the session moves the module it printed, as for text
 * printed last. Returns non-zero for an empty or NULL path. */
QFX_CAPI_EXPORTED int qfxSessionSetSourceFile(QfxSession session,
                                              const char *path);

/* Gives the session's next call that prints a module the file `path` to
 * print it into, instead of a new string: the call then sets `*output` to
 * NULL and `*outputLength` (if not NULL) to the bytes written. The file is
 * written under a temporary name and renamed into place, so it is whole or
 * absent; a file that cannot be written is an error of that call. Any call
 * of the session ends the offer. Returns non-zero for an empty or NULL
 * path. A stage of hundreds of MB then never sits in memory as text. */
QFX_CAPI_EXPORTED int qfxSessionSetOutputFile(QfxSession session,
                                              const char *path);

/* The diagnostics of the session's last call. */
QFX_CAPI_EXPORTED size_t qfxGetNumDiagnostics(QfxSession session);

/* Fills `*diagnostic` with the index-th; returns non-zero if out of range. */
QFX_CAPI_EXPORTED int qfxGetDiagnostic(QfxSession session, size_t index,
                                       QfxDiagnostic *diagnostic);

QFX_CAPI_EXPORTED void qfxFreeString(char *string);

/*===----------------------------------------------------------------------===*
 * Configuration
 *===----------------------------------------------------------------------===*/

/* The library's built-in configuration as JSON (the format the passes
 * read), in a new string `*output`: for `kind` "backend_config", the
 * BackendConfig table `name` ("x86", "fbgemm", "qnnpack", "onednn",
 * "tosa"); for "torch_to_tosa" (`name` ignored), the list of PyTorch
 * patterns the tables translate and the TOSA pattern each becomes, with the
 * TOSA pattern's own fields (root_op, input_roles, fused_op, fuser,
 * reference_lowering). Returns non-zero with the reason recorded for an
 * unknown kind or name. */
QFX_CAPI_EXPORTED int qfxGetBuiltinConfig(QfxSession session, const char *kind,
                                          const char *name, char **output,
                                          size_t *outputLength);

/*===----------------------------------------------------------------------===*
 * Calibration
 *===----------------------------------------------------------------------===*/

/* Called after each calibration sample with the samples done and their
 * total. */
typedef void (*QfxProgressCallback)(void *userData, int64_t done,
                                    int64_t total);

/* Calibrates the observers of an observed module (`source`, as for
 * qfxRunPipeline) on samples and returns the calibrated module's text, as
 * `quant-run --calibrate` does: `entry` is the function to run (NULL or "":
 * the module's only public function); `samplePaths[i]` names the samples of
 * its argument i, a .npy file whose leading axis indexes samples or a
 * directory with one .npy file per sample. `progress` (may be NULL) is
 * called with `userData` after each sample. Returns 0 and sets `*output`, or
 * non-zero with the reason recorded (a bad sample names its file and index).
 */
QFX_CAPI_EXPORTED int
qfxCalibrate(QfxSession session, const char *source, size_t length,
             const char *sourceName, const char *entry,
             const char *const *samplePaths, size_t numSamplePaths,
             QfxProgressCallback progress, void *userData, int printDebugInfo,
             char **output, size_t *outputLength);

/*===----------------------------------------------------------------------===*
 * Running a model in this process (JIT)
 *===----------------------------------------------------------------------===*/

typedef struct QfxModelImpl *QfxModel;

typedef enum QfxDType {
  QfxDTypeFloat32 = 0,
  QfxDTypeFloat16 = 1,
  QfxDTypeInt8 = 2,
  QfxDTypeUInt8 = 3,
  QfxDTypeInt32 = 4,
  QfxDTypeInt64 = 5
} QfxDType;

/* A tensor: `rank` sizes at `shape`, its elements at `data` in C order. */
typedef struct QfxTensor {
  QfxDType dtype;
  size_t rank;
  const int64_t *shape;
  void *data;
} QfxTensor;

/* Compiles one function of a module at any stage quant-run runs (float
 * TOSA, observed, reference, int8 TOSA) to native code in this process, as
 * quant-run does: `entry` as for qfxCalibrate; `target` the int8 kernels'
 * target (NULL or "": host; `quant-run --help` lists those of this machine).
 * Sets `*model` (free with qfxModelDestroy; it outlives the session) or
 * returns non-zero with the reason recorded. */
QFX_CAPI_EXPORTED int qfxModelCompile(QfxSession session, const char *source,
                                      size_t length, const char *sourceName,
                                      const char *entry, const char *target,
                                      QfxModel *model);

QFX_CAPI_EXPORTED void qfxModelDestroy(QfxModel model);

/* The compiled function's name; lives as long as the model. */
QFX_CAPI_EXPORTED const char *qfxModelGetEntry(QfxModel model);

QFX_CAPI_EXPORTED size_t qfxModelGetNumInputs(QfxModel model);
QFX_CAPI_EXPORTED size_t qfxModelGetNumResults(QfxModel model);

/* The dtype and shape of the index-th argument or result (`data` is NULL;
 * `shape` lives as long as the model); non-zero if out of range. */
QFX_CAPI_EXPORTED int qfxModelGetInput(QfxModel model, size_t index,
                                       QfxTensor *signature);
QFX_CAPI_EXPORTED int qfxModelGetResult(QfxModel model, size_t index,
                                        QfxTensor *signature);

/* Runs the model once on `inputs` and writes its results into the data of
 * `results`: each must have its argument's or result's dtype and shape.
 * Returns non-zero with the reason recorded in `session` otherwise. Models
 * may run on several threads at once, each with its own session. */
QFX_CAPI_EXPORTED int qfxModelRun(QfxSession session, QfxModel model,
                                  const QfxTensor *inputs, size_t numInputs,
                                  const QfxTensor *results, size_t numResults);

/* Runs a model's graph breaks (`qfx.host_call` ops: what the compiler does
 * not express, computed by the host, e.g. a PyTorch node): called with
 * `userData`, the op's `id` and the C-order data of its inputs, then of its
 * results (which it writes), `numBuffers` in all, of the shapes and element
 * types the op's types give. Returns 0, or non-zero if it failed: the
 * program's later host calls are skipped and qfxModelRun (or qfxCalibrate)
 * fails naming the call. */
typedef int (*QfxHostCallback)(void *userData, int64_t id, void *const *buffers,
                               size_t numBuffers);

/* Sets the host callback of the models run on the calling thread (NULL:
 * none; a model reaching a host call then fails). */
QFX_CAPI_EXPORTED void qfxSetHostCallback(QfxHostCallback callback,
                                          void *userData);

/* The buffers compiled models' programs allocate (activations, padded
 * copies) come from one process-wide cache that keeps freed buffers for the
 * next call (qfx/Runtime/BufferCache.h). Its bytes handed out now, the most
 * handed out at once since qfxResetBufferPeak (a call's peak activation
 * memory, when one model runs at a time), and the bytes kept for reuse; a
 * null pointer skips that figure. */
QFX_CAPI_EXPORTED void qfxGetBufferStats(size_t *live, size_t *peak,
                                         size_t *cached);
/* Starts a new peak from the bytes handed out now. */
QFX_CAPI_EXPORTED void qfxResetBufferPeak(void);

/*===----------------------------------------------------------------------===*
 * Calibration a run at a time (a prepared model's calls)
 *===----------------------------------------------------------------------===*/

/* As qfxModelCompile for an observed module (an observed or calibrated
 * stage), compiled for calibration: each qfxModelRun of the model hands every
 * tensor a qfx.observe sees to its observer, as qfxCalibrate does for each
 * sample, and writes the model's results. The model keeps its own copy of
 * the module (in a context of its own; statistics already in it are where
 * calibration starts). A NaN or infinite input, or a run that fails, leaves
 * the statistics as they were. A module without qfx.observe only runs (a
 * configuration that quantizes nothing). */
QFX_CAPI_EXPORTED int
qfxModelCompileCalibrating(QfxSession session, const char *source,
                           size_t length, const char *sourceName,
                           const char *entry, QfxModel *model);

/* As qfxModelCompileCalibrating for the same model at other input shapes
 * (another batch size: exported again and prepared the same way, so that its
 * qfx.observe ops are `base`'s, in the same order, with the same ids and
 * specs; else an error naming the first that differs): its runs observe
 * into `base`'s observers, and qfxModelWriteStatistics of either writes the
 * statistics of both into `base`'s module. `base` stays valid while the new
 * model needs it, whichever is destroyed first. Models sharing observers
 * must not run at the same time (one thread, or the caller's lock). */
QFX_CAPI_EXPORTED int qfxModelCompileCalibratingWith(
    QfxSession session, QfxModel base, const char *source, size_t length,
    const char *sourceName, const char *entry, QfxModel *model);

/* The calibrating model's module with the statistics of its runs so far
 * (each calibrating qfx.observe's `stats`), printed as qfxCalibrate prints
 * its result: into a new string `*output`, or into the file offered by
 * qfxSessionSetOutputFile (`*output` NULL). Runs may go on afterwards. A
 * model not compiled by qfxModelCompileCalibrating is an error. */
QFX_CAPI_EXPORTED int qfxModelWriteStatistics(QfxSession session,
                                              QfxModel model,
                                              int printDebugInfo, char **output,
                                              size_t *outputLength);

/* The runs of a calibrating model that succeeded, and its module's
 * qfx.observe ops (0 for other models). */
QFX_CAPI_EXPORTED int64_t qfxModelGetNumRuns(QfxModel model);
QFX_CAPI_EXPORTED size_t qfxModelGetNumObservers(QfxModel model);

/*===----------------------------------------------------------------------===*
 * Recording every layer's output (PyTorch's numeric suite)
 *===----------------------------------------------------------------------===*/

/* As qfxModelCompile, but each qfxModelRun of the model also records the
 * value every op with a named location produces (the last float tensor of
 * each name; quantized values, and the integers of an int8 stage's
 * patterns, dequantized), as `quant-run --compare` does for each stage:
 * PyTorch's numeric-suite loggers. */
QFX_CAPI_EXPORTED int
qfxModelCompileRecording(QfxSession session, const char *source, size_t length,
                         const char *sourceName, const char *entry,
                         const char *target, QfxModel *model);

/* As qfxModelCompile, but each qfxModelRun of the model also times it per
 * layer (`quant-run --profile`): a hook after each named value (the last op
 * of each location name) reads one element of it, and the time since the
 * previous hook goes to its name. The hooks keep a layer's output from
 * fusing with the next layer's elementwise ops. */
QFX_CAPI_EXPORTED int
qfxModelCompileProfiling(QfxSession session, const char *source, size_t length,
                         const char *sourceName, const char *entry,
                         const char *target, QfxModel *model);

/* The time of one layer in the session's last qfxModelRun of a profiling
 * model, in program order; the last is "(rest)", the time after the last
 * named value. The strings live until the session's next qfxModelRun. */
typedef struct QfxLayerTime {
  const char *name;
  const char *opName;
  double seconds;
} QfxLayerTime;

QFX_CAPI_EXPORTED size_t qfxGetNumLayerTimes(QfxSession session);
QFX_CAPI_EXPORTED int qfxGetLayerTime(QfxSession session, size_t index,
                                      QfxLayerTime *time);

/* One recorded value. The strings and the tensor's shape and data belong to
 * the session and live until its next qfxModelRun or qfxExtractWeights. */
typedef struct QfxRecordedValue {
  /* The op's location name ("layer1.0.conv1", "layer1.0(add)"). */
  const char *name;
  /* The op that produced it ("tosa.conv2d", "qfx.fused"). */
  const char *opName;
  /* float32, C order. */
  QfxTensor value;
  /* Non-zero if the value is quantized per tensor with `scale` and
   * `zeroPoint`. */
  int quantized;
  double scale;
  int64_t zeroPoint;
} QfxRecordedValue;

/* The weights of one function of a stage (`source`, `entry` as for
 * qfxCalibrate), into the session's recorded values: each float constant a
 * qfx.observe observes (an observed or calibrated stage: the weights as
 * quantized, batch norm folded) and each integer constant a quant.scast +
 * quant.dcast dequantizes (a reference stage), dequantized, named by the
 * observer's or the dcast's location. Returns non-zero with the reason
 * recorded. */
QFX_CAPI_EXPORTED int qfxExtractWeights(QfxSession session, const char *source,
                                        size_t length, const char *sourceName,
                                        const char *entry);

/* PyTorch's shadow model of an int8 stage (`int8Source`, a module after
 * qfx-lower) and the float stage it was made from (`floatSource`), as the
 * text of a new module with locations (`*output`, free with qfxFreeString):
 * in function `entry` (as for qfxCalibrate) each int8 pattern computes on
 * the float model's values, quantized to its input's type, instead of on
 * the int8 values before it. Compiled with qfxModelCompileRecording, it
 * records each pattern's output with the layer's own error. Returns
 * non-zero with the reason recorded. */
QFX_CAPI_EXPORTED int qfxBuildShadowStage(QfxSession session,
                                          const char *floatSource,
                                          size_t floatLength,
                                          const char *int8Source,
                                          size_t int8Length, const char *entry,
                                          char **output, size_t *outputLength);

/* The values the session's last qfxModelRun of a recording model recorded,
 * in program order, or the weights of its last qfxExtractWeights (none
 * after other models' runs). */
QFX_CAPI_EXPORTED size_t qfxGetNumRecordedValues(QfxSession session);

/* Fills `*value` with the index-th; returns non-zero if out of range. */
QFX_CAPI_EXPORTED int qfxGetRecordedValue(QfxSession session, size_t index,
                                          QfxRecordedValue *value);

/*===----------------------------------------------------------------------===*
 * Compiling ahead of time
 *===----------------------------------------------------------------------===*/

/* Compiles one function of a module for `target` (NULL or "": host) to an
 * object file or a shared library `outputPath` (.o or .so) with its C header
 * (`headerPath`; NULL or "": the output with .h), as quant-compile does:
 * `entry` as for qfxCalibrate, exported as `exportName` (NULL or "": its
 * own name). Returns non-zero with the reason recorded, writing nothing. */
QFX_CAPI_EXPORTED int qfxCompileToFile(QfxSession session, const char *source,
                                       size_t length, const char *sourceName,
                                       const char *entry, const char *target,
                                       const char *exportName,
                                       const char *outputPath,
                                       const char *headerPath);

#ifdef __cplusplus
}
#endif

#endif /* QFX_C_QFX_H */
