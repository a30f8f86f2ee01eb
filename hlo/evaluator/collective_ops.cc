// The collectives across the devices of a replicated evaluation (XLA's
// semantics): the device meets its group at the rendezvous, then computes
// its own result from every participant's operands.
//   - all-reduce folds the participants' operands with to_apply in group
//     order, so every participant gets the same bits.
//   - all-gather concatenates the operands along `dimensions` in group
//     order; reduce-scatter reduces like all-reduce and keeps the block of
//     the device's rank.
//   - all-to-all with a dimension: block j of participant k's operand
//     becomes block k of participant j's result; without one (the tuple
//     form), operand j of participant k becomes result element k of
//     participant j.
//   - collective-permute: a device gets its source's operand, zeros when no
//     pair targets it.
#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/collectives.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/rendezvous.h"
#include "hlo/evaluator/strided_copy.h"

namespace hloc {
namespace eval {
namespace {

// Copies `length` slices along `dim` from src (starting at src_start) to dst
// (starting at dst_start).
void CopyAlong(const Literal& src, int64_t src_start, Literal& dst,
               int64_t dst_start, int64_t dim, int64_t length) {
  std::vector<int64_t> box = src.shape().dimensions();
  box[dim] = length;
  const std::vector<int64_t> src_strides =
      RowMajorStrides(src.shape().dimensions());
  const std::vector<int64_t> dst_strides =
      RowMajorStrides(dst.shape().dimensions());
  CopyStrided(box, src.untyped_data(), src_start * src_strides[dim],
              src_strides, dst.untyped_data(), dst_start * dst_strides[dim],
              dst_strides, ByteWidth(src.element_type()));
}

const Shape& ResultShape(const HloInstruction& instr, int64_t i) {
  return instr.shape().IsTuple() ? instr.shape().tuple_shapes(i)
                                 : instr.shape();
}

Literal Pack(const HloInstruction& instr, std::vector<Literal> results) {
  if (instr.shape().IsTuple()) return Literal::MakeTuple(std::move(results));
  return std::move(results[0]);
}

// Operand `i` of every participant folded with `fn` in group order.
absl::StatusOr<Literal> Reduce(const HloInstruction& instr,
                               const Rendezvous::Contributions& all, int64_t i,
                               ScalarFn& fn) {
  const Literal& first = all[0][i];
  if (fn.num_params() != 2 || fn.num_results() != 1 ||
      fn.param_type(0) != first.element_type() ||
      fn.param_type(1) != first.element_type() ||
      fn.result_type(0) != first.element_type()) {
    return InstructionError(
        instr, "to_apply must take two scalars of the operand type");
  }
  Literal acc = first;
  void* out = acc.untyped_data();
  for (size_t k = 1; k < all.size(); ++k) {
    const void* args[2] = {acc.untyped_data(), all[k][i].untyped_data()};
    absl::Status status = fn.Call(args, {&out, 1}, acc.element_count());
    if (!status.ok()) return status;
  }
  return acc;
}

}  // namespace

absl::StatusOr<Literal> Evaluator::EvaluateCollective(
    const HloInstruction& instr, OperandValues& operands) {
  DeviceContext& ctx = *device_;
  const int64_t num_devices = ctx.replica_count * ctx.num_partitions;
  const HloOpcode opcode = instr.opcode();
  const int64_t execution = ctx.executions[&instr]++;

  std::vector<int64_t> participants;
  std::vector<int64_t> permute_sources;
  if (opcode == HloOpcode::kCollectivePermute) {
    if (instr.operand_count() != 1) {
      return InstructionError(
          instr, "collective-permute with in-place buffers is not supported");
    }
    auto sources =
        PermuteSources(instr, ctx.replica_count, ctx.num_partitions);
    if (!sources.ok()) return sources.status();
    permute_sources = std::move(*sources);
    for (int64_t d = 0; d < num_devices; ++d) participants.push_back(d);
  } else {
    auto groups =
        ParticipantGroups(instr, ctx.replica_count, ctx.num_partitions);
    if (!groups.ok()) return groups.status();
    for (std::vector<int64_t>& group : *groups) {
      for (int64_t d : group) {
        if (d == ctx.device) participants = group;
      }
    }
    if (participants.empty()) {
      return InstructionError(instr, absl::StrCat("device ", ctx.device,
                                                  " is in no replica group"));
    }
  }
  const int64_t rank =
      std::find(participants.begin(), participants.end(), ctx.device) -
      participants.begin();
  const int64_t group_size = static_cast<int64_t>(participants.size());

  std::vector<Literal> mine;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    if (!operands.Get(i).shape().IsArray()) {
      return InstructionError(instr, "collective operands must be arrays");
    }
    mine.push_back(operands.TakeOrCopy(i));
  }
  std::shared_ptr<const Rendezvous::Contributions> exchanged;
  if (ctx.rendezvous == nullptr) {
    if (group_size != 1) {
      return InstructionError(instr, "a collective across devices needs a "
                                     "replicated evaluation");
    }
    auto alone = std::make_shared<Rendezvous::Contributions>();
    alone->push_back(std::move(mine));
    exchanged = std::move(alone);
  } else {
    auto result = ctx.rendezvous->Exchange(instr, execution, participants,
                                           ctx.device, std::move(mine));
    if (!result.ok()) return result.status();
    exchanged = std::move(*result);
  }
  const Rendezvous::Contributions& all = *exchanged;
  const int64_t n = instr.operand_count();

  switch (opcode) {
    case HloOpcode::kAllReduce: {
      if (instr.to_apply() == nullptr) {
        return InstructionError(instr, "all-reduce needs to_apply");
      }
      ScalarFn& fn = ScalarFnFor(*instr.to_apply());
      std::vector<Literal> results;
      for (int64_t i = 0; i < n; ++i) {
        auto reduced = Reduce(instr, all, i, fn);
        if (!reduced.ok()) return reduced.status();
        results.push_back(std::move(*reduced));
      }
      return Pack(instr, std::move(results));
    }
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter: {
      if (instr.dimensions().size() != 1) {
        return InstructionError(instr, "needs one dimension");
      }
      const int64_t dim = instr.dimensions(0);
      std::vector<Literal> results;
      for (int64_t i = 0; i < n; ++i) {
        const Shape& in = instr.operand(i)->shape();
        const Shape& out = ResultShape(instr, i);
        if (dim < 0 || dim >= in.rank() || out.rank() != in.rank()) {
          return InstructionError(instr, "dimension out of range");
        }
        const int64_t in_size = in.dimensions(dim);
        const int64_t out_size = out.dimensions(dim);
        if (opcode == HloOpcode::kAllGather) {
          if (out_size != in_size * group_size) {
            return InstructionError(
                instr, absl::StrCat("result dimension ", dim, " is ", out_size,
                                    " but ", group_size, " participants of ",
                                    in_size, " give ", in_size * group_size));
          }
          Literal gathered(out);
          for (int64_t k = 0; k < group_size; ++k) {
            CopyAlong(all[k][i], 0, gathered, k * in_size, dim, in_size);
          }
          results.push_back(std::move(gathered));
        } else {
          if (out_size * group_size != in_size) {
            return InstructionError(
                instr, absl::StrCat("operand dimension ", dim, " is ", in_size,
                                    " but ", group_size,
                                    " participants each keep ", out_size));
          }
          if (instr.to_apply() == nullptr) {
            return InstructionError(instr, "reduce-scatter needs to_apply");
          }
          auto reduced = Reduce(instr, all, i, ScalarFnFor(*instr.to_apply()));
          if (!reduced.ok()) return reduced.status();
          Literal block(out);
          CopyAlong(*reduced, rank * out_size, block, 0, dim, out_size);
          results.push_back(std::move(block));
        }
      }
      return Pack(instr, std::move(results));
    }
    case HloOpcode::kAllToAll: {
      if (instr.dimensions().empty()) {
        if (n != group_size) {
          return InstructionError(
              instr, absl::StrCat("all-to-all without a dimension needs one "
                                  "operand per participant (",
                                  group_size, "), got ", n));
        }
        std::vector<Literal> results;
        for (int64_t k = 0; k < group_size; ++k) {
          results.push_back(all[k][rank]);
        }
        return Pack(instr, std::move(results));
      }
      const int64_t dim = instr.dimensions(0);
      const Shape& in = instr.operand(0)->shape();
      if (n != 1 || dim < 0 || dim >= in.rank()) {
        return InstructionError(instr, "all-to-all with a dimension takes one "
                                       "operand of that rank");
      }
      if (in.dimensions(dim) % group_size != 0) {
        return InstructionError(
            instr, absl::StrCat("dimension ", dim, " (", in.dimensions(dim),
                                ") does not split into ", group_size,
                                " participants"));
      }
      const int64_t block = in.dimensions(dim) / group_size;
      Literal result(instr.shape());
      for (int64_t k = 0; k < group_size; ++k) {
        CopyAlong(all[k][0], rank * block, result, k * block, dim, block);
      }
      return result;
    }
    case HloOpcode::kCollectivePermute: {
      const int64_t source = permute_sources[ctx.device];
      if (source < 0) return Literal(instr.shape());
      return all[source][0];
    }
    default:
      return Unsupported(instr);
  }
}

}  // namespace eval
}  // namespace hloc
