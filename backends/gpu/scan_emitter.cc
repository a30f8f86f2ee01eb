// Scan (what JAX emits for cumsum/cumprod/cummax, directly or through
// reduce-window-to-scan). With an associative single-op body: along the
// physically minor dimension a warp per row (row_scan_emitter.cc); along
// another one, where the columns are too few to keep the memory busy, a
// block per tile of columns, split along their length
// (column_scan_emitter.cc).
// Otherwise a thread per element of the slice (every dimension but the
// scan dimension) walks the scan dimension in order (backwards for
// is_reverse), carrying its carries in registers: along a major dimension
// adjacent threads read adjacent columns, so this is coalesced. A thread
// issues the loads of a chunk of steps together before it runs the body
// on them in order, so a walk down a long column is not one memory
// latency per step. The body is
// inlined per element, so it must be elementwise (its ops apply lane by
// lane to the slice). Sequential along the scan dimension: exactly the
// evaluator's order, with no reassociation.
#include <algorithm>

#include "backends/common/loop_emitter.h"
#include "backends/common/scan_analysis.h"
#include "backends/gpu/column_scan_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/loop_mapping.h"
#include "backends/gpu/row_scan_emitter.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// A body, one scan dimension, and a tuple of results and carries.
bool IsWellFormedScan(const HloInstruction& scan) {
  return scan.to_apply() != nullptr && scan.dimensions().size() == 1 &&
         scan.shape().IsTuple();
}

}  // namespace

int ScanKernelSteps(const KernelRequest& request, const HloInstruction* scan) {
  if (IsWellFormedScan(*scan) && IsRowScan(*scan, *request.info)) {
    return RowScanKernelSteps(request, *scan);
  }
  return 1;
}

absl::StatusOr<LaunchDims> EmitScanKernel(const KernelRequest& request,
                                          const HloInstruction* scan,
                                          int step) {
  const KernelInfo& info = *request.info;
  const HloComputation* body = scan->to_apply();
  if (!IsWellFormedScan(*scan)) {
    return CodegenUnimplemented(*scan, "malformed scan");
  }
  if (IsRowScan(*scan, info)) return EmitRowScanKernel(request, scan, step);
  if (IsSplitColumnScan(*scan, info, request.target->device())) {
    return EmitSplitColumnScanKernel(request, scan);
  }
  if (!IsElementwiseScanBody(body)) {
    return CodegenUnimplemented(*scan, "scan body is not elementwise");
  }
  const int64_t num_carries = NumScanCarries(*scan);
  const int64_t num_inputs = scan->operand_count() - num_carries;
  const int64_t num_outputs =
      static_cast<int64_t>(info.output_shapes.size()) - num_carries;
  const int64_t dim = scan->dimensions(0);
  const Shape& first = scan->operand(0)->shape();
  if (num_inputs < 1 || num_outputs < 0 || dim < 0 || dim >= first.rank() ||
      body->num_parameters() != scan->operand_count()) {
    return CodegenUnimplemented(*scan, "malformed scan");
  }
  const int64_t length = first.dimensions(dim);
  std::vector<int64_t> slice_dims = first.dimensions();
  slice_dims.erase(slice_dims.begin() + dim);
  const Shape slice = Shape::Array(first.element_type(), slice_dims);
  // One slice element per thread (no unrolling: the walks of neighbouring
  // elements share nothing a thread could reuse).
  constexpr int64_t kThreadsPerBlock = 128;
  // Elements whose loads a thread issues together: 16 values of its inputs
  // in flight (8 each of a pair such as an associative scan's (a, b)).
  constexpr int64_t kLoadsInFlight = 16;
  const int64_t chunk = std::clamp<int64_t>(
      kLoadsInFlight / std::max<int64_t>(1, num_inputs), 1, kLoadsInFlight);
  LoopLaunch launch;
  launch.elements = slice.ElementCount();
  launch.unroll = 1;
  // Whole warps (the threads past the slice's end do nothing).
  const int64_t warp = request.target->device().warp_size;
  launch.threads_per_block = std::min(
      kThreadsPerBlock, RoundUpTo(std::max<int64_t>(launch.elements, 1), warp));
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = CeilOfRatio(launch.elements, launch.threads_per_block);
  bool index64 = MaxElementsTouched(info) > (int64_t{1} << 31) - 1;
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    std::vector<ElementGenerator> operands;
    for (int64_t i = 0; i < scan->operand_count(); ++i) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                            kernel.generators().Get(scan->operand(i)));
      operands.push_back(std::move(g));
    }
    std::vector<llvm::Value*> carry_slots;
    std::vector<llvm::Type*> carry_types;
    for (int64_t c = 0; c < num_carries; ++c) {
      HLOC_ASSIGN_OR_RETURN(
          llvm::Type * t,
          RegisterType(scan->operand(num_inputs + c)->shape().element_type(),
                       b->getContext()));
      carry_types.push_back(t);
      carry_slots.push_back(EmitAllocaAtEntry(t, "carry", b));
    }
    auto body_at = [&](const IrIndex& s) -> absl::Status {
      const IrIndex at_slice(s.multidim(), kernel.index_type());
      for (int64_t c = 0; c < num_carries; ++c) {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                              operands[num_inputs + c](at_slice));
        b->CreateStore(v, carry_slots[c]);
      }
      // The element at `step` of the walk, and its inputs.
      struct Element {
        IrIndex at;
        std::vector<llvm::Value*> inputs;
      };
      auto load = [&](llvm::Value* step) -> absl::StatusOr<Element> {
        llvm::Value* pos = scan->attrs().is_reverse
                               ? b->CreateSub(kernel.Index(length - 1), step)
                               : step;
        std::vector<llvm::Value*> full = s.multidim();
        full.insert(full.begin() + dim, pos);
        Element e{IrIndex(full, kernel.index_type()), {}};
        for (int64_t i = 0; i < num_inputs; ++i) {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, operands[i](e.at));
          e.inputs.push_back(v);
        }
        return e;
      };
      // The body on one element, in walk order: outputs and carries.
      auto apply = [&](const Element& e) -> absl::Status {
        const IrIndex& at = e.at;
        std::vector<llvm::Value*> args = e.inputs;
        for (int64_t c = 0; c < num_carries; ++c) {
          args.push_back(b->CreateLoad(carry_types[c], carry_slots[c]));
        }
        HLOC_ASSIGN_OR_RETURN(
            llvm::Value * r,
            kernel.elemental()->EmitScalarComputation(body, args));
        auto part = [&](int64_t k) {
          return !body->root_instruction()->shape().IsTuple()
                     ? r
                     : b->CreateExtractValue(r, {static_cast<unsigned>(k)});
        };
        for (int64_t o = 0; o < num_outputs; ++o) {
          HLOC_RETURN_IF_ERROR(kernel.output(o).EmitWrite(at, part(o), b));
        }
        for (int64_t c = 0; c < num_carries; ++c) {
          b->CreateStore(part(num_outputs + c), carry_slots[c]);
        }
        return absl::OkStatus();
      };
      // Steps of `chunk` elements: the chunk's loads are issued together
      // (independent of the carries, so in flight at once), then the body
      // runs on them in order. One load at a time, a walk down 5000 rows
      // waited for memory 5000 times.
      const int64_t main_steps = length / chunk * chunk;
      if (main_steps > 0) {
        HLOC_RETURN_IF_ERROR(EmitForLoop(
            "scan", kernel.Index(0), kernel.Index(main_steps),
            kernel.Index(chunk),
            [&](llvm::Value* base) -> absl::Status {
              std::vector<Element> elements;
              for (int64_t u = 0; u < chunk; ++u) {
                HLOC_ASSIGN_OR_RETURN(
                    Element e, load(u == 0 ? base
                                           : b->CreateAdd(base, kernel.Index(u),
                                                          "", true, true)));
                elements.push_back(std::move(e));
              }
              for (const Element& e : elements) {
                HLOC_RETURN_IF_ERROR(apply(e));
              }
              return absl::OkStatus();
            },
            b));
      }
      if (main_steps < length) {
        HLOC_RETURN_IF_ERROR(EmitForLoop(
            "scan_rest", kernel.Index(main_steps), kernel.Index(length),
            kernel.Index(1),
            [&](llvm::Value* step) -> absl::Status {
              HLOC_ASSIGN_OR_RETURN(Element e, load(step));
              return apply(e);
            },
            b));
      }
      for (int64_t c = 0; c < num_carries; ++c) {
        llvm::Value* v = b->CreateLoad(carry_types[c], carry_slots[c]);
        HLOC_RETURN_IF_ERROR(
            kernel.output(num_outputs + c).EmitWrite(at_slice, v, b));
      }
      return absl::OkStatus();
    };
    GpuLoopMapping mapping(&kernel, launch);
    return mapping.EmitLoopNest(slice, body_at, b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc
