/* Shared by the C API's test clients: a whole file as a NUL-terminated
 * string (NULL if it cannot be read); its size in `*length`. */
#ifndef QFX_TEST_CAPI_READ_FILE_H
#define QFX_TEST_CAPI_READ_FILE_H

#include <stdio.h>
#include <stdlib.h>

static char *readFile(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = size < 0 ? NULL : malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, file) != (size_t)size) {
    free(text);
    text = NULL;
  }
  fclose(file);
  if (!text)
    return NULL;
  text[size] = '\0';
  *length = (size_t)size;
  return text;
}

#endif /* QFX_TEST_CAPI_READ_FILE_H */
