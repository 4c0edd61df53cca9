//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The format: the magic "\x93NUMPY", a major and a minor version byte, the
// header length (2 bytes little endian in 1.0, 4 bytes in 2.0 and 3.0), then
// a Python dict literal {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } padded with spaces and a newline, then the raw data.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace qfx;

static constexpr llvm::StringLiteral kMagic("\x93NUMPY");

llvm::StringRef qfx::getNpyDTypeName(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::Float32:
    return "float32";
  case NpyDType::Float16:
    return "float16";
  case NpyDType::Int8:
    return "int8";
  case NpyDType::UInt8:
    return "uint8";
  case NpyDType::Int32:
    return "int32";
  case NpyDType::Int64:
    return "int64";
  }
  return "unknown";
}

size_t qfx::getNpyDTypeSize(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::Float32:
  case NpyDType::Int32:
    return 4;
  case NpyDType::Float16:
    return 2;
  case NpyDType::Int8:
  case NpyDType::UInt8:
    return 1;
  case NpyDType::Int64:
    return 8;
  }
  return 0;
}

/// The descr string of `dtype` in files we write.
static llvm::StringRef getDescr(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::Float32:
    return "<f4";
  case NpyDType::Float16:
    return "<f2";
  case NpyDType::Int8:
    return "|i1";
  case NpyDType::UInt8:
    return "|u1";
  case NpyDType::Int32:
    return "<i4";
  case NpyDType::Int64:
    return "<i8";
  }
  return "";
}

std::optional<int64_t> qfx::getNpyByteCount(NpyDType dtype,
                                            llvm::ArrayRef<int64_t> shape) {
  std::optional<int64_t> bytes = getNpyDTypeSize(dtype);
  for (int64_t dim : shape)
    if (bytes)
      bytes = llvm::checkedMul(*bytes, dim);
  return bytes;
}

NpyArray::NpyArray(NpyDType dtype, llvm::ArrayRef<int64_t> shape)
    : dtype(dtype), shape(shape) {
  data.assign(getNumElements() * getNpyDTypeSize(dtype), 0);
}

int64_t NpyArray::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

std::string NpyArray::getShapeString() const {
  if (shape.empty())
    return "scalar";
  return llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), "x");
}

static llvm::Error npyError(llvm::StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 name + ": " + message);
}

/// Finds `'key':` in the header dict and returns the text after it.
static std::optional<llvm::StringRef> findValue(llvm::StringRef header,
                                                llvm::StringRef key) {
  for (llvm::StringRef quote : {"'", "\""}) {
    std::string needle = (quote + key + quote).str();
    size_t at = header.find(needle);
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef rest = header.drop_front(at + needle.size()).ltrim();
    if (!rest.consume_front(":"))
      return std::nullopt;
    return rest.ltrim();
  }
  return std::nullopt;
}

namespace {
/// The header of a .npy file: the array's dtype and shape, and where its data
/// starts.
struct NpyHeader {
  NpyDType dtype;
  llvm::SmallVector<int64_t> shape;
  size_t payloadOffset;
};
} // namespace

static llvm::Expected<NpyHeader> parseHeader(llvm::StringRef bytes,
                                             llvm::StringRef name) {
  if (!bytes.starts_with(kMagic))
    return npyError(name, "not a .npy file (expected the magic \\x93NUMPY)");
  if (bytes.size() < 10)
    return npyError(name, "truncated .npy header");
  unsigned major = static_cast<uint8_t>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength =
        static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError(name, "truncated .npy header");
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength = (headerLength << 8) | static_cast<uint8_t>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return npyError(name, llvm::formatv("unsupported .npy version {0}, "
                                        "expected 1, 2 or 3",
                                        major));
  }
  if (bytes.size() < headerStart + headerLength)
    return npyError(name, "truncated .npy header");
  llvm::StringRef header = bytes.substr(headerStart, headerLength);

  std::optional<llvm::StringRef> descr = findValue(header, "descr");
  std::optional<llvm::StringRef> fortran = findValue(header, "fortran_order");
  std::optional<llvm::StringRef> shapeText = findValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return npyError(name, "malformed .npy header (expected 'descr', "
                          "'fortran_order' and 'shape'): " +
                              header.trim());

  char quote = descr->empty() ? '\'' : descr->front();
  size_t end = descr->find(quote, 1);
  if ((quote != '\'' && quote != '"') || end == llvm::StringRef::npos)
    return npyError(name, "malformed 'descr' in .npy header");
  llvm::StringRef descrText = descr->substr(1, end - 1);
  std::optional<NpyDType> dtype;
  if (descrText.size() == 3 && descrText[0] != '>') {
    llvm::StringRef kind = descrText.drop_front();
    if (kind == "f4")
      dtype = NpyDType::Float32;
    else if (kind == "f2")
      dtype = NpyDType::Float16;
    else if (kind == "i1")
      dtype = NpyDType::Int8;
    else if (kind == "u1")
      dtype = NpyDType::UInt8;
    else if (kind == "i4")
      dtype = NpyDType::Int32;
    else if (kind == "i8")
      dtype = NpyDType::Int64;
  }
  if (!dtype)
    return npyError(name, "unsupported dtype '" + descrText +
                              "', expected little-endian float32, float16, "
                              "int8, uint8, int32 or int64");

  if (fortran->starts_with("True"))
    return npyError(name, "Fortran-order arrays are not supported, save a "
                          "C-order array (numpy.ascontiguousarray)");
  if (!fortran->starts_with("False"))
    return npyError(name, "malformed 'fortran_order' in .npy header");

  if (!shapeText->consume_front("("))
    return npyError(name, "malformed 'shape' in .npy header");
  size_t close = shapeText->find(')');
  if (close == llvm::StringRef::npos)
    return npyError(name, "malformed 'shape' in .npy header");
  NpyHeader result{*dtype, {}, headerStart + headerLength};
  llvm::SmallVector<llvm::StringRef> dims;
  shapeText->take_front(close).split(dims, ',', /*MaxSplit=*/-1,
                                     /*KeepEmpty=*/false);
  for (llvm::StringRef dim : dims) {
    dim = dim.trim();
    if (dim.empty())
      continue;
    int64_t size;
    if (dim.getAsInteger(10, size) || size < 0)
      return npyError(name,
                      "malformed dimension '" + dim + "' in .npy 'shape'");
    result.shape.push_back(size);
  }

  NpyArray shapeOnly;
  shapeOnly.dtype = *dtype;
  shapeOnly.shape = result.shape;
  // Dimensions come from the file: their product may overflow, and a wrapped
  // byte count could match the data and let reads run past it.
  std::optional<int64_t> expectedBytes = getNpyByteCount(*dtype, result.shape);
  if (!expectedBytes)
    return npyError(name, llvm::formatv("{0} array of shape {1} has more than "
                                        "2^63 bytes of data",
                                        getNpyDTypeName(*dtype),
                                        shapeOnly.getShapeString()));
  size_t expected = *expectedBytes;
  size_t available = bytes.size() - result.payloadOffset;
  if (available != expected)
    return npyError(name, llvm::formatv("{0} array of shape {1} needs {2} "
                                        "bytes of data, the file has {3}",
                                        getNpyDTypeName(*dtype),
                                        shapeOnly.getShapeString(), expected,
                                        available));
  return result;
}

llvm::Expected<NpyArray> qfx::parseNpy(llvm::StringRef bytes,
                                       llvm::StringRef name) {
  llvm::Expected<NpyHeader> header = parseHeader(bytes, name);
  if (!header)
    return header.takeError();
  NpyArray array;
  array.dtype = header->dtype;
  array.shape = std::move(header->shape);
  llvm::StringRef payload = bytes.drop_front(header->payloadOffset);
  array.data.assign(payload.bytes_begin(), payload.bytes_end());
  return array;
}

llvm::Expected<NpySampleReader> NpySampleReader::open(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError(path, "cannot read: " + buffer.getError().message());
  llvm::Expected<NpyHeader> header = parseHeader((*buffer)->getBuffer(), path);
  if (!header)
    return header.takeError();
  if (header->shape.empty())
    return npyError(path, "expected a leading sample axis, got a scalar");
  NpySampleReader reader;
  reader.path = path.str();
  reader.buffer = std::move(*buffer);
  reader.payloadOffset = header->payloadOffset;
  reader.dtype = header->dtype;
  reader.numSamples = header->shape.front();
  reader.sampleShape.assign(header->shape.begin() + 1, header->shape.end());
  return reader;
}

NpyArray NpySampleReader::getSample(int64_t index) const {
  NpyArray sample(dtype, sampleShape);
  size_t bytes = sample.getNumBytes();
  const char *start = buffer->getBufferStart() + payloadOffset + index * bytes;
  std::copy_n(start, bytes, reinterpret_cast<char *>(sample.data.data()));
  return sample;
}

llvm::Expected<NpyArray> qfx::readNpy(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError(path, "cannot read: " + buffer.getError().message());
  return parseNpy((*buffer)->getBuffer(), path);
}

llvm::Error qfx::writeNpy(llvm::StringRef path, const NpyArray &array) {
  std::string shape;
  for (int64_t dim : array.shape)
    shape += std::to_string(dim) + ", ";
  if (array.shape.size() > 1)
    shape.erase(shape.size() - 2);
  else if (array.shape.size() == 1)
    shape.pop_back();
  std::string header =
      llvm::formatv("{{'descr': '{0}', 'fortran_order': False, 'shape': "
                    "({1}), }",
                    getDescr(array.dtype), shape)
          .str();
  // Pad so that the data starts on a 64-byte boundary, as NumPy does.
  size_t total = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');

  llvm::SmallString<128> temporary(path);
  temporary += ".partial";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temporary, ec, llvm::sys::fs::OF_None);
    if (ec)
      return npyError(path, "cannot write: " + ec.message());
    os << kMagic << '\x01' << '\x00';
    os << static_cast<char>(header.size() & 0xff)
       << static_cast<char>(header.size() >> 8);
    os << header;
    os.write(reinterpret_cast<const char *>(array.data.data()),
             array.data.size());
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return npyError(path, "cannot write: " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return npyError(path, "cannot write: " + ec.message());
  }
  return llvm::Error::success();
}
