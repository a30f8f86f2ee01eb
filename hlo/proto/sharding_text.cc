#include "hlo/proto/sharding_text.h"

#include <cctype>
#include <cstdint>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace {

// Nesting bound for tuple shardings, so hostile text cannot exhaust the stack.
constexpr int kMaxDepth = 64;

absl::string_view SubgroupName(int type) {
  switch (type) {
    case xla::OpSharding::REPLICATED:
      return "replicated";
    case xla::OpSharding::MANUAL:
      return "manual";
    case xla::OpSharding::UNREDUCED:
      return "unreduced";
    case xla::OpSharding::MAXIMAL:
      return "maximal";
    case xla::OpSharding::OTHER:
      return "other";
    default:
      return "unknown";
  }
}

bool IsIdentity(absl::Span<const int32_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int32_t>(i)) return false;
  }
  return true;
}

// "[dims]<=[reshape]" plus "T(perm)" when the transpose is not the identity.
std::string IotaText(absl::Span<const int64_t> dims,
                     absl::Span<const int64_t> reshape,
                     absl::Span<const int32_t> perm) {
  std::string out = absl::StrCat("[", absl::StrJoin(dims, ","), "]<=[",
                                 absl::StrJoin(reshape, ","), "]");
  if (!IsIdentity(perm))
    absl::StrAppend(&out, "T(", absl::StrJoin(perm, ","), ")");
  return out;
}

absl::Status ToText(const xla::OpSharding& s, int depth, std::string* out) {
  if (depth > kMaxDepth) {
    return absl::InvalidArgumentError("sharding nested too deeply");
  }
  std::string suffix;
  if (s.is_shard_group()) {
    suffix = absl::StrCat(s.shard_group_type() == xla::OpSharding::AS
                              ? " shard_as "
                              : " shard_like ",
                          s.shard_group_id());
  }
  switch (s.type()) {
    case xla::OpSharding::TUPLE: {
      absl::StrAppend(out, "{");
      for (int i = 0; i < s.tuple_shardings_size(); ++i) {
        if (i) absl::StrAppend(out, ", ");
        absl::Status st = ToText(s.tuple_shardings(i), depth + 1, out);
        if (!st.ok()) return st;
      }
      absl::StrAppend(out, "}");
      return absl::OkStatus();
    }
    case xla::OpSharding::REPLICATED:
    case xla::OpSharding::MANUAL:
    case xla::OpSharding::UNKNOWN:
    case xla::OpSharding::UNREDUCED:
      absl::StrAppend(out, "{", SubgroupName(s.type()), suffix, "}");
      return absl::OkStatus();
    case xla::OpSharding::MAXIMAL:
      if (s.tile_assignment_devices_size() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("maximal sharding needs exactly one device, has ",
                         s.tile_assignment_devices_size()));
      }
      absl::StrAppend(out, "{maximal device=", s.tile_assignment_devices(0),
                      suffix, "}");
      return absl::OkStatus();
    case xla::OpSharding::OTHER: {
      std::vector<int64_t> dims(s.tile_assignment_dimensions().begin(),
                                s.tile_assignment_dimensions().end());
      absl::StrAppend(out, "{devices=");
      if (s.iota_reshape_dims_size() > 0) {
        std::vector<int64_t> reshape(s.iota_reshape_dims().begin(),
                                     s.iota_reshape_dims().end());
        std::vector<int32_t> perm(s.iota_transpose_perm().begin(),
                                  s.iota_transpose_perm().end());
        absl::StrAppend(out, IotaText(dims, reshape, perm));
      } else {
        absl::StrAppend(out, "[", absl::StrJoin(dims, ","), "]",
                        absl::StrJoin(s.tile_assignment_devices(), ","));
      }
      if (s.replicate_on_last_tile_dim()) {
        absl::StrAppend(out, " last_tile_dim_replicate");
      }
      if (s.last_tile_dims_size() > 0) {
        std::vector<std::string> names;
        for (int t : s.last_tile_dims()) {
          names.push_back(std::string(SubgroupName(t)));
        }
        absl::StrAppend(out, " last_tile_dims={", absl::StrJoin(names, ", "),
                        "}");
      }
      absl::StrAppend(out, suffix, "}");
      return absl::OkStatus();
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unknown sharding type ", s.type()));
  }
}

// A recursive-descent reader over the sharding grammar above.
class Reader {
 public:
  explicit Reader(absl::string_view text) : text_(text) {}

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad sharding '", text_, "' at offset ", pos_, ": ", what));
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Consume(absl::string_view token) {
    SkipSpace();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }
  absl::Status Expect(absl::string_view token) {
    if (Consume(token)) return absl::OkStatus();
    return Error(absl::StrCat("expected '", token, "'"));
  }
  std::string Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  absl::StatusOr<int64_t> Int() {
    SkipSpace();
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    int64_t value;
    if (!absl::SimpleAtoi(text_.substr(start, pos_ - start), &value)) {
      return Error("expected an integer");
    }
    return value;
  }
  // "a,b,c" up to (not including) `close`.
  absl::StatusOr<std::vector<int64_t>> IntList(char close) {
    std::vector<int64_t> values;
    if (Peek(close)) return values;
    while (true) {
      absl::StatusOr<int64_t> v = Int();
      if (!v.ok()) return v.status();
      values.push_back(*v);
      if (!Consume(",")) return values;
    }
  }
  // Skips a balanced {...} (sharding metadata, which is not kept).
  absl::Status SkipBraces() {
    absl::Status st = Expect("{");
    if (!st.ok()) return st;
    int depth = 1;
    while (pos_ < text_.size() && depth > 0) {
      char c = text_[pos_++];
      if (c == '{') ++depth;
      if (c == '}') --depth;
    }
    return depth == 0 ? absl::OkStatus() : Error("unbalanced braces");
  }

  absl::Status Sharding(int depth, xla::OpSharding* out);

 private:
  absl::Status Tiled(xla::OpSharding* out);
  absl::string_view text_;
  size_t pos_ = 0;
};

absl::Status Reader::Tiled(xla::OpSharding* out) {
  out->set_type(xla::OpSharding::OTHER);
  absl::Status st = Expect("=");
  if (st.ok()) st = Expect("[");
  if (!st.ok()) return st;
  absl::StatusOr<std::vector<int64_t>> dims = IntList(']');
  if (!dims.ok()) return dims.status();
  if (!(st = Expect("]")).ok()) return st;
  for (int64_t d : *dims) out->add_tile_assignment_dimensions(d);
  if (Consume("<=")) {
    if (!(st = Expect("[")).ok()) return st;
    absl::StatusOr<std::vector<int64_t>> reshape = IntList(']');
    if (!reshape.ok()) return reshape.status();
    if (!(st = Expect("]")).ok()) return st;
    for (int64_t d : *reshape) out->add_iota_reshape_dims(d);
    if (Consume("T")) {
      if (!(st = Expect("(")).ok()) return st;
      absl::StatusOr<std::vector<int64_t>> perm = IntList(')');
      if (!perm.ok()) return perm.status();
      if (!(st = Expect(")")).ok()) return st;
      for (int64_t p : *perm)
        out->add_iota_transpose_perm(static_cast<int32_t>(p));
    } else {
      for (int i = 0; i < out->iota_reshape_dims_size(); ++i) {
        out->add_iota_transpose_perm(i);
      }
    }
  } else {
    absl::StatusOr<std::vector<int64_t>> devices = IntList('}');
    if (!devices.ok()) return devices.status();
    for (int64_t d : *devices) out->add_tile_assignment_devices(d);
  }
  return absl::OkStatus();
}

absl::Status Reader::Sharding(int depth, xla::OpSharding* out) {
  if (depth > kMaxDepth) return Error("nested too deeply");
  absl::Status st = Expect("{");
  if (!st.ok()) return st;
  if (Peek('{') || Peek('}')) {
    out->set_type(xla::OpSharding::TUPLE);
    while (Peek('{')) {
      if (!(st = Sharding(depth + 1, out->add_tuple_shardings())).ok())
        return st;
      if (!Consume(",")) break;
    }
    return Expect("}");
  }
  std::string kind = Word();
  if (kind == "replicated") {
    out->set_type(xla::OpSharding::REPLICATED);
  } else if (kind == "manual") {
    out->set_type(xla::OpSharding::MANUAL);
  } else if (kind == "unknown") {
    out->set_type(xla::OpSharding::UNKNOWN);
  } else if (kind == "unreduced") {
    out->set_type(xla::OpSharding::UNREDUCED);
  } else if (kind == "maximal") {
    out->set_type(xla::OpSharding::MAXIMAL);
    if (!(st = Expect("device")).ok() || !(st = Expect("=")).ok()) return st;
    absl::StatusOr<int64_t> device = Int();
    if (!device.ok()) return device.status();
    out->add_tile_assignment_devices(*device);
  } else if (kind == "devices") {
    if (!(st = Tiled(out)).ok()) return st;
  } else {
    return Error(absl::StrCat("unknown sharding kind '", kind, "'"));
  }
  while (!Peek('}')) {
    std::string attr = Word();
    if (attr == "last_tile_dim_replicate") {
      out->set_replicate_on_last_tile_dim(true);
    } else if (attr == "last_tile_dims") {
      if (!(st = Expect("=")).ok() || !(st = Expect("{")).ok()) return st;
      while (!Peek('}')) {
        std::string name = Word();
        if (name == "replicated") {
          out->add_last_tile_dims(xla::OpSharding::REPLICATED);
        } else if (name == "manual") {
          out->add_last_tile_dims(xla::OpSharding::MANUAL);
        } else if (name == "unreduced") {
          out->add_last_tile_dims(xla::OpSharding::UNREDUCED);
        } else {
          return Error(absl::StrCat("unknown subgroup type '", name, "'"));
        }
        if (!Consume(",")) break;
      }
      if (!(st = Expect("}")).ok()) return st;
    } else if (attr == "shard_as" || attr == "shard_like") {
      absl::StatusOr<int64_t> id = Int();
      if (!id.ok()) return id.status();
      out->set_is_shard_group(true);
      out->set_shard_group_id(*id);
      out->set_shard_group_type(attr == "shard_as" ? xla::OpSharding::AS
                                                   : xla::OpSharding::LIKE);
    } else if (attr == "metadata") {
      if (!(st = Expect("=")).ok() || !(st = SkipBraces()).ok()) return st;
    } else {
      return Error(absl::StrCat("unexpected '", attr, "'"));
    }
  }
  return Expect("}");
}

}  // namespace

absl::StatusOr<std::string> ShardingToText(const xla::OpSharding& sharding) {
  std::string out;
  absl::Status st = ToText(sharding, 0, &out);
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<xla::OpSharding> ShardingFromText(absl::string_view text) {
  Reader reader(text);
  xla::OpSharding sharding;
  absl::Status st = reader.Sharding(0, &sharding);
  if (!st.ok()) return st;
  if (!reader.AtEnd()) return reader.Error("trailing text");
  return sharding;
}

std::string IotaReplicaGroupsToText(
    const xla::IotaReplicaGroupListProto& list) {
  std::vector<int64_t> dims = {list.num_replica_groups(),
                               list.num_devices_per_group()};
  std::vector<int64_t> reshape(list.iota_reshape_dims().begin(),
                               list.iota_reshape_dims().end());
  std::vector<int32_t> perm(list.iota_transpose_perm().begin(),
                            list.iota_transpose_perm().end());
  return IotaText(dims, reshape, perm);
}

absl::StatusOr<xla::IotaReplicaGroupListProto> IotaReplicaGroupsFromText(
    absl::string_view text) {
  // Reuse the tiled-sharding reader: "{devices=<text>}" has the same body.
  absl::StatusOr<xla::OpSharding> tiled =
      ShardingFromText(absl::StrCat("{devices=", text, "}"));
  if (!tiled.ok() || tiled->iota_reshape_dims_size() == 0 ||
      tiled->tile_assignment_dimensions_size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad iota replica groups '", text,
                     "', expected [groups,size]<=[dims] or "
                     "[groups,size]<=[dims]T(perm)"));
  }
  xla::IotaReplicaGroupListProto list;
  list.set_num_replica_groups(tiled->tile_assignment_dimensions(0));
  list.set_num_devices_per_group(tiled->tile_assignment_dimensions(1));
  *list.mutable_iota_reshape_dims() = tiled->iota_reshape_dims();
  *list.mutable_iota_transpose_perm() = tiled->iota_transpose_perm();
  return list;
}

}  // namespace hloc
