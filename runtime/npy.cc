#include "runtime/npy.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/float8.h"
#include "hlo/sub_byte_int.h"
#include "runtime/file_util.h"

namespace hloc {
namespace {

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.cc assumes a little-endian host ('=' and '|' mean little-endian)"
#endif

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// Version 1.0 prefix: magic, 2 version bytes, 2 length bytes; 2.0/3.0 have
// 4 length bytes.
constexpr size_t kPrefixV1 = kMagicLen + 2 + 2;
constexpr size_t kPrefixV2 = kMagicLen + 2 + 4;
// np.save aligns the start of the data to 64 bytes.
constexpr size_t kArrayAlign = 64;
// np.save leaves room for the leading dimension to grow to this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;
// Limits on what a header may claim, far above anything np.save writes (its
// own reader refuses headers over 10000 bytes by default).
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
constexpr int64_t kMaxRank = 64;  // NumPy's NPY_MAXDIMS.

absl::Status Error(absl::string_view name, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", what));
}

// Quotes header text for an error message, cut short if long.
std::string Quote(absl::string_view text) {
  constexpr size_t kMax = 160;
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMax) out += "...";
  return out + "\"";
}

// The parsed header dict.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Recursive-descent parser for the header: a Python dict literal whose keys
// are 'descr' (a string), 'fortran_order' (True/False) and 'shape' (a tuple
// of non-negative ints), as numpy.lib.format.read_array_header accepts it.
class HeaderParser {
 public:
  HeaderParser(absl::string_view text, absl::string_view name)
      : text_(text), name_(name) {}

  absl::StatusOr<NpyHeader> Parse() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    if (!Consume('{')) return Malformed("expected '{' at the start");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      if (!ParseString(&key)) return Malformed("expected a quoted key");
      if (!Consume(':')) {
        return Malformed(absl::StrCat("expected ':' after key '", key, "'"));
      }
      if (key == "descr") {
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == '[') {
          return Error(name_,
                       "structured dtypes (a list 'descr') are not supported");
        }
        if (!ParseString(&header.descr)) {
          return Malformed("expected a quoted string for 'descr'");
        }
        seen_descr = true;
      } else if (key == "fortran_order") {
        if (ConsumeWord("True")) {
          header.fortran_order = true;
        } else if (ConsumeWord("False")) {
          header.fortran_order = false;
        } else {
          return Malformed("expected True or False for 'fortran_order'");
        }
        seen_order = true;
      } else if (key == "shape") {
        absl::Status status = ParseShape(&header.shape);
        if (!status.ok()) return status;
        seen_shape = true;
      } else {
        return Malformed(absl::StrCat("unexpected key '", key, "'"));
      }
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume('}')) break;
      return Malformed("expected ',' or '}' after a value");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Malformed("text after the closing '}'");
    if (!seen_descr || !seen_order || !seen_shape) {
      std::vector<std::string> missing;
      if (!seen_descr) missing.push_back("'descr'");
      if (!seen_order) missing.push_back("'fortran_order'");
      if (!seen_shape) missing.push_back("'shape'");
      return Malformed(
          absl::StrCat("missing key ", absl::StrJoin(missing, ", ")));
    }
    return header;
  }

 private:
  absl::Status Malformed(absl::string_view what) const {
    return Error(name_, absl::StrCat("malformed header (", what, " at offset ",
                                     pos_, "): ", Quote(text_)));
  }

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool ConsumeWord(absl::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    size_t end = pos_ + word.size();
    if (end < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[end])) ||
         text_[end] == '_')) {
      return false;
    }
    pos_ = end;
    return true;
  }

  // A Python string literal in single or double quotes.
  bool ParseString(std::string* out) {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return false;
    }
    const char quote = text_[pos_++];
    out->clear();
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') {
        if (++pos_ >= text_.size()) return false;
      }
      if (text_[pos_] == '\n') return false;
      out->push_back(text_[pos_++]);
    }
    if (pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }

  // "(2, 3)", "(3,)", "()"; Python 2 files may write "3L".
  absl::Status ParseShape(std::vector<int64_t>* shape) {
    if (!Consume('(')) return Malformed("expected '(' for 'shape'");
    shape->clear();
    while (true) {
      if (Consume(')')) break;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '-') {
        return Error(
            name_, absl::StrCat("negative dimension in shape: ", Quote(text_)));
      }
      if (pos_ >= text_.size() ||
          !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        return Malformed("expected a dimension size in 'shape'");
      }
      int64_t value = 0;
      while (pos_ < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        int digit = text_[pos_++] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          return Error(
              name_, absl::StrCat("dimension size too large: ", Quote(text_)));
        }
        value = value * 10 + digit;
      }
      if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) {
        ++pos_;
      }
      shape->push_back(value);
      if (static_cast<int64_t>(shape->size()) > kMaxRank) {
        return Error(name_, absl::StrCat("shape has more than ", kMaxRank,
                                         " dimensions"));
      }
      if (Consume(',')) continue;
      if (Consume(')')) break;
      return Malformed("expected ',' or ')' in 'shape'");
    }
    return absl::OkStatus();
  }

  absl::string_view text_;
  absl::string_view name_;
  size_t pos_ = 0;
};

// How the data of a descr is stored.
struct DataType {
  PrimitiveType type;
  bool big_endian;
};

absl::StatusOr<DataType> ParseDescr(absl::string_view descr,
                                    absl::string_view name,
                                    const NpyReadOptions& options) {
  if (descr == "bfloat16") return DataType{BF16, false};
  auto unknown = [&](absl::string_view why) {
    return Error(name, absl::StrCat("unknown or unsupported dtype '", descr,
                                    "' (", why, ")"));
  };
  absl::string_view rest = descr;
  bool big_endian = false;
  if (!rest.empty() &&
      (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=')) {
    big_endian = rest[0] == '>';
    rest.remove_prefix(1);
  }
  if (rest.size() < 2) return unknown("expected a kind and a byte width");
  const char kind = rest[0];
  int64_t width = 0;
  for (char c : rest.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || width > 1000000) {
      return unknown("expected a kind and a byte width");
    }
    width = width * 10 + (c - '0');
  }
  std::optional<PrimitiveType> type;
  switch (kind) {
    case 'b':
      if (width == 1) type = PRED;
      break;
    case 'i':
      if (width == 1) type = S8;
      if (width == 2) type = S16;
      if (width == 4) type = S32;
      if (width == 8) type = S64;
      break;
    case 'u':
      if (width == 1) type = U8;
      if (width == 2) type = U16;
      if (width == 4) type = U32;
      if (width == 8) type = U64;
      break;
    case 'f':
      // ml_dtypes' float8_e5m2 saves as 'f1' (the others as 'V1'): which
      // 8-bit float it holds is the expected element type's to say.
      if (width == 1) {
        if (!IsFloat8Type(options.expected_type)) {
          return unknown(
              "1-byte floats are ml_dtypes' 8-bit floats; reading one needs "
              "the expected element type");
        }
        return DataType{options.expected_type, false};
      }
      if (width == 2) type = F16;
      if (width == 4) type = F32;
      if (width == 8) type = F64;
      break;
    case 'c':
      if (width == 8) type = C64;
      if (width == 16) type = C128;
      break;
    case 'V': {
      // Opaque bytes: what NumPy writes for ml_dtypes' bfloat16 ('<V2').
      const PrimitiveType expected = options.expected_type;
      if (expected == PRIMITIVE_TYPE_INVALID) {
        return unknown(
            "opaque bytes; ml_dtypes' bfloat16 is saved this way, and "
            "reading it needs the expected element type");
      }
      if (!IsSupportedElementType(expected) || ByteWidth(expected) != width) {
        return unknown(absl::StrCat("opaque ", width,
                                    "-byte elements cannot hold the expected ",
                                    PrimitiveTypeName(expected)));
      }
      return DataType{expected, big_endian};
    }
    default:
      return unknown("only bool, int, uint, float and complex are supported");
  }
  if (!type) return unknown("no such element width for this kind");
  return DataType{*type, big_endian};
}

std::string ShapeText(absl::Span<const int64_t> shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

// Reverses the bytes of each `unit`-byte value in place.
void SwapBytes(uint8_t* data, int64_t size, int unit) {
  for (int64_t i = 0; i + unit <= size; i += unit) {
    for (int a = 0, b = unit - 1; a < b; ++a, --b) {
      std::swap(data[i + a], data[i + b]);
    }
  }
}

}  // namespace

absl::StatusOr<std::string> NpyDescr(PrimitiveType type) {
  // The narrow floats and the sub-byte integers as opaque bytes, as
  // ml_dtypes saves most of them.
  if (IsFloat8Type(type) || IsSubByteIntegralType(type)) {
    return std::string("|V1");
  }
  switch (type) {
    case PRED:
      return std::string("|b1");
    case S8:
      return std::string("|i1");
    case S16:
      return std::string("<i2");
    case S32:
      return std::string("<i4");
    case S64:
      return std::string("<i8");
    case U8:
      return std::string("|u1");
    case U16:
      return std::string("<u2");
    case U32:
      return std::string("<u4");
    case U64:
      return std::string("<u8");
    case F16:
      return std::string("<f2");
    case BF16:
      return std::string("<V2");
    case F32:
      return std::string("<f4");
    case F64:
      return std::string("<f8");
    case C64:
      return std::string("<c8");
    case C128:
      return std::string("<c16");
    default:
      return UnsupportedTypeError(type, ".npy files");
  }
}

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes,
                                 absl::string_view name,
                                 const NpyReadOptions& options) {
  if (bytes.size() < kMagicLen ||
      bytes.substr(0, kMagicLen) != absl::string_view(kMagic, kMagicLen)) {
    return Error(name,
                 "not a .npy file (bad magic: it does not start with "
                 "\"\\x93NUMPY\")");
  }
  if (bytes.size() < kMagicLen + 2) {
    return Error(name, "truncated: the file ends inside the version bytes");
  }
  const int major = static_cast<uint8_t>(bytes[kMagicLen]);
  const int minor = static_cast<uint8_t>(bytes[kMagicLen + 1]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Error(name, absl::StrCat("unsupported .npy format version ", major,
                                    ".", minor, " (1.0, 2.0 and 3.0 are)"));
  }
  const size_t prefix = major == 1 ? kPrefixV1 : kPrefixV2;
  if (bytes.size() < prefix) {
    return Error(name, "truncated: the file ends inside the header length");
  }
  uint64_t header_len = 0;
  for (size_t i = prefix; i-- > kMagicLen + 2;) {
    header_len = (header_len << 8) | static_cast<uint8_t>(bytes[i]);
  }
  if (header_len > kMaxHeaderBytes) {
    return Error(name, absl::StrCat("header too long (", header_len,
                                    " bytes; at most ", kMaxHeaderBytes, ")"));
  }
  if (bytes.size() - prefix < header_len) {
    return Error(name,
                 absl::StrCat("truncated: the header needs ", header_len,
                              " bytes, the file has ", bytes.size() - prefix,
                              " after the prefix"));
  }
  absl::string_view header_text = bytes.substr(prefix, header_len);
  absl::StatusOr<NpyHeader> header = HeaderParser(header_text, name).Parse();
  if (!header.ok()) return header.status();
  absl::StatusOr<DataType> dtype = ParseDescr(header->descr, name, options);
  if (!dtype.ok()) return dtype.status();

  const int64_t width = ByteWidth(dtype->type);
  const uint64_t data_size = bytes.size() - prefix - header_len;
  // Element count and byte size, checked against the data actually present
  // before anything is allocated.
  uint64_t count = 1;
  for (int64_t d : header->shape) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      return Error(name, absl::StrCat("shape ", ShapeText(header->shape),
                                      " has too many elements"));
    }
    count *= d;
  }
  if (count >
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / width) {
    return Error(name, absl::StrCat("shape ", ShapeText(header->shape),
                                    " has too many elements"));
  }
  const uint64_t needed = count * width;
  if (data_size < needed) {
    return Error(
        name, absl::StrCat("truncated data: shape ", ShapeText(header->shape),
                           " of '", header->descr, "' needs ", needed,
                           " bytes, the file has ", data_size));
  }
  if (data_size > needed) {
    return Error(name, absl::StrCat(data_size - needed,
                                    " unexpected bytes after the data (shape ",
                                    ShapeText(header->shape), " of '",
                                    header->descr, "' needs ", needed, ")"));
  }

  Literal literal(Shape::Array(dtype->type, header->shape));
  const uint8_t* src =
      reinterpret_cast<const uint8_t*>(bytes.data() + prefix + header_len);
  uint8_t* dst = literal.untyped_data();
  const int64_t rank = static_cast<int64_t>(header->shape.size());
  if (header->fortran_order && rank > 1) {
    // Column-major source: element (i0, i1, ...) is at i0 + d0*(i1 + ...).
    std::vector<int64_t> strides(rank, 1);
    for (int64_t k = 1; k < rank; ++k) {
      strides[k] = strides[k - 1] * header->shape[k - 1];
    }
    uint8_t* out = dst;
    ForEachIndex(header->shape, [&](absl::Span<const int64_t> index) {
      int64_t offset = 0;
      for (int64_t k = 0; k < rank; ++k) offset += index[k] * strides[k];
      std::memcpy(out, src + offset * width, width);
      out += width;
      return true;
    });
  } else if (needed > 0) {
    std::memcpy(dst, src, needed);
  }
  if (dtype->big_endian && width > 1) {
    SwapBytes(dst, static_cast<int64_t>(needed),
              IsComplexType(dtype->type) ? width / 2 : width);
  }
  if (dtype->type == PRED) {
    // bool must hold 0 or 1; NumPy reads any nonzero byte as True.
    for (uint64_t i = 0; i < needed; ++i) dst[i] = dst[i] != 0;
  }
  // ml_dtypes keeps a sub-byte integer in the low bits of its byte.
  CanonicalizeSubByteInts(dtype->type, dst, static_cast<int64_t>(count));
  return literal;
}

absl::StatusOr<Literal> ReadNpy(const std::string& path,
                                const NpyReadOptions& options) {
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  if (!contents.ok()) return contents.status();
  return ParseNpy(*contents, path, options);
}

absl::StatusOr<std::string> SerializeNpy(const Literal& literal) {
  if (!literal.shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write a .npy file of ", literal.shape().ToString(),
                     ": only arrays"));
  }
  absl::StatusOr<std::string> descr = NpyDescr(literal.element_type());
  if (!descr.ok()) return descr.status();
  const std::vector<int64_t>& dims = literal.shape().dimensions();
  if (static_cast<int64_t>(dims.size()) > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot write a .npy file of ", literal.shape().ToString(false),
        ": NumPy allows at most ", kMaxRank, " dimensions"));
  }
  // Exactly numpy.lib.format._write_array_header: sorted keys, repr values,
  // room for the first dimension to grow, then spaces and '\n' up to a
  // multiple of 64 bytes.
  std::string dict = absl::StrCat(
      "{'descr': '", *descr,
      "', 'fortran_order': False, 'shape': ", ShapeText(dims), ", }");
  if (!dims.empty()) {
    const size_t digits = absl::StrCat(dims[0]).size();
    if (digits < kGrowthAxisMaxDigits) {
      dict.append(kGrowthAxisMaxDigits - digits, ' ');
    }
  }
  // At most 64 dimensions of at most 19 digits keep the header far below
  // version 1.0's 65535-byte limit.
  const size_t text_len = dict.size() + 1;  // with the '\n'
  const size_t pad = kArrayAlign - (kPrefixV1 + text_len) % kArrayAlign;
  const size_t header_len = text_len + pad;
  std::string out(kMagic, kMagicLen);
  out.push_back('\x01');
  out.push_back('\0');
  out.push_back(static_cast<char>(header_len & 0xff));
  out.push_back(static_cast<char>(header_len >> 8));
  out += dict;
  out.append(pad, ' ');
  out.push_back('\n');
  const size_t data_start = out.size();
  out.append(reinterpret_cast<const char*>(literal.untyped_data()),
             literal.size_bytes());
  // ml_dtypes' bytes for sub-byte integers and f4e2m1fn: the low bits.
  const PrimitiveType type = literal.element_type();
  if (IsSubByteIntegralType(type) || type == F4E2M1FN) {
    for (size_t i = data_start; i < out.size(); ++i) {
      out[i] = static_cast<char>(ToMlDtypesByte(type, out[i]));
    }
  }
  return out;
}

absl::Status WriteNpy(const std::string& path, const Literal& literal) {
  absl::StatusOr<std::string> bytes = SerializeNpy(literal);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", bytes.status().message()));
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot create: ", std::strerror(errno)));
  }
  const size_t written = std::fwrite(bytes->data(), 1, bytes->size(), file);
  const int write_err = errno;
  const bool close_failed = std::fclose(file) != 0;
  if (written != bytes->size() || close_failed) {
    return absl::InternalError(absl::StrCat(
        path, ": cannot write: ",
        std::strerror(written != bytes->size() ? write_err : errno)));
  }
  return absl::OkStatus();
}

}  // namespace hloc
