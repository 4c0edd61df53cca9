//===- NpyTest.cpp - Reading and writing .npy files -----------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace qfx;

namespace {

/// .npy bytes with the given version, dict text and payload.
std::string makeNpy(int major, const std::string &dict,
                    const std::string &payload) {
  std::string header = dict + "\n";
  std::string bytes = "\x93NUMPY";
  bytes.push_back(static_cast<char>(major));
  bytes.push_back(0);
  size_t length = header.size();
  int lengthBytes = major == 1 ? 2 : 4;
  for (int i = 0; i < lengthBytes; ++i)
    bytes.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  return bytes + header + payload;
}

std::string errorOf(llvm::Expected<NpyArray> array) {
  if (array)
    return "";
  return llvm::toString(array.takeError());
}

/// The error parsing a version 1.0 file "f.npy" with the given descr and
/// shape literals and payload ("" when it parses).
std::string headerError(const std::string &descr, const std::string &shape,
                        const std::string &payload) {
  return errorOf(parseNpy(
      makeNpy(1,
              "{'descr': " + descr +
                  ", 'fortran_order': False, 'shape': " + shape + ", }",
              payload),
      "f.npy"));
}

TEST(Npy, ParsesVersionsAndShapes) {
  float values[3] = {1.5f, -2.0f, 0.25f};
  std::string payload(reinterpret_cast<char *>(values), sizeof(values));
  for (int major : {1, 2, 3}) {
    auto array = parseNpy(
        makeNpy(major,
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                payload),
        "v");
    ASSERT_TRUE(static_cast<bool>(array)) << llvm::toString(array.takeError());
    EXPECT_EQ(array->dtype, NpyDType::Float32);
    EXPECT_EQ(array->shape, llvm::SmallVector<int64_t>({3}));
    EXPECT_EQ(std::memcmp(array->data.data(), values, sizeof(values)), 0);
  }
  auto scalar = parseNpy(
      makeNpy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
              std::string(8, '\0')),
      "s");
  ASSERT_TRUE(static_cast<bool>(scalar));
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->getNumElements(), 1);
  EXPECT_EQ(scalar->getShapeString(), "scalar");
  auto empty = parseNpy(
      makeNpy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4), }",
              ""),
      "e");
  ASSERT_TRUE(static_cast<bool>(empty));
  EXPECT_EQ(empty->getShapeString(), "0x4");
}

TEST(Npy, Errors) {
  EXPECT_EQ(errorOf(parseNpy("hello", "f.npy")),
            "f.npy: not a .npy file (expected the magic \\x93NUMPY)");
  EXPECT_EQ(errorOf(parseNpy(makeNpy(4, "{}", ""), "f.npy")),
            "f.npy: unsupported .npy version 4, expected 1, 2 or 3");
  EXPECT_EQ(headerError("'>f4'", "(1,)", std::string(4, '\0')),
            "f.npy: unsupported dtype '>f4', expected little-endian float32, "
            "float16, int8, uint8, int32 or int64");
  EXPECT_EQ(headerError("'<f4'", "(2, 2)", std::string(12, '\0')),
            "f.npy: float32 array of shape 2x2 needs 16 bytes of data, the "
            "file has 12");
  EXPECT_EQ(errorOf(parseNpy(makeNpy(1, "{'descr': '<f4'}", ""), "f.npy")),
            "f.npy: malformed .npy header (expected 'descr', 'fortran_order' "
            "and 'shape'): {'descr': '<f4'}");
  EXPECT_EQ(headerError("'<f4'", "(a,)", ""),
            "f.npy: malformed dimension 'a' in .npy 'shape'");
  // Shapes whose byte count wraps past 2^64, to 64 bytes (the size of the
  // data, so a check of the wrapped count passed) and to 0.
  EXPECT_EQ(
      headerError("'<f4'", "(288230376151711745, 2, 8)", std::string(64, '\0')),
      "f.npy: float32 array of shape 288230376151711745x2x8 has more "
      "than 2^63 bytes of data");
  EXPECT_EQ(headerError("'<f4'", "(4611686018427387904, 4)", ""),
            "f.npy: float32 array of shape 4611686018427387904x4 has more "
            "than 2^63 bytes of data");
  EXPECT_EQ(
      headerError("'|u1'", "(99999999999999999999,)", ""),
      "f.npy: malformed dimension '99999999999999999999' in .npy 'shape'");
  EXPECT_NE(errorOf(readNpy("/nonexistent/x.npy")).find("cannot read"),
            std::string::npos);
}

TEST(Npy, WriteThenReadRoundTrips) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("qfx-npy", dir));
  for (auto [dtype, shape] :
       {std::pair{NpyDType::Float32, llvm::SmallVector<int64_t>{2, 3}},
        std::pair{NpyDType::Int64, llvm::SmallVector<int64_t>{}},
        std::pair{NpyDType::UInt8, llvm::SmallVector<int64_t>{5}},
        std::pair{NpyDType::Float16, llvm::SmallVector<int64_t>{1, 2, 2}}}) {
    NpyArray array(dtype, shape);
    for (size_t i = 0; i < array.data.size(); ++i)
      array.data[i] = static_cast<uint8_t>(i * 7 + 1);
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, "a.npy");
    ASSERT_FALSE(static_cast<bool>(writeNpy(path, array)));
    EXPECT_FALSE(llvm::sys::fs::exists(path + ".partial"));
    auto read = readNpy(path);
    ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
    EXPECT_EQ(read->dtype, dtype);
    EXPECT_EQ(read->shape, shape);
    EXPECT_EQ(read->data, array.data);
  }
  llvm::sys::fs::remove_directories(dir);
}

TEST(Npy, SampleReaderSlicesTheLeadingAxis) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("qfx-samples", "npy", path));
  NpyArray batch(NpyDType::Int32, {3, 2});
  auto *values = reinterpret_cast<int32_t *>(batch.data.data());
  for (int i = 0; i < 6; ++i)
    values[i] = i;
  ASSERT_FALSE(static_cast<bool>(writeNpy(path, batch)));
  auto reader = NpySampleReader::open(path);
  ASSERT_TRUE(static_cast<bool>(reader)) << llvm::toString(reader.takeError());
  EXPECT_EQ(reader->getNumSamples(), 3);
  EXPECT_EQ(reader->getSampleShape(), llvm::ArrayRef<int64_t>({2}));
  NpyArray second = reader->getSample(1);
  EXPECT_EQ(second.shape, llvm::SmallVector<int64_t>({2}));
  auto *sample = reinterpret_cast<int32_t *>(second.data.data());
  EXPECT_EQ(sample[0], 2);
  EXPECT_EQ(sample[1], 3);

  NpyArray scalar(NpyDType::Float32, {});
  ASSERT_FALSE(static_cast<bool>(writeNpy(path, scalar)));
  auto noSamples = NpySampleReader::open(path);
  ASSERT_FALSE(static_cast<bool>(noSamples));
  EXPECT_NE(llvm::toString(noSamples.takeError())
                .find("expected a leading sample axis, got a scalar"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}

} // namespace
