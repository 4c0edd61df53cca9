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

#ifdef __cplusplus
extern "C" {
#endif

#define QFX_CAPI_EXPORTED __attribute__((visibility("default")))

/* The version of the C API; a change that breaks callers changes it. */
#define QFX_CAPI_VERSION 1

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

/* The diagnostics of the session's last call. */
QFX_CAPI_EXPORTED size_t qfxGetNumDiagnostics(QfxSession session);

/* Fills `*diagnostic` with the index-th; returns non-zero if out of range. */
QFX_CAPI_EXPORTED int qfxGetDiagnostic(QfxSession session, size_t index,
                                       QfxDiagnostic *diagnostic);

QFX_CAPI_EXPORTED void qfxFreeString(char *string);

#ifdef __cplusplus
}
#endif

#endif /* QFX_C_QFX_H */
