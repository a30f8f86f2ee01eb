#include "passes/fusion/row_reduction_fusion.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/fusion/fusion_utils.h"

namespace hloc {

namespace {

// Drops `dropped` (members) and every member that depends on one, saying
// why in their records.
void DropMembers(absl::flat_hash_set<const HloInstruction*> dropped,
                 absl::string_view why, std::vector<HloInstruction*>& members,
                 std::vector<FusionDecisionRecord>& records) {
  for (const HloInstruction* m : members) {
    for (const HloInstruction* operand : m->operands()) {
      if (dropped.contains(operand)) {
        dropped.insert(m);
        break;
      }
    }
  }
  for (FusionDecisionRecord& r : records) {
    for (const HloInstruction* m : dropped) {
      if (r.fused && r.consumer == Describe(*m)) {
        r.fused = false;
        r.bytes_saved = 0;
        r.rule = std::string(why);
      }
    }
  }
  members.erase(std::remove_if(members.begin(), members.end(),
                               [&](const HloInstruction* m) {
                                 return dropped.contains(m);
                               }),
                members.end());
}

// A full value whose runs are not row_length long (a slice or pad within
// the rows, fusion_kinds.h) cannot be an output of the fusion, so one used
// outside the group leaves it, with every member that depends on it; those
// leave the group convex (the dropped members and everything that used
// them come after the rest).
void DropRowPiecesUsedOutside(const HloComputation* computation,
                              const RowShape& rows,
                              std::vector<HloInstruction*>& members,
                              std::vector<FusionDecisionRecord>& records) {
  const int64_t full = rows.num_rows * rows.row_length;
  for (;;) {
    absl::flat_hash_set<const HloInstruction*> member_set(members.begin(),
                                                          members.end());
    absl::flat_hash_set<const HloInstruction*> pieces;
    for (const HloInstruction* m : members) {
      bool used_outside = m == computation->root_instruction();
      for (const HloInstruction* user : m->users()) {
        used_outside |= !member_set.contains(user);
      }
      // (A piece of one element per row is written as a per-row value.)
      const bool piece = m->shape().IsArray() &&
                         m->shape().ElementCount() != full &&
                         m->shape().ElementCount() != rows.num_rows;
      if (piece && used_outside) pieces.insert(m);
    }
    if (pieces.empty()) return;
    DropMembers(std::move(pieces),
                "not fused: a piece of each row (a slice or pad within the "
                "rows) used outside the row fusion, which only writes whole "
                "rows, or a value computed from one",
                members, records);
  }
}

// A concatenate stays in the group only as its hero (fusion_kinds.h,
// FindRowConcatenateHero): the group's one output computed from it at its
// own positions. Asked element by element, the concatenate branches per
// element, the lanes of a warp (consecutive runs of a row) split between
// its operands, and each operand recomputes the row from the inputs:
// RMSNorm then a rotary embedding of 4x2048x4096 bf16 took 148-153 us so
// on an H200 against 106 as a row fusion and a loop fusion (session 23,
// tools/gpu_bench/RESULTS.md). Returns whether it dropped anything.
bool DropConcatenatesWithoutHero(const HloComputation* computation,
                                 const RowShape& rows,
                                 std::vector<HloInstruction*>& members,
                                 std::vector<FusionDecisionRecord>& records) {
  absl::flat_hash_set<const HloInstruction*> member_set(members.begin(),
                                                        members.end());
  std::vector<const HloInstruction*> concats;
  std::vector<const HloInstruction*> outputs;
  for (const HloInstruction* m : members) {
    if (m->opcode() == HloOpcode::kConcatenate) concats.push_back(m);
    bool used_outside = m == computation->root_instruction();
    for (const HloInstruction* user : m->users()) {
      used_outside |= !member_set.contains(user);
    }
    if (used_outside) outputs.push_back(m);
  }
  if (concats.empty()) return false;
  const bool hero = concats.size() == 1 && outputs.size() == 1 &&
                    outputs[0]->shape().IsArray() &&
                    IsRowConcatenateHero(concats[0], outputs[0],
                                         rows.num_rows * rows.row_length,
                                         [&](const HloInstruction* user) {
                                           return member_set.contains(user);
                                         });
  if (hero) return false;
  DropMembers(
      absl::flat_hash_set<const HloInstruction*>(concats.begin(),
                                                 concats.end()),
      "not fused: a concatenate in a row fusion must be its one output's "
      "hero (read only at the output's own positions), or it branches per "
      "element",
      members, records);
  return true;
}

}  // namespace

absl::StatusOr<bool> RowReductionFusion::Run(HloModule* module) {
  FusionReport* report = ResolveFusionReport(report_);
  bool changed = false;
  for (HloComputation* computation : KernelComputations(*module)) {
    absl::StatusOr<bool> c = RunOnComputation(computation, report);
    if (!c.ok()) return c.status();
    changed |= *c;
  }
  return changed;
}

absl::StatusOr<bool> RowReductionFusion::RunOnComputation(
    HloComputation* computation, FusionReport* report) {
  bool changed = false;
  // The walk below must see earlier row fusions as the single instructions
  // they became: a value can depend on the group being formed through one
  // of them (x -> earlier fusion -> y), and y must then be tainted like any
  // other dependent. So the order is recomputed after every fusion and the
  // seeds are scanned again from the start, skipping those already tried.
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  absl::flat_hash_set<const HloInstruction*> tried;
  std::vector<FusionDecisionRecord> records;
  auto record = [&](const HloInstruction& producer,
                    const HloInstruction& consumer, bool yes,
                    std::string rule) {
    FusionDecisionRecord r;
    r.pass = std::string(name());
    r.computation = computation->name();
    r.producer = Describe(producer);
    r.consumer = Describe(consumer);
    r.fused = yes;
    r.rule = std::move(rule);
    // The producer's value is neither written nor read back.
    if (yes) r.bytes_saved = 2 * BytesOf(producer.shape());
    records.push_back(std::move(r));
  };
  auto flush = [&](const std::string& result) {
    if (report != nullptr) {
      for (FusionDecisionRecord& r : records) {
        if (r.fused) r.result = result;
        report->Record(std::move(r));
      }
    }
    records.clear();
  };

  for (size_t seed_index = 0; seed_index < order.size(); ++seed_index) {
    HloInstruction* seed = order[seed_index];
    if (tried.contains(seed) || seed->opcode() != HloOpcode::kReduce ||
        IsTrivialReduce(*seed)) {
      continue;
    }
    tried.insert(seed);
    std::optional<RowShape> rows = GetRowReductionShape(*seed);
    if (!rows) continue;
    if (!RowFitsInBlock(*rows, seed->operand(0)->shape().element_type())) {
      for (HloInstruction* user : seed->users()) {
        record(*seed, *user, false,
               absl::StrCat("not fused: rows of ", rows->row_length,
                            " elements do not fit one block (limit ",
                            kMaxRowElements, " elements, ", kMaxRowBytes,
                            " bytes)"));
      }
      flush("");
      continue;
    }

    std::vector<HloInstruction*> members = {seed};
    absl::flat_hash_map<const HloInstruction*, RowClass> classes = {
        {seed, RowClass::kPerRow}};
    absl::flat_hash_set<const HloInstruction*> tainted;
    auto class_of = [&](const HloInstruction* instr) {
      auto it = classes.find(instr);
      return it == classes.end() ? RowClass::kInvariant : it->second;
    };
    for (size_t i = seed_index + 1; i < order.size(); ++i) {
      HloInstruction* instr = order[i];
      const HloInstruction* member_operand = nullptr;
      bool uses_tainted = false;
      for (const HloInstruction* operand : instr->operands()) {
        if (classes.contains(operand)) member_operand = operand;
        if (tainted.contains(operand)) uses_tainted = true;
      }
      if (member_operand == nullptr && !uses_tainted) continue;
      if (uses_tainted) {
        tainted.insert(instr);
        if (member_operand != nullptr) {
          record(*member_operand, *instr, false,
                 "not fused: would create a cycle (it also uses a value "
                 "computed outside the row fusion from its results)");
        }
        continue;
      }
      std::string why;
      if (!IsLoopFusibleOp(*instr) && instr->opcode() != HloOpcode::kReduce) {
        why = absl::StrCat(HloOpcodeString(instr->opcode()),
                           " is not fusible into a row fusion");
      } else if (instr->opcode() == HloOpcode::kReduce &&
                 !IsTrivialReduce(*instr) &&
                 !RowFitsInBlock(*rows,
                                 instr->operand(0)->shape().element_type())) {
        why = "the reduction's rows do not fit one block";
      } else {
        absl::StatusOr<RowClass> c =
            ClassifyRowInstruction(*instr, *rows, class_of);
        if (c.ok()) {
          classes[instr] = *c;
          members.push_back(instr);
          std::string what =
              instr->opcode() == HloOpcode::kReduce && !IsTrivialReduce(*instr)
                  ? "another reduction of the same rows"
              : *c == RowClass::kPerRow ? "per-row consumer"
                                        : "row-wise consumer";
          record(*member_operand, *instr, true,
                 absl::StrCat("fused: ", what, " in the same kernel (",
                              rows->num_rows,
                              rows->num_rows == 1 ? " row" : " rows", " of ",
                              rows->row_length, ", one block per row)"));
          continue;
        }
        why = std::string(c.status().message());
      }
      tainted.insert(instr);
      record(*member_operand, *instr, false,
             absl::StrCat("not fused: consumer of a reduction outside its "
                          "rows (reduction barrier): ",
                          why));
    }

    do {
      DropRowPiecesUsedOutside(computation, *rows, members, records);
    } while (DropConcatenatesWithoutHero(computation, *rows, members, records));
    if (members.size() == 1) {
      flush("");
      continue;
    }
    absl::flat_hash_set<const HloInstruction*> member_set(members.begin(),
                                                          members.end());
    absl::flat_hash_set<const HloInstruction*> operands;
    for (const HloInstruction* member : members) {
      for (const HloInstruction* operand : member->operands()) {
        if (!member_set.contains(operand)) operands.insert(operand);
      }
    }
    if (static_cast<int64_t>(operands.size()) > options_.max_operands) {
      record(*seed, *members[1], false,
             absl::StrCat("not fused: row fusion would have ", operands.size(),
                          " operands (limit ", options_.max_operands, ")"));
      for (FusionDecisionRecord& r : records) {
        if (r.fused) {
          r.fused = false;
          r.rule = records.back().rule;
        }
      }
      flush("");
      continue;
    }
    // The emitter computes full values elementally where they are read, so
    // a member read at several indices (a slice and a pad of it, say) has
    // its code emitted once per index, and so do its operands: a ladder of
    // such reads (an associative scan's levels, jax.grad of
    // lax.cumlogsumexp over 20000) doubled the code with every level,
    // past five minutes of LLVM for one kernel. Such a group is left to
    // instruction-fusion, which keeps producers within the same limit.
    const auto [emitted, most_emitted] = MaxGroupEmissions(
        std::vector<const HloInstruction*>(members.begin(), members.end()));
    if (emitted > kMaxProducerEmissions) {
      record(*seed, *members[1], false,
             absl::StrCat("not fused: row fusion would emit ",
                          most_emitted->name(), "'s code ", emitted,
                          " times (limit ", kMaxProducerEmissions, ")"));
      for (FusionDecisionRecord& r : records) {
        if (r.fused) {
          r.fused = false;
          r.rule = records.back().rule;
        }
      }
      flush("");
      continue;
    }
    int64_t reductions = 0;
    for (const HloInstruction* member : members) {
      if (member->opcode() == HloOpcode::kReduce && !IsTrivialReduce(*member)) {
        ++reductions;
      }
    }
    // The members are deleted; a later instruction may reuse an address.
    for (const HloInstruction* member : members) tried.erase(member);
    absl::StatusOr<HloInstruction*> fusion = FuseInstructions(
        computation, members, FusionKind::kCustom,
        FusionNameFor(FusionKind::kCustom, kRowReductionBackendConfig),
        /*keep_name=*/false, kRowReductionBackendConfig);
    if (!fusion.ok()) return fusion.status();
    Count("row-fusions");
    Count("reductions", reductions);
    changed = true;
    flush((*fusion)->name());
    order = computation->MakeInstructionPostOrder();
    seed_index = static_cast<size_t>(-1);  // The loop's ++ makes it 0.
  }
  return changed;
}

}  // namespace hloc
