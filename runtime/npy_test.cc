#include "runtime/npy.h"

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using ::testing::HasSubstr;

std::string TestData(const std::string& file) {
  return "runtime/testdata/" + file;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// make_fixtures.py fills element i with i (pred: i % 3 == 0; complex:
// i + 0.5i*i).
void ExpectFixtureValues(const Literal& lit) {
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    SCOPED_TRACE(absl::StrCat("element ", i));
    if (lit.element_type() == PRED) {
      EXPECT_EQ(lit.data<bool>()[i], i % 3 == 0);
    } else if (IsComplexType(lit.element_type())) {
      EXPECT_EQ(lit.GetAsComplex(i), complex128(i, 0.5 * i));
    } else {
      EXPECT_EQ(lit.GetAsDouble(i), static_cast<double>(i));
    }
  }
}

struct TypeCase {
  const char* name;
  PrimitiveType type;
};

const TypeCase kTypes[] = {
    {"pred", PRED}, {"s8", S8},   {"s16", S16}, {"s32", S32}, {"s64", S64},
    {"u8", U8},     {"u16", U16}, {"u32", U32}, {"u64", U64}, {"f16", F16},
    {"bf16", BF16}, {"f32", F32}, {"f64", F64}, {"c64", C64}, {"c128", C128},
};

TEST(NpyTest, ReadsNumpyFilesOfEveryType) {
  for (const TypeCase& c : kTypes) {
    SCOPED_TRACE(c.name);
    NpyReadOptions options;
    options.expected_type = c.type;
    absl::StatusOr<Literal> lit =
        ReadNpy(TestData(absl::StrCat(c.name, "_2x3.npy")), options);
    ASSERT_TRUE(lit.ok()) << lit.status();
    EXPECT_EQ(lit->shape(), Shape::Array(c.type, {2, 3}));
    ExpectFixtureValues(*lit);
  }
}

TEST(NpyTest, WritesTheSameBytesAsNumpy) {
  for (const TypeCase& c : kTypes) {
    SCOPED_TRACE(c.name);
    const std::string path = TestData(absl::StrCat(c.name, "_2x3.npy"));
    NpyReadOptions options;
    options.expected_type = c.type;
    absl::StatusOr<Literal> lit = ReadNpy(path, options);
    ASSERT_TRUE(lit.ok()) << lit.status();
    absl::StatusOr<std::string> bytes = SerializeNpy(*lit);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(*bytes, ReadBytes(path));
  }
  for (const char* file : {"f32_scalar.npy", "f32_0x3.npy"}) {
    SCOPED_TRACE(file);
    absl::StatusOr<Literal> lit = ReadNpy(TestData(file));
    ASSERT_TRUE(lit.ok()) << lit.status();
    absl::StatusOr<std::string> bytes = SerializeNpy(*lit);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(*bytes, ReadBytes(TestData(file)));
  }
}

TEST(NpyTest, OpaqueDescrNeedsTheExpectedType) {
  absl::StatusOr<Literal> lit = ReadNpy(TestData("bf16_2x3.npy"));
  ASSERT_FALSE(lit.ok());
  EXPECT_THAT(lit.status().message(), HasSubstr("bf16_2x3.npy"));
  EXPECT_THAT(lit.status().message(), HasSubstr("'<V2'"));
  EXPECT_THAT(lit.status().message(), HasSubstr("expected element type"));

  NpyReadOptions wrong_width;
  wrong_width.expected_type = F32;
  lit = ReadNpy(TestData("bf16_2x3.npy"), wrong_width);
  ASSERT_FALSE(lit.ok());
  EXPECT_THAT(lit.status().message(),
              HasSubstr("cannot hold the expected f32"));

  // A concrete dtype reads as itself whatever the caller expects.
  lit = ReadNpy(TestData("f32_2x3.npy"), wrong_width);
  ASSERT_TRUE(lit.ok());
  NpyReadOptions other;
  other.expected_type = S32;
  lit = ReadNpy(TestData("f32_2x3.npy"), other);
  ASSERT_TRUE(lit.ok());
  EXPECT_EQ(lit->element_type(), F32);
}

TEST(NpyTest, ReadsBigEndianFortranAndNewerVersions) {
  struct Case {
    const char* file;
    Shape shape;
  };
  const Case cases[] = {
      {"f64_be_2x3.npy", Shape::Array(F64, {2, 3})},
      {"s16_be_2x3.npy", Shape::Array(S16, {2, 3})},
      {"c64_be_2x3.npy", Shape::Array(C64, {2, 3})},
      {"f32_fortran_2x3x4.npy", Shape::Array(F32, {2, 3, 4})},
      {"s32_be_fortran_3x2.npy", Shape::Array(S32, {3, 2})},
      {"f32_v2_2x3.npy", Shape::Array(F32, {2, 3})},
      {"f32_v3_2x3.npy", Shape::Array(F32, {2, 3})},
      {"f32_0x3.npy", Shape::Array(F32, {0, 3})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    absl::StatusOr<Literal> lit = ReadNpy(TestData(c.file));
    ASSERT_TRUE(lit.ok()) << lit.status();
    EXPECT_EQ(lit->shape(), c.shape);
    ExpectFixtureValues(*lit);
  }
  absl::StatusOr<Literal> scalar = ReadNpy(TestData("f32_scalar.npy"));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape(), Shape::Scalar(F32));
  EXPECT_EQ(scalar->data<float>()[0], 7.0f);
}

TEST(NpyTest, RoundTripsRandomValuesOfEveryType) {
  std::mt19937_64 rng(42);
  for (const TypeCase& c : kTypes) {
    SCOPED_TRACE(c.name);
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{}, {0}, {5}, {3, 4}, {2, 1, 3}}) {
      Literal lit(Shape::Array(c.type, dims));
      uint8_t* data = lit.untyped_data();
      for (int64_t i = 0; i < lit.size_bytes(); ++i) {
        data[i] = static_cast<uint8_t>(rng());
      }
      if (c.type == PRED) {
        for (int64_t i = 0; i < lit.size_bytes(); ++i) data[i] &= 1;
      }
      absl::StatusOr<std::string> bytes = SerializeNpy(lit);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      EXPECT_EQ(bytes->size() % 64, lit.size_bytes() % 64);
      NpyReadOptions options;
      options.expected_type = c.type;
      absl::StatusOr<Literal> back = ParseNpy(*bytes, "mem.npy", options);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->shape(), lit.shape());
      EXPECT_TRUE(*back == lit);
    }
  }
}

TEST(NpyTest, WriteNpyThenReadNpy) {
  const std::string path =
      absl::StrCat(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp",
                   "/npy_test_out.npy");
  Literal lit = Literal::CreateR1<int64_t>(
      S64, std::vector<int64_t>{-1, 0, 1, int64_t{1} << 40});
  ASSERT_TRUE(WriteNpy(path, lit).ok());
  absl::StatusOr<Literal> back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == lit);
}

TEST(NpyTest, SixtyFourDimensionsAtMost) {
  Literal lit(Shape::Array(F32, std::vector<int64_t>(64, 1)));
  absl::StatusOr<std::string> bytes = SerializeNpy(lit);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<Literal> back = ParseNpy(*bytes, "rank64.npy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), lit.shape());
  EXPECT_FALSE(
      SerializeNpy(Literal(Shape::Array(F32, std::vector<int64_t>(65, 1))))
          .ok());
}

TEST(NpyTest, RejectsWhatNpyCannotHold) {
  Literal tuple = Literal::MakeTuple({Literal(Shape::Scalar(F32))});
  EXPECT_FALSE(SerializeNpy(tuple).ok());
  absl::Status status = WriteNpy("/nonexistent-dir/x.npy", tuple);
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent-dir/x.npy"));
  status = WriteNpy("/nonexistent-dir/x.npy", Literal(Shape::Scalar(F32)));
  EXPECT_THAT(status.message(), HasSubstr("cannot create"));
}

// A v1.0 file with `header` (padded like np.save) and `data`.
std::string MakeFile(const std::string& header, const std::string& data,
                     int major = 1) {
  std::string text = header + "\n";
  std::string out = std::string("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  const int len_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) {
    out.push_back(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  }
  return out + text + data;
}

std::string ErrorOf(absl::string_view bytes) {
  absl::StatusOr<Literal> lit = ParseNpy(bytes, "bad.npy");
  if (lit.ok()) return "OK";
  EXPECT_EQ(lit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(lit.status().message(), HasSubstr("bad.npy: "));
  return std::string(lit.status().message());
}

TEST(NpyTest, ClearErrors) {
  const std::string f32x2(8, '\0');
  const std::string good =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(ErrorOf(MakeFile(good, f32x2)), "OK");

  EXPECT_THAT(ErrorOf("PK\x03\x04 a zip file"), HasSubstr("bad magic"));
  EXPECT_THAT(ErrorOf(""), HasSubstr("bad magic"));
  std::string v4 = MakeFile(good, f32x2);
  v4[6] = 4;
  EXPECT_THAT(ErrorOf(v4), HasSubstr("unsupported .npy format version 4.0"));
  std::string v11 = MakeFile(good, f32x2);
  v11[7] = 1;
  EXPECT_THAT(ErrorOf(v11), HasSubstr("version 1.1"));

  EXPECT_THAT(ErrorOf(MakeFile("['descr', '<f4']", f32x2)),
              HasSubstr("malformed header (expected '{'"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr' '<f4', 'fortran_order': False, "
                               "'shape': (2,)}",
                               f32x2)),
              HasSubstr("expected ':' after key 'descr'"));
  EXPECT_THAT(
      ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': False}", f32x2)),
      HasSubstr("missing key 'shape'"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': 0, "
                               "'shape': (2,)}",
                               f32x2)),
              HasSubstr("expected True or False"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2,), 'extra': 1}",
                               f32x2)),
              HasSubstr("unexpected key 'extra'"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2 3)}",
                               f32x2)),
              HasSubstr("expected ',' or ')' in 'shape'"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2,)} trailing",
                               f32x2)),
              HasSubstr("text after the closing '}'"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': [('a', '<f4')], "
                               "'fortran_order': False, 'shape': (2,)}",
                               f32x2)),
              HasSubstr("structured dtypes"));

  for (const char* descr : {"<U3", "|O", "<f16", "<f3", "<M8", "<i", "x"}) {
    SCOPED_TRACE(descr);
    EXPECT_THAT(
        ErrorOf(MakeFile(absl::StrCat("{'descr': '", descr,
                                      "', 'fortran_order': False, "
                                      "'shape': (2,), }"),
                         f32x2)),
        HasSubstr(absl::StrCat("unknown or unsupported dtype '", descr, "'")));
  }

  EXPECT_THAT(ErrorOf(MakeFile(good, std::string(7, '\0'))),
              HasSubstr("truncated data: shape (2,) of '<f4' needs 8 bytes, "
                        "the file has 7"));
  EXPECT_THAT(ErrorOf(MakeFile(good, std::string(9, '\0'))),
              HasSubstr("1 unexpected bytes after the data"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (-2,), }",
                               f32x2)),
              HasSubstr("negative dimension"));
  // Huge shapes fail on the size check, before any allocation.
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1099511627776, 1048576), }",
                               f32x2)),
              HasSubstr("truncated data"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (4611686018427387904, 4), }",
                               f32x2)),
              HasSubstr("too many elements"));
  EXPECT_THAT(ErrorOf(MakeFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (99999999999999999999,), }",
                               f32x2)),
              HasSubstr("dimension size too large"));

  std::string rank65 = "(";
  for (int i = 0; i < 65; ++i) absl::StrAppend(&rank65, "1, ");
  EXPECT_THAT(ErrorOf(MakeFile(absl::StrCat("{'descr': '<f4', 'fortran_order': "
                                            "False, 'shape': ",
                                            rank65, ")}"),
                               "1234")),
              HasSubstr("more than 64 dimensions"));

  std::string too_long = std::string("\x93NUMPY\x02\x00", 8);
  too_long += std::string("\x00\x00\x00\x40", 4);  // 1 GiB header
  too_long += good;
  EXPECT_THAT(ErrorOf(too_long), HasSubstr("header too long"));
  std::string short_header = MakeFile(good, f32x2, 2);
  short_header[11] = 0x7f;  // the top byte of the header length
  EXPECT_THAT(ErrorOf(short_header), HasSubstr("header too long"));
  std::string cut = MakeFile(good, "", 2).substr(0, 40);
  EXPECT_THAT(ErrorOf(cut), HasSubstr("truncated: the header needs"));

  absl::StatusOr<Literal> missing = ReadNpy("/nonexistent/in0.npy");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("/nonexistent/in0.npy: cannot open"));
  absl::StatusOr<Literal> dir = ReadNpy("runtime/testdata");
  EXPECT_THAT(dir.status().message(), HasSubstr("runtime/testdata: cannot"));
}

TEST(NpyTest, PythonTwoStyleLongDimensions) {
  absl::StatusOr<Literal> lit =
      ParseNpy(MakeFile("{'descr': '<i2', 'fortran_order': True, "
                        "'shape': (1L, 2L)}",
                        std::string(4, '\0')),
               "py2.npy");
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->shape(), Shape::Array(S16, {1, 2}));
}

TEST(NpyTest, BoolBytesAreNormalized) {
  absl::StatusOr<Literal> lit = ParseNpy(
      MakeFile("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
               std::string("\x00\x02\xff", 3)),
      "bools.npy");
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->data<uint8_t>()[0], 0);
  EXPECT_EQ(lit->data<uint8_t>()[1], 1);
  EXPECT_EQ(lit->data<uint8_t>()[2], 1);
}

// ml_dtypes' int4 stores the low bits (-1 as 0x0f, np.save writes '<V1'):
// reading wraps them to the value, writing stores the low bits again.
TEST(NpyTest, SubByteIntegersAsMlDtypesStoresThem) {
  const std::string header =
      "{'descr': '<V1', 'fortran_order': False, 'shape': (4,), }";
  const std::string data("\x0f\x08\x07\xf3", 4);
  NpyReadOptions s4;
  s4.expected_type = S4;
  absl::StatusOr<Literal> lit = ParseNpy(MakeFile(header, data), "i4.npy", s4);
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->ToString(), "s4[4] {-1, -8, 7, 3}");
  absl::StatusOr<std::string> bytes = SerializeNpy(*lit);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->substr(bytes->size() - 4),
            std::string("\x0f\x08\x07\x03", 4));
  NpyReadOptions u2;
  u2.expected_type = U2;
  lit = ParseNpy(MakeFile(header, data), "u2.npy", u2);
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->ToString(), "u2[4] {3, 0, 3, 3}");
  NpyReadOptions f4;
  f4.expected_type = F4E2M1FN;
  lit = ParseNpy(MakeFile(header, data), "f4.npy", f4);
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->ToString(), "f4e2m1fn[4] {-6, -0, 6, 1.5}");
}

TEST(NpyTest, EveryTruncationFailsCleanly) {
  for (const char* file : {"f32_2x3.npy", "c128_2x3.npy", "f32_v3_2x3.npy",
                           "f32_fortran_2x3x4.npy", "f32_scalar.npy"}) {
    SCOPED_TRACE(file);
    const std::string bytes = ReadBytes(TestData(file));
    ASSERT_FALSE(bytes.empty());
    for (size_t n = 0; n < bytes.size(); ++n) {
      absl::StatusOr<Literal> lit =
          ParseNpy(absl::string_view(bytes).substr(0, n), file);
      ASSERT_FALSE(lit.ok()) << "prefix of " << n << " bytes parsed";
      EXPECT_THAT(lit.status().message(), HasSubstr(file));
    }
    EXPECT_TRUE(ParseNpy(bytes, file).ok());
  }
}

TEST(NpyTest, CorruptedHeadersDoNotCrash) {
  const std::string bytes = ReadBytes(TestData("f32_fortran_2x3x4.npy"));
  std::mt19937 rng(7);
  const size_t header_end = 128;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string copy = bytes;
    const int flips = 1 + trial % 3;
    for (int f = 0; f < flips; ++f) {
      copy[rng() % header_end] = static_cast<char>(rng());
    }
    absl::StatusOr<Literal> lit = ParseNpy(copy, "fuzz.npy");
    if (!lit.ok()) {
      EXPECT_THAT(lit.status().message(), HasSubstr("fuzz.npy: "));
    }
  }
}

}  // namespace
}  // namespace hloc
