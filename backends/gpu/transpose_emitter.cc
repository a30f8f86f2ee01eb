// Transposes that move the minor dimension, alone or inside a loop fusion
// (x.T + y): through shared-memory tiles.
//
// The "hero" is a transpose whose operand's physically minor dimension is
// not the output's, or a fusion parameter whose layout puts another
// dimension minor than the output's (after layout assignment, x.T + y is
// a bitcast of x plus y read in the other order). Read element by element,
// either its reads or the kernel's writes would stride through memory.
// Instead a block owns a square tile (TransposeTiling, launch_dims.h) of
// the output over the two dimension groups concerned (k: the dimensions
// minor in the operand, j: those minor in the output, each group walked
// as one linear coordinate; see TilePlane) at one position of the other
// dimensions. First its lanes walk k, reading the hero's operand
// (computed through the fused producers) along the operand's minor
// dimension, into a shared tile; after a barrier they walk j, computing
// the output along its minor dimension, the hero's value now read from
// the tile's other axis. Padding after each tile row
// (ComputeTransposeTiling) puts the rows that a warp's lanes read in that
// second walk an odd number of 4-byte words apart, so its 32 column reads
// fall in 32 different banks.
//
// Only where every use of the hero reaches its output through
// elementwise ops of the output's dimensions, so it is only read at the
// output's own position.
//
// A multi-output fusion may add outputs of the hero operand's own
// dimensions (tuple(x, transpose(x)): a value used by one gemm as it is
// and by another K-major, dot_tf32_operand_layout.h): they are written in
// the first walk, at the source positions being read, coalesced where
// their minor dimension is the source's, so x is computed and its inputs
// read once for both outputs.
#include <algorithm>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/fusion/fusion_utils.h"

namespace hloc {
namespace {

// The physically most minor dimension of size > 1, or -1.
int64_t MinorDim(const Shape& s) {
  for (int64_t d : s.MinorToMajor()) {
    if (s.dimensions(d) != 1) return d;
  }
  return -1;
}

// The physically non-degenerate dimensions of `s`, minor first.
std::vector<int64_t> PhysicalDims(const Shape& s) {
  std::vector<int64_t> dims;
  for (int64_t d : s.MinorToMajor()) {
    if (s.dimensions(d) != 1) dims.push_back(d);
  }
  return dims;
}

// The output dimensions the tile spans, each a group of output dimensions
// (major first) that one tile coordinate walks as a single linear one:
// k, the group that is physically minor in the hero's operand, and j, the
// group minor in the output. A group is the run of dimensions that are
// physically adjacent, in the same order, in both the operand and the
// output (XLA's transpose normalisation): NCHW -> NHWC moves C past H and
// W together, so k is (H, W), one coordinate of extent H*W. Tiling H and
// W apart would read rows of W elements (56 bf16: 112 bytes, across
// 32-byte sectors) and leave most of a 128-wide tile idle.
struct TilePlane {
  std::vector<int64_t> k;
  std::vector<int64_t> j;
};

// The tile plane of `hero`: a transpose (its operand is the source) or a
// fusion parameter of the output's dimensions whose layout differs from
// the output's (it is the source, read in another physical order).
std::optional<TilePlane> PlaneOf(const HloInstruction* hero,
                                 const Shape& output) {
  const bool transpose = hero->opcode() == HloOpcode::kTranspose;
  if (!transpose && hero->opcode() != HloOpcode::kParameter) {
    return std::nullopt;
  }
  const Shape& source = transpose ? hero->operand(0)->shape() : hero->shape();
  if (!source.IsArray() || source.rank() < 2 ||
      !hero->shape().SameDimensions(output)) {
    return std::nullopt;
  }
  // Both physical orders in output dimension numbers: source dimension
  // d is output dimension `to_output[d]`.
  std::vector<int64_t> to_output(output.rank());
  for (int64_t i = 0; i < output.rank(); ++i) {
    to_output[transpose ? hero->dimensions(i) : i] = i;
  }
  std::vector<int64_t> in_source;  // output dims, in the source's order
  for (int64_t d : PhysicalDims(source)) in_source.push_back(to_output[d]);
  const std::vector<int64_t> in_output = PhysicalDims(output);
  if (in_source.empty() || in_output.empty() || in_source[0] == in_output[0]) {
    return std::nullopt;
  }
  // The run of `from`'s dimensions from its minor one that `to` holds
  // consecutively in the same order, as a group (major first).
  auto group = [](const std::vector<int64_t>& from,
                  const std::vector<int64_t>& to) {
    std::vector<int64_t> g = {from[0]};
    auto at = std::find(to.begin(), to.end(), from[0]);
    for (size_t i = 1; i < from.size(); ++i) {
      ++at;
      if (at == to.end() || *at != from[i]) break;
      g.push_back(from[i]);
    }
    std::reverse(g.begin(), g.end());
    return g;
  };
  // The two groups cannot overlap: a group only grows towards the major
  // end of both orders, and each starts at the other's order's minor
  // dimension, which is not the other order's minor one.
  return TilePlane{group(in_source, in_output), group(in_output, in_source)};
}

// Whether transpose `t` undoes every transpose it reads: its operand is,
// through elementwise ops, only transposes whose permutation composed with
// t's is the identity, over a source laid out as t's result, and scalars
// broadcast. Then every source element is read at the output's own
// position and a plain loop's reads are as coalesced as its writes; a tile
// would only move the data through shared memory and back. Layout
// assignment writes such pairs: a channels-last convolution's result taken
// back to the program's NCHW order for an elementwise op (a ReLU's mask)
// whose result the next channels-last convolution reads.
bool UndoesItsTransposes(const HloInstruction* t) {
  std::vector<const HloInstruction*> stack = {t->operand(0)};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    if (x->opcode() == HloOpcode::kTranspose) {
      // t's output dimension i is its operand's dimension t->dimensions(i),
      // which is x's source dimension x->dimensions(t->dimensions(i)).
      for (int64_t i = 0; i < t->shape().rank(); ++i) {
        if (x->dimensions(t->dimensions(i)) != i) return false;
      }
      if (x->operand(0)->shape().MinorToMajor() != t->shape().MinorToMajor()) {
        return false;
      }
      continue;
    }
    if (x->opcode() == HloOpcode::kBroadcast &&
        x->operand(0)->shape().rank() == 0) {
      continue;
    }
    if (x->opcode() == HloOpcode::kConstant && x->shape().rank() == 0) {
      continue;
    }
    if (!x->IsElementwise()) {
      return false;
    }
    for (const HloInstruction* operand : x->operands()) {
      stack.push_back(operand);
    }
  }
  return true;
}

// The hero of output `o` alone: the single-output rule.
const HloInstruction* HeroOfOutput(const KernelInfo& info, size_t o) {
  if (info.outputs[o].element >= 0) return nullptr;
  const HloInstruction* root = info.outputs[o].root;
  const Shape& output = info.output_shapes[o];
  if (!root->shape().IsArray() || !root->shape().SameDimensions(output) ||
      output.ElementCount() == 0) {
    return nullptr;
  }
  std::vector<const HloInstruction*> candidates;
  if (!info.fused) {
    candidates.push_back(info.hlo);
  } else if (GetFusionShape(*info.hlo) == FusionShape::kLoop) {
    for (const HloInstruction* instr :
         info.hlo->fused_computation()->instructions()) {
      candidates.push_back(instr);
    }
  }
  for (const HloInstruction* c : candidates) {
    if (!PlaneOf(c, output) || !ReadAtOutputPositionOnly(c, root)) {
      continue;
    }
    if (c->opcode() == HloOpcode::kTranspose && UndoesItsTransposes(c)) {
      continue;
    }
    return c;
  }
  return nullptr;
}

// Whether output `o` can be written in the first walk, at the positions of
// `hero`'s source: a value of the source's dimensions, minor along the
// source's minor dimension, that does not read the hero (whose value the
// first walk has not tiled yet).
bool WrittenAtSource(const KernelInfo& info, size_t o,
                     const HloInstruction* hero) {
  if (hero->opcode() != HloOpcode::kTranspose ||
      info.outputs[o].element >= 0) {
    return false;
  }
  const Shape& source = hero->operand(0)->shape();
  const Shape& output = info.output_shapes[o];
  const HloInstruction* root = info.outputs[o].root;
  return root->shape().IsArray() && root->shape().SameDimensions(source) &&
         output.SameDimensions(source) &&
         MinorDim(output) == MinorDim(source) && !Reaches(hero, root);
}

// The output the hero's tile is written to (see FindTransposeHero).
size_t TransposedOutput(const KernelInfo& info, const HloInstruction* hero) {
  for (size_t o = 0; o < info.outputs.size(); ++o) {
    if (HeroOfOutput(info, o) == hero) return o;
  }
  return 0;
}

}  // namespace

const HloInstruction* FindTransposeHero(const KernelInfo& info) {
  for (size_t t = 0; t < info.outputs.size(); ++t) {
    const HloInstruction* hero = HeroOfOutput(info, t);
    if (hero == nullptr) continue;
    bool others_at_source = true;
    for (size_t o = 0; o < info.outputs.size(); ++o) {
      if (o != t && !WrittenAtSource(info, o, hero)) others_at_source = false;
    }
    if (others_at_source) return hero;
  }
  return nullptr;
}

absl::StatusOr<LaunchDims> EmitTransposeKernel(const KernelRequest& request,
                                               const HloInstruction* hero) {
  const KernelInfo& info = *request.info;
  const size_t transposed = TransposedOutput(info, hero);
  const Shape& output = info.output_shapes[transposed];
  const TilePlane plane = *PlaneOf(hero, output);
  const int64_t hero_bytes = ByteWidth(hero->shape().element_type());
  auto sizes_of = [&](const std::vector<int64_t>& dims) {
    std::vector<int64_t> sizes;
    for (int64_t d : dims) sizes.push_back(output.dimensions(d));
    return sizes;
  };
  const std::vector<int64_t> k_sizes = sizes_of(plane.k);
  const std::vector<int64_t> j_sizes = sizes_of(plane.j);
  auto product = [](const std::vector<int64_t>& sizes) {
    int64_t n = 1;
    for (int64_t size : sizes) n *= size;
    return n;
  };
  const int64_t dk = product(k_sizes);
  const int64_t dj = product(j_sizes);
  const int64_t other_count = output.ElementCount() / (dk * dj);
  // A lane takes `run` consecutive elements of a tile row at a time (two
  // 2-byte elements): adjacent accesses that LLVM's load/store vectorizer
  // makes one 4-byte access, so a warp moves 128 bytes of its global row
  // per instruction instead of 64.
  const TransposeTiling tiling = ComputeTransposeTiling(
      std::max(hero_bytes, ByteWidth(output.element_type())), hero_bytes, dk,
      dj, other_count, request.target->device());
  const int64_t tile = tiling.tile;
  const int64_t run = tiling.run;
  const int64_t stride = tiling.stride;
  const int64_t lanes = kTransposeLanes;
  const int64_t rows = tiling.rows;
  const int64_t tiles_k = CeilOfRatio(dk, tile);
  const int64_t tiles_j = CeilOfRatio(dj, tile);
  // The other dimensions, one block row per position.
  std::vector<int64_t> others;
  for (int64_t d = 0; d < output.rank(); ++d) {
    if (absl::c_linear_search(plane.k, d) ||
        absl::c_linear_search(plane.j, d)) {
      continue;
    }
    others.push_back(d);
  }
  const std::vector<int64_t> other_sizes = sizes_of(others);
  LaunchDims dims;
  dims.block[0] = lanes * rows;
  dims.grid[0] = tiles_k * tiles_j * other_count;
  bool index64 = !Use32BitIndexing(MaxElementsTouched(info),
                                   dims.NumBlocks() * tile * tile);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, lanes * rows, index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    HLOC_ASSIGN_OR_RETURN(
        llvm::Type * type,
        RegisterType(hero->shape().element_type(), b->getContext()));
    llvm::GlobalVariable* shared =
        SharedArray(kernel, type, tile * stride, "tile");
    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* tx = b->CreateURem(tid, kernel.Index(lanes), "tx");
    llvm::Value* ty = b->CreateUDiv(tid, kernel.Index(lanes), "ty");
    llvm::Value* block = kernel.BlockId(0);
    llvm::Value* tj = b->CreateURem(block, kernel.Index(tiles_j));
    llvm::Value* rest = b->CreateUDiv(block, kernel.Index(tiles_j));
    llvm::Value* tk = b->CreateURem(rest, kernel.Index(tiles_k));
    llvm::Value* other = b->CreateUDiv(rest, kernel.Index(tiles_k));
    llvm::Value* k0 = b->CreateMul(tk, kernel.Index(tile), "k0", true, true);
    llvm::Value* j0 = b->CreateMul(tj, kernel.Index(tile), "j0", true, true);
    // Sets `index`'s `dims` (a group, major first) to the row-major split
    // of `linear` over their sizes.
    auto split = [&](llvm::Value* linear, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& sizes,
                     std::vector<llvm::Value*>& index) {
      if (dims.size() == 1) {
        index[dims[0]] = linear;
        return;
      }
      IrIndex parts = IrIndex::FromLinear(
          linear, Shape::Array(output.element_type(), sizes), b);
      for (size_t i = 0; i < dims.size(); ++i) index[dims[i]] = parts[i];
    };
    std::vector<llvm::Value*> base(output.rank(), kernel.Index(0));
    if (!others.empty()) split(other, others, other_sizes, base);
    auto at = [&](llvm::Value* k, llvm::Value* j) {
      std::vector<llvm::Value*> index = base;
      split(k, plane.k, k_sizes, index);
      split(j, plane.j, j_sizes, index);
      return IrIndex(index, kernel.index_type());
    };
    auto slot = [&](llvm::Value* row, llvm::Value* column) {
      return SharedElement(
          kernel, shared,
          b->CreateAdd(b->CreateMul(row, kernel.Index(stride), "", true, true),
                       column, "", true, true));
    };
    // Runs body(k, j) for the thread's elements of the tile: the lane
    // walks `lane_dim` (k or j), the thread's rows the other, bounds
    // checked only on edge tiles.
    auto for_tile =
        [&](bool lanes_along_k,
            const std::function<absl::Status(llvm::Value*, llvm::Value*,
                                             llvm::Value*, llvm::Value*)>& body)
        -> absl::Status {
      llvm::Value* first =
          b->CreateMul(tx, kernel.Index(run), "", true, true);  // lane's run
      for (int64_t r = 0; r < tile; r += rows) {
        // The warp's runs cover lanes * run elements of the row at a time.
        for (int64_t c = 0; c < tile; c += lanes * run) {
          for (int64_t e = 0; e < run; ++e) {
            llvm::Value* across =
                b->CreateAdd(ty, kernel.Index(r), "", true, true);  // tile row
            llvm::Value* along =
                b->CreateAdd(first, kernel.Index(c + e), "", true, true);
            llvm::Value* tk_off = lanes_along_k ? along : across;
            llvm::Value* tj_off = lanes_along_k ? across : along;
            llvm::Value* k = b->CreateAdd(k0, tk_off, "", true, true);
            llvm::Value* j = b->CreateAdd(j0, tj_off, "", true, true);
            auto visit = [&]() { return body(k, j, tk_off, tj_off); };
            if (dk % tile == 0 && dj % tile == 0) {
              HLOC_RETURN_IF_ERROR(visit());
            } else {
              HLOC_RETURN_IF_ERROR(EmitIfThenElse(
                  b->CreateAnd(b->CreateICmpULT(k, kernel.Index(dk)),
                               b->CreateICmpULT(j, kernel.Index(dj))),
                  visit, nullptr, b));
            }
          }
        }
      }
      return absl::OkStatus();
    };
    HLOC_ASSIGN_OR_RETURN(ElementGenerator hero_gen,
                          kernel.generators().Get(hero));
    // The other outputs, written at the source positions (each is
    // WrittenAtSource): output index s with s[p[i]] = t[i] for the
    // transpose's permutation p and the tile's output index t.
    std::vector<std::pair<size_t, ElementGenerator>> at_source;
    for (size_t o = 0; o < info.outputs.size(); ++o) {
      if (o == transposed) continue;
      HLOC_ASSIGN_OR_RETURN(ElementGenerator gen,
                            kernel.generators().ForOutput(info.outputs[o]));
      at_source.emplace_back(o, std::move(gen));
    }
    auto source_index = [&](const IrIndex& t) {
      std::vector<llvm::Value*> index(t.rank());
      for (int64_t i = 0; i < t.rank(); ++i) {
        index[hero->dimensions(i)] = t[i];
      }
      return IrIndex(index, kernel.index_type());
    };
    // Phase 1: lanes along k (the operand's minor dimension).
    HLOC_RETURN_IF_ERROR(for_tile(
        /*lanes_along_k=*/true,
        [&](llvm::Value* k, llvm::Value* j, llvm::Value* tk_off,
            llvm::Value* tj_off) -> absl::Status {
          const IrIndex t = at(k, j);
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, hero_gen(t));
          b->CreateStore(v, slot(tj_off, tk_off));
          for (auto& [o, gen] : at_source) {
            const IrIndex s = source_index(t);
            HLOC_ASSIGN_OR_RETURN(llvm::Value * w, gen(s));
            HLOC_RETURN_IF_ERROR(kernel.output(o).EmitWrite(s, w, b));
          }
          return absl::OkStatus();
        }));
    kernel.target().EmitBarrier(b);
    // Phase 2: lanes along j (the output's minor dimension); the hero's
    // value comes from the tile.
    auto current = std::make_shared<std::pair<llvm::Value*, llvm::Value*>>();
    if (info.fused) {
      kernel.generators().Bind(
          hero,
          [current, type, &slot,
           b](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
            return b->CreateLoad(type, slot(current->second, current->first));
          });
    }
    HLOC_ASSIGN_OR_RETURN(
        ElementGenerator out_gen,
        kernel.generators().ForOutput(info.outputs[transposed]));
    return for_tile(
        /*lanes_along_k=*/false,
        [&](llvm::Value* k, llvm::Value* j, llvm::Value* tk_off,
            llvm::Value* tj_off) -> absl::Status {
          *current = {tk_off, tj_off};
          IrIndex index = at(k, j);
          llvm::Value* v;
          if (info.fused) {
            HLOC_ASSIGN_OR_RETURN(v, out_gen(index));
          } else {
            v = b->CreateLoad(type, slot(tj_off, tk_off));
          }
          return kernel.output(transposed).EmitWrite(index, v, b);
        });
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return dims;
}

}  // namespace hloc
