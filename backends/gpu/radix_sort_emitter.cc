// The radix sort custom call's kernels (passes/radix_sort_plan.h says
// what the call computes and how its passes work): per 8-bit digit a
// count kernel, a scan kernel and a scatter kernel, or where a row is one
// tile one kernel for every pass.
//
// Within a tile, warp w of W lanes (32, or AMD's 64) takes elements
// [W * items * w, W * items * (w + 1)), W consecutive ones at a time, so
// that warps, then items, then lanes go in element order: ranking equal
// digits in that order keeps the sort stable. A warp ranks a round of W
// digits with eight ballots (the lanes of equal digit, and how many are
// below this one) against its own
// running count per digit in shared memory; one thread per digit then
// turns the warps' counts into places in the tile ordered by digit. The
// tile is written there in shared memory and read back in that order, so
// that neighbouring threads write neighbouring places of the output (the
// elements of a digit are consecutive there): written straight from the
// ranks, a warp's 32 stores went to 32 places, and the scatter took 28 us
// of the 1M-element f32 sort's 76 us a pass on the H200 (12 us now).
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/reduction_util.h"
#include "backends/gpu/row_element.h"
#include "hlo/computation.h"
#include "hlo/lapack_custom_call.h"
#include "hlo/status_macros.h"
#include "passes/radix_sort_plan.h"

namespace hloc {
namespace {

// Thread t of a block keeps digit t's counts and places.
static_assert(kRadixThreads == kRadixDigits, "a thread per digit");
// A warp's digit counts in shared memory: one more than the digits, a
// slot that lanes past the end of the row count into (never read back).
constexpr int64_t kWarpCountsStride = kRadixDigits + 1;
constexpr int64_t kPastEnd = kRadixDigits;

// The target's warp (wavefront) width, 32 or 64, and a block's warps.
int64_t WarpSize(const KernelBuilder& k) {
  return k.target().device().warp_size;
}
int64_t Warps(const KernelBuilder& k) { return kRadixThreads / WarpSize(k); }

// What the call asks, read back from its operands, result and attributes.
struct RadixSortCall {
  const HloInstruction* call;
  const HloComputation* key;
  int64_t dim;
  // The sorted results (the scratch is result `results`), and for each
  // the operand it takes, or -1 where it is the original positions.
  int64_t results;
  std::vector<int64_t> source;
  RadixSortPlan plan;
};

absl::StatusOr<RadixSortCall> AnalyzeCall(const HloInstruction* call) {
  const Shape& result = call->shape();
  if (call->operand_count() == 0 || call->called_computations().size() != 1 ||
      !result.IsTuple() || result.tuple_shapes().size() < 2) {
    return CodegenUnimplemented(*call, "malformed radix sort call");
  }
  RadixSortCall c;
  c.call = call;
  c.key = call->called_computations()[0];
  c.results = static_cast<int64_t>(result.tuple_shapes().size()) - 1;
  HLOC_ASSIGN_OR_RETURN(auto attributes,
                        ParseFfiIntegerAttributes(call->backend_config()));
  c.dim = -1;
  int64_t positions = 0;
  for (const auto& [name, value] : attributes) {
    if (name == "dimension") c.dim = value;
    if (name == kRadixSortPositionsAttribute) positions = value;
  }
  int64_t next_operand = 0;
  for (int64_t i = 0; i < c.results; ++i) {
    const bool position = i > 0 && i < 63 && (positions >> i & 1);
    if (position && !IsIntegralType(result.tuple_shapes(i).element_type())) {
      return CodegenUnimplemented(*call, "radix sort positions not integers");
    }
    c.source.push_back(position ? -1 : next_operand++);
  }
  if (next_operand != call->operand_count()) {
    return CodegenUnimplemented(*call,
                                "radix sort operands and results differ");
  }
  const Shape& shape = call->operand(0)->shape();
  if (c.dim < 0 || c.dim >= shape.rank() || shape.dimensions(c.dim) == 0) {
    return CodegenUnimplemented(*call, "radix sort call without a dimension");
  }
  // Positions and places are u32, indices i32.
  if (shape.ElementCount() >= (int64_t{1} << 31)) {
    return CodegenUnimplemented(*call, "radix sort of 2^31 elements or more");
  }
  for (int64_t i = 0; i <= c.results; ++i) {
    const Shape& s = i < c.results ? result.tuple_shapes(i) : shape;
    const Shape& operand =
        i < call->operand_count() ? call->operand(i)->shape() : shape;
    if (!s.IsArray() || s.dimensions() != shape.dimensions() ||
        operand.dimensions() != shape.dimensions()) {
      return CodegenUnimplemented(
          *call, "radix sort operands and results of different shapes");
    }
  }
  const PrimitiveType key_type = shape.element_type();
  const PrimitiveType u = c.key->root_instruction()->shape().element_type();
  if (c.key->num_parameters() != 1 ||
      c.key->parameter_instruction(0)->shape().rank() != 0 ||
      c.key->parameter_instruction(0)->shape().element_type() != key_type ||
      (u != U8 && u != U16 && u != U32 && u != U64)) {
    return CodegenUnimplemented(
        *call, "radix sort key computation is not keys -> u8/u16/u32/u64");
  }
  const int64_t length = shape.dimensions(c.dim);
  c.plan =
      PlanRadixSort(shape.ElementCount() / length, length, BitWidth(u),
                    key_type == PRED ? 1 : ByteWidth(key_type), c.results > 1);
  if (result.tuple_shapes(c.results).ElementCount() != c.plan.scratch_bytes) {
    return CodegenUnimplemented(*call, "radix sort scratch of the wrong size");
  }
  return c;
}

// One kernel of one pass, and what its body needs: the scratch arrays,
// the key's digit, the block's row and tile, warps and lanes.
class RadixKernel {
 public:
  RadixKernel(KernelBuilder& kernel, const RadixSortCall& c, int64_t pass)
      : k_(kernel), c_(c), plan_(c.plan), pass_(pass), b_(kernel.b()) {
    scratch_ = kernel.output(c.results).base();
    warp_size_ = WarpSize(kernel);
    warp_ = b_->CreateUDiv(kernel.ThreadId(0), Index(warp_size_));
    lane_ = b_->CreateURem(kernel.ThreadId(0), Index(warp_size_));
  }

  KernelBuilder& kernel() { return k_; }
  llvm::IRBuilderBase* b() { return b_; }
  llvm::Value* Index(int64_t v) { return k_.Index(v); }
  llvm::Value* warp() { return warp_; }
  llvm::Value* lane() { return lane_; }
  bool last() const { return pass_ == plan_.passes - 1; }

  // Element `i` of the scratch array of `type` at byte `offset`.
  llvm::Value* Scratch(int64_t offset, llvm::Type* type, llvm::Value* i) {
    llvm::Value* base =
        b_->CreateConstInBoundsGEP1_64(b_->getInt8Ty(), scratch_, offset);
    return b_->CreateInBoundsGEP(type, base, i);
  }
  llvm::Value* Count(llvm::Value* i) {
    return Scratch(plan_.counts_offset, b_->getInt32Ty(), i);
  }
  llvm::Value* Total(llvm::Value* i) {
    return Scratch(plan_.totals_offset, b_->getInt32Ty(), i);
  }
  // Where counts[row][digit][tile] is.
  llvm::Value* CountIndex(llvm::Value* row, llvm::Value* digit,
                          llvm::Value* tile) {
    llvm::Value* list =
        b_->CreateAdd(b_->CreateMul(row, Index(kRadixDigits)), digit);
    return b_->CreateAdd(b_->CreateMul(list, Index(plan_.tiles)), tile);
  }

  const Shape& keys_shape() const { return c_.call->operand(0)->shape(); }
  absl::StatusOr<llvm::Type*> KeyStorage() {
    return StorageType(keys_shape().element_type(), b_->getContext());
  }
  // A key in its storage type and back (PRED is i1 in registers, i8 in
  // memory).
  llvm::Value* ToStorage(llvm::Value* key, llvm::Type* storage) {
    return key->getType() == storage ? key : b_->CreateZExt(key, storage);
  }
  llvm::Value* FromStorage(llvm::Value* v) {
    return keys_shape().element_type() == PRED
               ? b_->CreateTrunc(v, b_->getInt1Ty())
               : v;
  }

  // The key at position `q` of `row` as this pass reads it: the operand
  // in pass 0, the previous pass's array after.
  absl::StatusOr<llvm::Value*> LoadKey(llvm::Value* row, llvm::Value* q) {
    if (pass_ == 0) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator keys,
                            k_.generators().Get(c_.call->operand(0)));
      return keys(RowElement(keys_shape(), c_.dim, row, q, b_));
    }
    HLOC_ASSIGN_OR_RETURN(llvm::Type * storage, KeyStorage());
    return FromStorage(b_->CreateLoad(
        storage,
        Scratch(plan_.keys_offset[(pass_ - 1) % 2], storage, Flat(row, q))));
  }
  // The original position in its row of the element at `q`.
  llvm::Value* LoadPosition(llvm::Value* row, llvm::Value* q) {
    if (pass_ == 0) return q;
    return b_->CreateLoad(b_->getInt32Ty(),
                          Scratch(plan_.positions_offset[(pass_ - 1) % 2],
                                  b_->getInt32Ty(), Flat(row, q)));
  }
  // This pass's digit of `key` (index-typed).
  absl::StatusOr<llvm::Value*> Digit(llvm::Value* key) {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * u,
                          k_.elemental()->EmitScalarComputation(c_.key, {key}));
    llvm::Value* d = b_->CreateLShr(u, pass_ * kRadixDigitBits);
    return b_->CreateAnd(b_->CreateZExtOrTrunc(d, k_.index_type()),
                         Index(kRadixDigits - 1));
  }

  // Writes the element `key` (original position `position`) at position
  // `q` of `row`: to the next pass's arrays, or in the last pass to the
  // results, payloads read from the operands at the original position (or
  // the position itself).
  absl::Status Store(llvm::Value* row, llvm::Value* q, llvm::Value* key,
                     llvm::Value* position) {
    if (!last()) {
      HLOC_ASSIGN_OR_RETURN(llvm::Type * storage, KeyStorage());
      b_->CreateStore(
          ToStorage(key, storage),
          Scratch(plan_.keys_offset[pass_ % 2], storage, Flat(row, q)));
      if (plan_.payload) {
        b_->CreateStore(position, Scratch(plan_.positions_offset[pass_ % 2],
                                          b_->getInt32Ty(), Flat(row, q)));
      }
      return absl::OkStatus();
    }
    const IrArray& keys_out = k_.output(0);
    HLOC_RETURN_IF_ERROR(keys_out.EmitWrite(
        RowElement(keys_out.shape(), c_.dim, row, q, b_), key, b_));
    for (int64_t m = 1; m < c_.results; ++m) {
      const IrArray& out = k_.output(m);
      llvm::Value* v;
      if (c_.source[m] < 0) {
        v = b_->CreateZExtOrTrunc(
            position,
            llvm::IntegerType::get(b_->getContext(),
                                   BitWidth(out.shape().element_type())));
      } else {
        const HloInstruction* operand = c_.call->operand(c_.source[m]);
        HLOC_ASSIGN_OR_RETURN(ElementGenerator g, k_.generators().Get(operand));
        HLOC_ASSIGN_OR_RETURN(
            v, g(RowElement(operand->shape(), c_.dim, row, position, b_)));
      }
      HLOC_RETURN_IF_ERROR(
          out.EmitWrite(RowElement(out.shape(), c_.dim, row, q, b_), v, b_));
    }
    return absl::OkStatus();
  }

  llvm::Value* Flat(llvm::Value* row, llvm::Value* q) {
    return b_->CreateAdd(b_->CreateMul(row, Index(plan_.length)), q);
  }

  // The block's row and tile, and the tile's [start, end) in the row.
  void BlockTile(llvm::Value** row, llvm::Value** tile, llvm::Value** start,
                 llvm::Value** end) {
    llvm::Value* block = k_.BlockId(0);
    *row = b_->CreateUDiv(block, Index(plan_.tiles));
    *tile = b_->CreateURem(block, Index(plan_.tiles));
    *start = b_->CreateMul(*tile, Index(plan_.tile));
    *end = b_->CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                     b_->CreateAdd(*start, Index(plan_.tile)),
                                     Index(plan_.length));
  }

  // The tile's elements of this thread, in rank order: item j of warp w
  // lane l is at start + 32 * items * w + 32j + l; past `end`, `valid` is
  // false, the element read is the tile's last (a real one, so every lane
  // has a key to compute with) and the digit kPastEnd.
  struct Item {
    llvm::Value* valid;
    llvm::Value* key;
    llvm::Value* position;  // nullptr unless asked for
    llvm::Value* digit;
  };
  absl::StatusOr<std::vector<Item>> LoadItems(llvm::Value* row,
                                              llvm::Value* start,
                                              llvm::Value* end,
                                              bool positions) {
    const int64_t items = plan_.items_per_thread;
    llvm::Value* first = b_->CreateAdd(
        start,
        b_->CreateAdd(b_->CreateMul(warp_, Index(warp_size_ * items)), lane_));
    llvm::Value* last_q = b_->CreateSub(end, Index(1));
    std::vector<Item> result(items);
    // Loads first, all in flight together; digits after.
    for (int64_t j = 0; j < items; ++j) {
      Item& it = result[j];
      llvm::Value* q = b_->CreateAdd(first, Index(j * warp_size_));
      it.valid = b_->CreateICmpULT(q, end);
      llvm::Value* at = b_->CreateSelect(it.valid, q, last_q);
      HLOC_ASSIGN_OR_RETURN(it.key, LoadKey(row, at));
      it.position = positions ? LoadPosition(row, at) : nullptr;
    }
    for (Item& it : result) {
      HLOC_ASSIGN_OR_RETURN(llvm::Value * d, Digit(it.key));
      it.digit = b_->CreateSelect(it.valid, d, Index(kPastEnd));
    }
    return result;
  }

  // How many of the warp's lanes have this lane's digit (lanes past the
  // end count among themselves), and how many of them are below this lane
  // (i32 both): from a ballot per digit bit.
  absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>> Peers(
      const Item& it) {
    const GpuTarget& target = k_.target();
    llvm::Value* valid = target.EmitBallot(it.valid, b_);
    // Targets without it get no radix sort calls (passes/pipelines.cc).
    if (valid == nullptr) {
      return CodegenUnimplemented(*c_.call, "no warp ballot on this target");
    }
    llvm::Type* mask_type = valid->getType();
    llvm::Value* peers =
        b_->CreateSelect(it.valid, valid, b_->CreateNot(valid));
    for (int64_t bit = 0; bit < kRadixDigitBits; ++bit) {
      llvm::Value* set = b_->CreateICmpNE(
          b_->CreateAnd(it.digit, Index(int64_t{1} << bit)), Index(0));
      llvm::Value* ballot = target.EmitBallot(set, b_);
      peers = b_->CreateAnd(
          peers, b_->CreateSelect(set, ballot, b_->CreateNot(ballot)));
    }
    llvm::Value* lane = b_->CreateZExtOrTrunc(lane_, mask_type);
    llvm::Value* one = llvm::ConstantInt::get(mask_type, 1);
    llvm::Value* below_mask = b_->CreateSub(b_->CreateShl(one, lane), one);
    auto count = [&](llvm::Value* mask) {
      return b_->CreateZExtOrTrunc(
          b_->CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, mask),
          b_->getInt32Ty());
    };
    return std::make_pair(count(peers),
                          count(b_->CreateAnd(peers, below_mask)));
  }

 private:
  KernelBuilder& k_;
  const RadixSortCall& c_;
  const RadixSortPlan& plan_;
  const int64_t pass_;
  llvm::IRBuilderBase* b_;
  llvm::Value* scratch_;
  int64_t warp_size_;
  llvm::Value* warp_;
  llvm::Value* lane_;
};

// Per-warp digit counts in shared memory, cleared by the whole block.
class WarpCounts {
 public:
  explicit WarpCounts(KernelBuilder& k)
      : k_(k),
        size_(Warps(k) * kWarpCountsStride),
        array_(SharedArray(k, k.b()->getInt32Ty(), size_,
                           "warp_counts")) {}

  llvm::Value* Slot(llvm::Value* warp, llvm::Value* digit) {
    llvm::IRBuilderBase* b = k_.b();
    return SharedElement(
        k_, array_,
        b->CreateAdd(b->CreateMul(warp, k_.Index(kWarpCountsStride)), digit));
  }

  absl::Status Clear() {
    llvm::IRBuilderBase* b = k_.b();
    for (int64_t i = 0; i < size_; i += kRadixThreads) {
      llvm::Value* slot = b->CreateAdd(k_.ThreadId(0), k_.Index(i));
      HLOC_RETURN_IF_ERROR(EmitIfThenElse(
          b->CreateICmpULT(slot, k_.Index(size_)),
          [&]() -> absl::Status {
            b->CreateStore(b->getInt32(0), SharedElement(k_, array_, slot));
            return absl::OkStatus();
          },
          nullptr, b));
    }
    return absl::OkStatus();
  }

 private:
  KernelBuilder& k_;
  int64_t size_;
  llvm::GlobalVariable* array_;
};

// (1) counts[row][digit][tile] of the block's tile.
absl::Status EmitCounts(RadixKernel& r) {
  KernelBuilder& k = r.kernel();
  llvm::IRBuilderBase* b = r.b();
  llvm::Value* tid = k.ThreadId(0);
  WarpCounts counts(k);
  HLOC_RETURN_IF_ERROR(counts.Clear());
  k.target().EmitBarrier(b);
  llvm::Value *row, *tile, *start, *end;
  r.BlockTile(&row, &tile, &start, &end);
  HLOC_ASSIGN_OR_RETURN(std::vector<RadixKernel::Item> items,
                        r.LoadItems(row, start, end, false));
  // Per warp, so that only a warp's equal digits contend.
  for (const RadixKernel::Item& it : items) {
    b->CreateAtomicRMW(llvm::AtomicRMWInst::Add,
                       counts.Slot(r.warp(), it.digit), b->getInt32(1),
                       llvm::MaybeAlign(4), llvm::AtomicOrdering::Monotonic);
  }
  k.target().EmitBarrier(b);
  llvm::Value* sum = b->getInt32(0);
  for (int64_t w = 0; w < Warps(k); ++w) {
    sum = b->CreateAdd(
        sum, b->CreateLoad(b->getInt32Ty(), counts.Slot(k.Index(w), tid)));
  }
  b->CreateStore(sum, r.Count(r.CountIndex(row, tid, tile)));
  return absl::OkStatus();
}

// The inclusive prefix sum of `value` (i32) over the warp's lanes.
llvm::Value* WarpInclusiveSum(RadixKernel& r, llvm::Value* value) {
  llvm::IRBuilderBase* b = r.b();
  llvm::Value* sum = value;
  for (int delta = 1; delta < WarpSize(r.kernel()); delta *= 2) {
    llvm::Value* up = ShuffleUp(r.kernel(), sum, delta);
    sum = b->CreateAdd(
        sum, b->CreateSelect(b->CreateICmpUGE(r.lane(), r.Index(delta)), up,
                             b->getInt32(0)));
  }
  return sum;
}

// The exclusive prefix sum of `value` (i32) over the block's threads.
absl::StatusOr<llvm::Value*> BlockExclusiveSum(RadixKernel& r,
                                               llvm::Value* value) {
  KernelBuilder& k = r.kernel();
  llvm::IRBuilderBase* b = r.b();
  llvm::Value* inclusive = WarpInclusiveSum(r, value);
  llvm::GlobalVariable* totals =
      SharedArray(k, b->getInt32Ty(), Warps(k), "warp_totals");
  HLOC_RETURN_IF_ERROR(EmitIfThenElse(
      b->CreateICmpEQ(r.lane(), k.Index(WarpSize(k) - 1)),
      [&]() -> absl::Status {
        b->CreateStore(inclusive, SharedElement(k, totals, r.warp()));
        return absl::OkStatus();
      },
      nullptr, b));
  k.target().EmitBarrier(b);
  // Each warp sums the totals of the warps before it.
  llvm::Value* before = b->getInt32(0);
  for (int64_t w = 0; w < Warps(k); ++w) {
    llvm::Value* t =
        b->CreateLoad(b->getInt32Ty(), SharedElement(k, totals, k.Index(w)));
    before = b->CreateAdd(
        before, b->CreateSelect(b->CreateICmpULT(k.Index(w), r.warp()), t,
                                b->getInt32(0)));
  }
  return b->CreateAdd(before, b->CreateSub(inclusive, value));
}

// (2) A warp per row and digit: its counts over the tiles become
// exclusive prefix sums, their sum totals[row][digit].
absl::Status EmitScan(RadixKernel& r, const RadixSortPlan& plan) {
  KernelBuilder& k = r.kernel();
  llvm::IRBuilderBase* b = r.b();
  llvm::Value* list =
      b->CreateAdd(b->CreateMul(k.BlockId(0), k.Index(Warps(k))), r.warp());
  llvm::Value* base = b->CreateMul(list, k.Index(plan.tiles));
  llvm::Value* carry = EmitAllocaAtEntry(b->getInt32Ty(), "carry", b);
  b->CreateStore(b->getInt32(0), carry);
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "chunk", k.Index(0), k.Index(plan.tiles), k.Index(WarpSize(k)),
      [&](llvm::Value* chunk) -> absl::Status {
        llvm::Value* t = b->CreateAdd(chunk, r.lane());
        llvm::Value* inside = b->CreateICmpULT(t, k.Index(plan.tiles));
        llvm::Value* at =
            r.Count(b->CreateAdd(base, b->CreateSelect(inside, t, k.Index(0))));
        llvm::Value* count = b->CreateSelect(
            inside, b->CreateLoad(b->getInt32Ty(), at), b->getInt32(0));
        llvm::Value* inclusive = WarpInclusiveSum(r, count);
        llvm::Value* before = b->CreateLoad(b->getInt32Ty(), carry);
        HLOC_RETURN_IF_ERROR(EmitIfThenElse(
            inside,
            [&]() -> absl::Status {
              b->CreateStore(
                  b->CreateAdd(before, b->CreateSub(inclusive, count)), at);
              return absl::OkStatus();
            },
            nullptr, b));
        b->CreateStore(
            b->CreateAdd(before, ShuffleIndex(k, inclusive, WarpSize(k) - 1)),
            carry);
        return absl::OkStatus();
      },
      b));
  return EmitIfThenElse(
      b->CreateICmpEQ(r.lane(), k.Index(0)),
      [&]() -> absl::Status {
        b->CreateStore(b->CreateLoad(b->getInt32Ty(), carry), r.Total(list));
        return absl::OkStatus();
      },
      nullptr, b);
}

// The tile in shared memory in digit order: its keys and, with a
// payload, their original positions.
struct SharedTile {
  llvm::Type* storage;
  llvm::GlobalVariable* keys;
  llvm::GlobalVariable* positions;  // nullptr without a payload
};

absl::StatusOr<SharedTile> MakeSharedTile(RadixKernel& r,
                                          const RadixSortPlan& plan) {
  KernelBuilder& k = r.kernel();
  SharedTile t;
  HLOC_ASSIGN_OR_RETURN(t.storage, r.KeyStorage());
  t.keys = SharedArray(k, t.storage, plan.tile, "tile_keys");
  t.positions = plan.payload ? SharedArray(k, r.b()->getInt32Ty(), plan.tile,
                                           "tile_positions")
                             : nullptr;
  return t;
}

// Ranks the block's `items` by this pass's digit and writes each to its
// place in `tile` (the tile ordered by digit: the smaller digits first,
// within a digit the earlier warps, items and lanes). Returns, for digit
// `tid`, its first place. Starts and ends with a barrier.
absl::StatusOr<llvm::Value*> PlaceInTile(
    RadixKernel& r, WarpCounts& counts,
    const std::vector<RadixKernel::Item>& items, const SharedTile& tile) {
  KernelBuilder& k = r.kernel();
  llvm::IRBuilderBase* b = r.b();
  llvm::Type* i32 = b->getInt32Ty();
  llvm::Value* tid = k.ThreadId(0);
  // Whatever read the counts or the tile before is done.
  k.target().EmitBarrier(b);
  HLOC_RETURN_IF_ERROR(counts.Clear());
  k.target().EmitBarrier(b);
  // Each item's rank among its warp's earlier items of its digit.
  std::vector<llvm::Value*> ranks;
  for (const RadixKernel::Item& it : items) {
    HLOC_ASSIGN_OR_RETURN(auto peers_below, r.Peers(it));
    auto [peers, below] = peers_below;
    llvm::Value* slot = counts.Slot(r.warp(), it.digit);
    llvm::Value* before = b->CreateLoad(i32, slot);
    k.target().EmitWarpSync(b);
    ranks.push_back(b->CreateAdd(before, below));
    // Every lane of the digit stores the same new count.
    b->CreateStore(b->CreateAdd(before, peers), slot);
    k.target().EmitWarpSync(b);
  }
  k.target().EmitBarrier(b);

  // Thread `tid`: digit tid's warps' counts become their first places.
  llvm::Value* in_digit = b->getInt32(0);
  std::vector<llvm::Value*> warp_before;
  for (int64_t w = 0; w < Warps(k); ++w) {
    warp_before.push_back(in_digit);
    in_digit = b->CreateAdd(in_digit,
                            b->CreateLoad(i32, counts.Slot(k.Index(w), tid)));
  }
  HLOC_ASSIGN_OR_RETURN(llvm::Value * digit_first,
                        BlockExclusiveSum(r, in_digit));
  for (int64_t w = 0; w < Warps(k); ++w) {
    b->CreateStore(b->CreateAdd(digit_first, warp_before[w]),
                   counts.Slot(k.Index(w), tid));
  }
  k.target().EmitBarrier(b);

  for (size_t j = 0; j < items.size(); ++j) {
    const RadixKernel::Item& it = items[j];
    HLOC_RETURN_IF_ERROR(EmitIfThenElse(
        it.valid,
        [&]() -> absl::Status {
          llvm::Value* place = b->CreateZExtOrTrunc(
              b->CreateAdd(b->CreateLoad(i32, counts.Slot(r.warp(), it.digit)),
                           ranks[j]),
              k.index_type());
          b->CreateStore(r.ToStorage(it.key, tile.storage),
                         SharedElement(k, tile.keys, place));
          if (tile.positions != nullptr) {
            b->CreateStore(b->CreateZExtOrTrunc(it.position, i32),
                           SharedElement(k, tile.positions, place));
          }
          return absl::OkStatus();
        },
        nullptr, b));
  }
  k.target().EmitBarrier(b);
  return digit_first;
}

// Element `place` of the shared tile: its key and original position
// (index-typed; nullptr without a payload).
std::pair<llvm::Value*, llvm::Value*> ReadTile(RadixKernel& r,
                                               const SharedTile& tile,
                                               llvm::Value* place) {
  KernelBuilder& k = r.kernel();
  llvm::IRBuilderBase* b = r.b();
  llvm::Value* key = r.FromStorage(
      b->CreateLoad(tile.storage, SharedElement(k, tile.keys, place)));
  llvm::Value* position =
      tile.positions == nullptr
          ? nullptr
          : b->CreateZExtOrTrunc(
                b->CreateLoad(b->getInt32Ty(),
                              SharedElement(k, tile.positions, place)),
                k.index_type());
  return {key, position};
}

// (3) The block's tile ranked, ordered by digit in shared memory and
// written out: neighbouring threads write neighbouring places of the
// output (a digit's elements of the tile are consecutive there).
absl::Status EmitScatter(RadixKernel& r, const RadixSortPlan& plan) {
  KernelBuilder& k = r.kernel();
  llvm::IRBuilderBase* b = r.b();
  llvm::Type* i32 = b->getInt32Ty();
  llvm::Value* tid = k.ThreadId(0);
  llvm::Value *row, *tile_index, *start, *end;
  r.BlockTile(&row, &tile_index, &start, &end);

  // Where digit `tid`'s elements of the tile start in the row: after the
  // row's smaller digits and this digit's earlier tiles.
  llvm::Value* total = b->CreateLoad(
      i32,
      r.Total(b->CreateAdd(b->CreateMul(row, k.Index(kRadixDigits)), tid)));
  HLOC_ASSIGN_OR_RETURN(llvm::Value * row_start, BlockExclusiveSum(r, total));
  llvm::Value* digit_start = b->CreateAdd(
      row_start,
      b->CreateLoad(i32, r.Count(r.CountIndex(row, tid, tile_index))));

  WarpCounts counts(k);
  HLOC_ASSIGN_OR_RETURN(SharedTile tile, MakeSharedTile(r, plan));
  HLOC_ASSIGN_OR_RETURN(std::vector<RadixKernel::Item> items,
                        r.LoadItems(row, start, end, plan.payload));
  HLOC_ASSIGN_OR_RETURN(llvm::Value * digit_first,
                        PlaceInTile(r, counts, items, tile));
  // A digit's place in the row is its place in the tile plus this.
  llvm::GlobalVariable* shift =
      SharedArray(k, i32, kRadixDigits, "digit_output_shift");
  b->CreateStore(b->CreateSub(digit_start, digit_first),
                 SharedElement(k, shift, tid));
  k.target().EmitBarrier(b);

  llvm::Value* size = b->CreateSub(end, start);
  for (int64_t m = 0; m < plan.items_per_thread; ++m) {
    llvm::Value* place = b->CreateAdd(tid, k.Index(m * kRadixThreads));
    HLOC_RETURN_IF_ERROR(EmitIfThenElse(
        b->CreateICmpULT(place, size),
        [&]() -> absl::Status {
          auto [key, position] = ReadTile(r, tile, place);
          HLOC_ASSIGN_OR_RETURN(llvm::Value * digit, r.Digit(key));
          llvm::Value* q = b->CreateAdd(
              place, b->CreateZExtOrTrunc(
                         b->CreateLoad(i32, SharedElement(k, shift, digit)),
                         k.index_type()));
          return r.Store(row, q, key, position);
        },
        nullptr, b));
  }
  return absl::OkStatus();
}

// A row of one tile, every pass in one kernel: the tile stays in shared
// memory between passes (each pass reads it in rank order, as the first
// reads the operand, and writes it back in digit order), and the last
// writes the results. Each pass's ranks are the row's: no counts, no scan.
absl::Status EmitRowInShared(KernelBuilder& k, const RadixSortCall& c) {
  const RadixSortPlan& plan = c.plan;
  llvm::IRBuilderBase* b = k.b();
  WarpCounts counts(k);
  std::optional<SharedTile> tile;
  llvm::Value* row = k.BlockId(0);
  llvm::Value* length = k.Index(plan.length);
  for (int64_t pass = 0; pass < plan.passes; ++pass) {
    RadixKernel r(k, c, pass);
    if (!tile.has_value()) {
      HLOC_ASSIGN_OR_RETURN(tile, MakeSharedTile(r, plan));
    }
    std::vector<RadixKernel::Item> items;
    if (pass == 0) {
      HLOC_ASSIGN_OR_RETURN(items,
                            r.LoadItems(row, k.Index(0), length, plan.payload));
    } else {
      // The previous pass's order is this pass's rank order: item j of
      // warp w lane l at place 32 * items * w + 32j + l, as LoadItems.
      llvm::Value* first = b->CreateAdd(
          b->CreateMul(r.warp(), k.Index(WarpSize(k) * plan.items_per_thread)),
          r.lane());
      for (int64_t j = 0; j < plan.items_per_thread; ++j) {
        RadixKernel::Item it;
        llvm::Value* place = b->CreateAdd(first, k.Index(j * WarpSize(k)));
        it.valid = b->CreateICmpULT(place, length);
        std::tie(it.key, it.position) = ReadTile(
            r, *tile,
            b->CreateSelect(it.valid, place, k.Index(plan.length - 1)));
        HLOC_ASSIGN_OR_RETURN(llvm::Value * d, r.Digit(it.key));
        it.digit = b->CreateSelect(it.valid, d, k.Index(kPastEnd));
        items.push_back(it);
      }
    }
    HLOC_RETURN_IF_ERROR(PlaceInTile(r, counts, items, *tile).status());
    if (!r.last()) continue;
    // The row in order: neighbouring threads write neighbouring places.
    for (int64_t m = 0; m < plan.items_per_thread; ++m) {
      llvm::Value* place =
          b->CreateAdd(k.ThreadId(0), k.Index(m * kRadixThreads));
      HLOC_RETURN_IF_ERROR(EmitIfThenElse(
          b->CreateICmpULT(place, length),
          [&]() -> absl::Status {
            auto [key, position] = ReadTile(r, *tile, place);
            return r.Store(row, place, key, position);
          },
          nullptr, b));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsRadixSortCall(const HloInstruction* op) {
  return op->opcode() == HloOpcode::kCustomCall &&
         op->attrs().custom_call_target == kRadixSortTarget;
}

int RadixSortKernelSteps(const HloInstruction* call) {
  absl::StatusOr<RadixSortCall> c = AnalyzeCall(call);
  // A malformed call still takes a step, whose emitter says why.
  return c.ok() ? c->plan.kernels() : 1;
}

absl::StatusOr<LaunchDims> EmitRadixSortKernel(const KernelRequest& request,
                                               const HloInstruction* call,
                                               int step) {
  HLOC_ASSIGN_OR_RETURN(RadixSortCall c, AnalyzeCall(call));
  for (bool aliased : request.buffers->may_alias) {
    if (aliased) return CodegenUnimplemented(*call, "radix sort in place");
  }
  LaunchDims dims;
  dims.block[0] = kRadixThreads;
  if (c.plan.tiles == 1) {
    // A block a row, every pass.
    dims.grid[0] = c.plan.rows;
    KernelBuilder kernel(*request.target, request.module, *request.info,
                         *request.buffers, request.symbol, kRadixThreads,
                         /*index64=*/false);
    HLOC_RETURN_IF_ERROR(kernel.Finish(EmitRowInShared(kernel, c)));
    return dims;
  }
  const int64_t pass = step / 3;
  enum {
    kCounts,
    kScan,
    kScatter
  } kind = step % 3 == 0   ? kCounts
           : step % 3 == 1 ? kScan
                           : kScatter;
  // The scan: a warp per row and digit (rows * 256 lists, 8 a block).
  const int64_t warps = kRadixThreads / request.target->device().warp_size;
  dims.grid[0] = kind == kScan ? c.plan.rows * kRadixDigits / warps
                               : c.plan.rows * c.plan.tiles;
  KernelBuilder kernel(*request.target, request.module, *request.info,
                       *request.buffers, request.symbol, kRadixThreads,
                       /*index64=*/false);
  absl::Status status = [&]() -> absl::Status {
    RadixKernel r(kernel, c, pass);
    switch (kind) {
      case kCounts:
        return EmitCounts(r);
      case kScan:
        return EmitScan(r, c.plan);
      case kScatter:
        return EmitScatter(r, c.plan);
    }
    return absl::OkStatus();
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return dims;
}

}  // namespace hloc
