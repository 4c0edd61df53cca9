//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Reading and writing NumPy's .npy format (versions 1.0 to 3.0, C order,
// little endian) for the dtypes qfx's tools exchange with users: float32,
// float16, int8, uint8, int32 and int64.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_RUNTIME_NPY_H
#define QFX_RUNTIME_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace qfx {

/// The element types of .npy files qfx reads and writes.
enum class NpyDType : uint8_t { Float32, Float16, Int8, UInt8, Int32, Int64 };

/// NumPy's name of `dtype`, e.g. "float32".
llvm::StringRef getNpyDTypeName(NpyDType dtype);

/// The size of one element of `dtype` in bytes.
size_t getNpyDTypeSize(NpyDType dtype);

/// The bytes of a `dtype` array of `shape`, or nothing when the count
/// overflows int64 (shapes from files and IR are checked with it before
/// anything is allocated or read).
std::optional<int64_t> getNpyByteCount(NpyDType dtype,
                                       llvm::ArrayRef<int64_t> shape);

/// A dense C-order array.
struct NpyArray {
  NpyDType dtype = NpyDType::Float32;
  llvm::SmallVector<int64_t> shape;
  std::vector<uint8_t> data;

  NpyArray() = default;
  /// A zero-filled array of the given dtype and shape.
  NpyArray(NpyDType dtype, llvm::ArrayRef<int64_t> shape);

  int64_t getNumElements() const;
  size_t getNumBytes() const { return data.size(); }

  /// The shape as "2x3x4" ("scalar" for rank 0), for diagnostics.
  std::string getShapeString() const;
};

/// Reads a .npy file. Errors name the file and say what was expected.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);

/// Parses .npy bytes; `name` names the source in errors.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef bytes, llvm::StringRef name);

/// Reads the samples of a .npy file one at a time: sample `i` is the slice
/// `i` of the leading axis. The file is memory-mapped, so reading N samples
/// costs memory for one sample, not N.
class NpySampleReader {
public:
  /// Opens `path`; it must have at least one dimension.
  static llvm::Expected<NpySampleReader> open(llvm::StringRef path);

  NpyDType getDType() const { return dtype; }
  llvm::ArrayRef<int64_t> getSampleShape() const { return sampleShape; }
  int64_t getNumSamples() const { return numSamples; }
  llvm::StringRef getPath() const { return path; }

  /// A copy of sample `index` (0 <= index < getNumSamples()).
  NpyArray getSample(int64_t index) const;

private:
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  size_t payloadOffset = 0;
  NpyDType dtype = NpyDType::Float32;
  llvm::SmallVector<int64_t> sampleShape;
  int64_t numSamples = 0;
};

/// Writes `array` to `path` as .npy version 1.0. The file appears only once
/// it is complete (written to a temporary file, then renamed).
llvm::Error writeNpy(llvm::StringRef path, const NpyArray &array);

} // namespace qfx

#endif // QFX_RUNTIME_NPY_H
