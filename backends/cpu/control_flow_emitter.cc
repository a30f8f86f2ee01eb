#include "backends/cpu/control_flow_emitter.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "runtime/buffer_assignment.h"

namespace hloc {
namespace {

// Where one array leaf of a value of a called computation lives.
struct LeafRef {
  enum class Kind { kParameter, kArena, kConstant, kToken };
  Kind kind = Kind::kToken;
  int64_t index = 0;  // kParameter: flat parameter leaf; kArena: byte offset
  llvm::GlobalVariable* constant = nullptr;
  int64_t bytes = 0;
};

// A kernel call: the symbol and its buffers (operand leaves, then output
// leaves).
struct KernelCall {
  std::string symbol;
  std::vector<LeafRef> buffers;
};

// A called computation compiled to kernel calls.
struct ComputationPlan {
  std::vector<KernelCall> calls;
  std::vector<LeafRef> root;
  int64_t arena_bytes = 0;
  int64_t max_buffers = 0;
};

void Leaves(const Shape& shape, std::vector<const Shape*>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) Leaves(s, out);
  } else {
    out->push_back(&shape);
  }
}

int64_t LeafCount(const Shape& shape) {
  std::vector<const Shape*> leaves;
  Leaves(shape, &leaves);
  return leaves.size();
}

int64_t LeafBytes(const Shape& shape) {
  return shape.IsArray()
             ? shape.ElementCount() * ByteWidth(shape.element_type())
             : 0;
}

absl::Status CheckLeaves(const HloInstruction& instr) {
  std::vector<const Shape*> leaves;
  Leaves(instr.shape(), &leaves);
  for (const Shape* s : leaves) {
    if (s->IsToken()) continue;
    if (!s->IsArray() || !s->is_static() ||
        (s->has_layout() && !s->layout().IsPlain())) {
      return OpUnimplemented(instr, "shape of a value in a called computation");
    }
  }
  return absl::OkStatus();
}

// The bytes of an array literal laid out as `shape` (plain layout) says.
std::string LayoutBytes(const Literal& literal, const Shape& shape) {
  const int64_t width = ByteWidth(shape.element_type());
  std::string out(LeafBytes(shape), '\0');
  if (shape.HasDescendingLayout() || shape.rank() <= 1) {
    std::memcpy(out.data(), literal.untyped_data(), out.size());
    return out;
  }
  const std::vector<int64_t> strides = LayoutStrides(shape);
  const uint8_t* src = literal.untyped_data();
  ForEachIndex(shape.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(out.data() + offset * width, src, width);
    src += width;
    return true;
  });
  return out;
}

void ConstantLeaves(const Literal& literal, const Shape& shape,
                    const std::string& name, llvm::Module* module,
                    std::vector<LeafRef>* out) {
  if (shape.IsTuple()) {
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      ConstantLeaves(literal.tuple_elements()[i], shape.tuple_shapes(i), name,
                     module, out);
    }
    return;
  }
  LeafRef ref;
  ref.bytes = LeafBytes(shape);
  if (shape.IsArray()) {
    std::string bytes = LayoutBytes(literal, shape);
    llvm::Constant* data = llvm::ConstantDataArray::getRaw(
        llvm::StringRef(bytes.data(), bytes.size()), bytes.size(),
        llvm::Type::getInt8Ty(module->getContext()));
    auto* global =
        new llvm::GlobalVariable(*module, data->getType(), /*isConstant=*/true,
                                 llvm::GlobalValue::PrivateLinkage, data, name);
    global->setAlignment(llvm::Align(64));
    ref.kind = LeafRef::Kind::kConstant;
    ref.constant = global;
  }
  out->push_back(ref);
}

// Whether `instr` compiles to a kernel call: the rest name buffers
// (IsBufferAlias), hold data, or make a token.
bool RunsAsKernel(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kAfterAll:
      return false;
    default:
      return !IsBufferAlias(instr);
  }
}

// `loop_body`: the computation is a while body whose one parameter is the
// loop state, which the kernel owns: a new state leaf goes straight into
// its state leaf's buffer where nothing reads the old one afterwards, and
// a dynamic-update-slice of a state leaf then stores just its update
// (buffer_assignment.h, loop_state_in_place). The instruction order and
// the reuse of the arena are the buffer plan's too.
absl::StatusOr<ComputationPlan> PlanComputation(
    const HloComputation& computation, const std::string& prefix,
    const OpEmitterContext& ctx, bool loop_body) {
  ComputationPlan plan;
  std::vector<int64_t> first_leaf;
  int64_t flat = 0;
  for (int64_t p = 0; p < computation.num_parameters(); ++p) {
    first_leaf.push_back(flat);
    flat += LeafCount(computation.parameter_instruction(p)->shape());
  }
  for (const HloInstruction* instr : computation.instructions()) {
    HLOC_RETURN_IF_ERROR(CheckLeaves(*instr));
  }
  BufferAssignmentOptions options;
  options.loop_state_in_place = loop_body;
  std::vector<HloInstruction*> order;
  if (loop_body) {
    HLOC_ASSIGN_OR_RETURN(order, LoopBodyOrder(computation, options));
  } else {
    order = computation.MakeInstructionPostOrder();
  }
  HLOC_ASSIGN_OR_RETURN(BufferAssignment a,
                        AssignBuffers(computation, order, options));
  // Where each value lives: the plan's arena offsets, and after them the
  // values the computation returns (the caller copies them out).
  plan.arena_bytes = a.arena_bytes();
  absl::flat_hash_map<const HloInstruction*, std::vector<LeafRef>> constants;
  std::vector<LeafRef> refs;
  for (const BufferValue& v : a.values) {
    LeafRef ref;
    ref.bytes = v.size;
    const HloInstruction* instr = v.instruction;
    if (v.shape.IsToken()) {
      ref.kind = LeafRef::Kind::kToken;
    } else if (instr->opcode() == HloOpcode::kParameter) {
      ref.kind = LeafRef::Kind::kParameter;
      ref.index = first_leaf[instr->parameter_number()] + v.leaf;
    } else if (v.state_of >= 0) {
      ref.kind = LeafRef::Kind::kParameter;
      ref.index = a.values[v.state_of].leaf;
    } else if (instr->opcode() == HloOpcode::kConstant) {
      auto [it, added] = constants.try_emplace(instr);
      if (added) {
        ConstantLeaves(instr->literal(), instr->shape(),
                       absl::StrCat(prefix, ".", instr->name()), ctx.module,
                       &it->second);
      }
      ref = it->second[v.leaf];
    } else if (v.allocation == 0) {
      ref.kind = LeafRef::Kind::kArena;
      ref.index = v.offset;
    } else {
      ref.kind = LeafRef::Kind::kArena;
      ref.index = plan.arena_bytes;
      plan.arena_bytes += (v.size + 63) / 64 * 64;
    }
    refs.push_back(ref);
  }
  auto leaves = [&](const HloInstruction* instr) {
    std::vector<LeafRef> out;
    for (int64_t v : a.LeafValues(instr)) out.push_back(refs[v]);
    return out;
  };
  for (const HloInstruction* instr : order) {
    if (!RunsAsKernel(*instr)) continue;
    KernelCall call;
    const std::string name = absl::StrCat(prefix, ".", instr->name());
    if (UpdatesOperandInPlace(*instr, a)) {
      HLOC_ASSIGN_OR_RETURN(call.symbol, ctx.emit_in_place_update_kernel(
                                             *instr, name + ".in_place"));
    } else {
      HLOC_ASSIGN_OR_RETURN(call.symbol, ctx.emit_kernel(*instr, name));
    }
    for (const HloInstruction* operand : instr->operands()) {
      const std::vector<LeafRef> l = leaves(operand);
      call.buffers.insert(call.buffers.end(), l.begin(), l.end());
    }
    const std::vector<LeafRef> out = leaves(instr);
    call.buffers.insert(call.buffers.end(), out.begin(), out.end());
    plan.max_buffers = std::max<int64_t>(plan.max_buffers, call.buffers.size());
    plan.calls.push_back(std::move(call));
  }
  plan.root = leaves(computation.root_instruction());
  return plan;
}

// Emits a kernel's buffer pointers and runs the control flow at b.
class ControlFlowKernel {
 public:
  ControlFlowKernel(llvm::Module* module, const std::string& symbol,
                    int64_t num_buffers)
      : module_(module), b_(module->getContext()) {
    llvm::LLVMContext& ctx = module->getContext();
    llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
    fn_ = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
        llvm::GlobalValue::ExternalLinkage, symbol, module);
    fn_->setDoesNotThrow();
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn_));
    for (int64_t i = 0; i < num_buffers; ++i) {
      buffers_.push_back(b_.CreateLoad(
          ptr, b_.CreateConstInBoundsGEP1_64(ptr, fn_->getArg(0), i)));
    }
  }

  llvm::IRBuilderBase* b() { return &b_; }
  llvm::Function* fn() { return fn_; }
  llvm::Value* buffer(int64_t i) const { return buffers_[i]; }
  std::vector<llvm::Value*> buffers(int64_t begin, int64_t count) const {
    return std::vector<llvm::Value*>(buffers_.begin() + begin,
                                     buffers_.begin() + begin + count);
  }

  // The scratch arena for `plans` plus `extra` bytes; the array kernel
  // calls pass their buffers in.
  void Allocate(const std::vector<const ComputationPlan*>& plans,
                int64_t extra) {
    int64_t arena = 0, max_buffers = 1;
    for (const ComputationPlan* p : plans) {
      arena = std::max(arena, p->arena_bytes);
      max_buffers = std::max(max_buffers, p->max_buffers);
    }
    extra_offset_ = arena;
    arena_ = EmitAlignedMalloc(b_.getInt64(arena + extra), &b_);
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(),
                      fn_->getEntryBlock().getFirstInsertionPt());
    call_array_ = b_.CreateAlloca(
        llvm::ArrayType::get(b_.getPtrTy(), max_buffers), nullptr, "args");
  }
  // Byte `offset` of the space after the plans' arena.
  llvm::Value* Extra(int64_t offset) {
    return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), arena_,
                                         extra_offset_ + offset);
  }

  llvm::Value* Pointer(const LeafRef& ref,
                       const std::vector<llvm::Value*>& params) {
    switch (ref.kind) {
      case LeafRef::Kind::kParameter:
        return params[ref.index];
      case LeafRef::Kind::kArena:
        return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), arena_, ref.index);
      case LeafRef::Kind::kConstant:
        return ref.constant;
      case LeafRef::Kind::kToken:
        break;
    }
    return llvm::ConstantPointerNull::get(b_.getPtrTy());
  }

  // Runs `plan` on parameter leaves `params`; returns its root leaves.
  std::vector<llvm::Value*> Run(const ComputationPlan& plan,
                                const std::vector<llvm::Value*>& params) {
    llvm::Type* ptr = b_.getPtrTy();
    for (const KernelCall& call : plan.calls) {
      for (size_t i = 0; i < call.buffers.size(); ++i) {
        b_.CreateStore(Pointer(call.buffers[i], params),
                       b_.CreateConstInBoundsGEP1_64(ptr, call_array_, i));
      }
      llvm::FunctionCallee callee = module_->getOrInsertFunction(
          call.symbol, llvm::FunctionType::get(b_.getVoidTy(), {ptr}, false));
      b_.CreateCall(callee, {call_array_});
    }
    std::vector<llvm::Value*> root;
    for (const LeafRef& ref : plan.root) root.push_back(Pointer(ref, params));
    return root;
  }

  void Copy(llvm::Value* dst, llvm::Value* src, int64_t bytes) {
    if (bytes > 0)
      b_.CreateMemMove(dst, llvm::MaybeAlign(), src, llvm::MaybeAlign(), bytes);
  }

  // Copy, unless `dst` is `src`: a caller's buffer plan may start a loop's
  // state where its init was made (in_place_while_state).
  void CopyIfApart(llvm::Value* dst, llvm::Value* src, int64_t bytes) {
    if (bytes <= 0) return;
    llvm::Value* length = b_.CreateSelect(b_.CreateICmpEQ(dst, src),
                                          b_.getInt64(0), b_.getInt64(bytes));
    b_.CreateMemMove(dst, llvm::MaybeAlign(), src, llvm::MaybeAlign(), length);
  }

  void Finish() {
    if (arena_ != nullptr) EmitFree(arena_, &b_);
    b_.CreateRetVoid();
  }

 private:
  llvm::Module* module_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_;
  std::vector<llvm::Value*> buffers_;
  llvm::Value* arena_ = nullptr;
  llvm::Value* call_array_ = nullptr;
  int64_t extra_offset_ = 0;
};

std::vector<int64_t> LeafSizes(const Shape& shape) {
  std::vector<const Shape*> leaves;
  Leaves(shape, &leaves);
  std::vector<int64_t> bytes;
  for (const Shape* s : leaves) bytes.push_back(LeafBytes(*s));
  return bytes;
}

int64_t OperandLeafCount(const HloInstruction& hlo) {
  int64_t n = 0;
  for (const HloInstruction* operand : hlo.operands()) {
    n += LeafCount(operand->shape());
  }
  return n;
}

absl::Status EmitWhile(const HloInstruction& hlo, const std::string& symbol,
                       const OpEmitterContext& ctx) {
  HLOC_ASSIGN_OR_RETURN(
      ComputationPlan cond,
      PlanComputation(*hlo.while_condition(), symbol + ".cond", ctx,
                      /*loop_body=*/false));
  HLOC_ASSIGN_OR_RETURN(
      ComputationPlan body,
      PlanComputation(*hlo.while_body(), symbol + ".body", ctx,
                      /*loop_body=*/true));
  const std::vector<int64_t> sizes = LeafSizes(hlo.shape());
  const int64_t n = sizes.size();
  if (cond.root.size() != 1 || static_cast<int64_t>(body.root.size()) != n ||
      OperandLeafCount(hlo) != n) {
    return OpUnimplemented(hlo, "while signature");
  }
  // Result leaves that are other state leaves go through the arena first.
  std::vector<int64_t> staging(n, -1);
  int64_t staging_bytes = 0;
  for (int64_t j = 0; j < n; ++j) {
    const LeafRef& r = body.root[j];
    if (r.kind == LeafRef::Kind::kParameter && r.index != j) {
      staging[j] = staging_bytes;
      staging_bytes += (sizes[j] + 63) / 64 * 64;
    }
  }
  ControlFlowKernel k(ctx.module, symbol, 2 * n);
  llvm::IRBuilderBase* b = k.b();
  k.Allocate({&cond, &body}, staging_bytes);
  std::vector<llvm::Value*> state = k.buffers(n, n);
  for (int64_t j = 0; j < n; ++j)
    k.CopyIfApart(state[j], k.buffer(j), sizes[j]);
  // Before each body run the loop asks the runtime whether to stop (an
  // iteration limit, runtime/while_limit.h), giving its name and the number
  // of body runs so far.
  llvm::Value* iteration =
      b->CreateAlloca(b->getInt64Ty(), nullptr, "iteration");
  b->CreateStore(b->getInt64(0), iteration);
  llvm::Value* loop_name =
      b->CreateGlobalStringPtr(hlo.name(), symbol + ".loop_name");
  llvm::FunctionCallee ask = ctx.module->getOrInsertFunction(
      "hloc_while_iteration",
      llvm::FunctionType::get(b->getInt32Ty(), {b->getPtrTy(), b->getInt64Ty()},
                              false));
  llvm::LLVMContext& context = ctx.module->getContext();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context, "cond", k.fn());
  llvm::BasicBlock* ask_bb = llvm::BasicBlock::Create(context, "ask", k.fn());
  llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(context, "body", k.fn());
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context, "exit", k.fn());
  b->CreateBr(header);
  b->SetInsertPoint(header);
  std::vector<llvm::Value*> pred = k.Run(cond, state);
  llvm::Value* go =
      b->CreateICmpNE(b->CreateLoad(b->getInt8Ty(), pred[0]), b->getInt8(0));
  b->CreateCondBr(go, ask_bb, exit);
  b->SetInsertPoint(ask_bb);
  llvm::Value* runs = b->CreateLoad(b->getInt64Ty(), iteration);
  llvm::Value* stop = b->CreateCall(ask, {loop_name, runs});
  b->CreateStore(b->CreateAdd(runs, b->getInt64(1)), iteration);
  b->CreateCondBr(b->CreateICmpNE(stop, b->getInt32(0)), exit, body_bb);
  b->SetInsertPoint(body_bb);
  std::vector<llvm::Value*> result = k.Run(body, state);
  for (int64_t j = 0; j < n; ++j) {
    if (staging[j] < 0) continue;
    llvm::Value* stage = k.Extra(staging[j]);
    k.Copy(stage, result[j], sizes[j]);
    result[j] = stage;
  }
  for (int64_t j = 0; j < n; ++j) {
    const LeafRef& r = body.root[j];
    if (r.kind == LeafRef::Kind::kParameter && r.index == j) continue;
    k.Copy(state[j], result[j], sizes[j]);
  }
  b->CreateBr(header);
  b->SetInsertPoint(exit);
  k.Finish();
  return absl::OkStatus();
}

absl::Status EmitConditional(const HloInstruction& hlo,
                             const std::string& symbol,
                             const OpEmitterContext& ctx) {
  const std::vector<HloComputation*>& branches = hlo.called_computations();
  const int64_t nb = branches.size();
  const PrimitiveType index_type = hlo.operand(0)->shape().element_type();
  if (nb == 0 || hlo.operand_count() != nb + 1 ||
      !hlo.operand(0)->shape().IsArray() ||
      (index_type != PRED && index_type != S32)) {
    return OpUnimplemented(hlo, "malformed conditional");
  }
  std::vector<ComputationPlan> plans;
  for (int64_t i = 0; i < nb; ++i) {
    HLOC_ASSIGN_OR_RETURN(
        ComputationPlan plan,
        PlanComputation(*branches[i], absl::StrCat(symbol, ".branch", i), ctx,
                        /*loop_body=*/false));
    plans.push_back(std::move(plan));
  }
  const std::vector<int64_t> sizes = LeafSizes(hlo.shape());
  const int64_t n = sizes.size();
  const int64_t inputs = OperandLeafCount(hlo);
  ControlFlowKernel k(ctx.module, symbol, inputs + n);
  llvm::IRBuilderBase* b = k.b();
  std::vector<const ComputationPlan*> plan_ptrs;
  for (const ComputationPlan& p : plans) plan_ptrs.push_back(&p);
  k.Allocate(plan_ptrs, 0);
  llvm::Value* index;
  if (index_type == PRED) {
    // true -> branch 0, false -> branch 1.
    index = b->CreateZExt(
        b->CreateICmpEQ(b->CreateLoad(b->getInt8Ty(), k.buffer(0)),
                        b->getInt8(0)),
        b->getInt32Ty());
  } else {
    llvm::Value* i = b->CreateLoad(b->getInt32Ty(), k.buffer(0));
    index = b->CreateSelect(b->CreateICmpULT(i, b->getInt32(nb)), i,
                            b->getInt32(nb - 1));
  }
  llvm::LLVMContext& context = ctx.module->getContext();
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context, "done", k.fn());
  std::vector<llvm::BasicBlock*> blocks;
  for (int64_t i = 0; i < nb; ++i) {
    blocks.push_back(
        llvm::BasicBlock::Create(context, absl::StrCat("branch", i), k.fn()));
  }
  llvm::SwitchInst* sw = b->CreateSwitch(index, blocks.back(), nb - 1);
  for (int64_t i = 0; i + 1 < nb; ++i) sw->addCase(b->getInt32(i), blocks[i]);
  int64_t first = 1;
  for (int64_t i = 0; i < nb; ++i) {
    b->SetInsertPoint(blocks[i]);
    const int64_t count = LeafCount(hlo.operand(1 + i)->shape());
    std::vector<llvm::Value*> result = k.Run(plans[i], k.buffers(first, count));
    if (static_cast<int64_t>(result.size()) != n) {
      return OpUnimplemented(hlo, "branch result");
    }
    for (int64_t j = 0; j < n; ++j) {
      k.Copy(k.buffer(inputs + j), result[j], sizes[j]);
    }
    b->CreateBr(done);
    first += count;
  }
  b->SetInsertPoint(done);
  k.Finish();
  return absl::OkStatus();
}

absl::Status EmitCall(const HloInstruction& hlo, const std::string& symbol,
                      const OpEmitterContext& ctx) {
  HLOC_ASSIGN_OR_RETURN(
      ComputationPlan plan,
      PlanComputation(*hlo.to_apply(), symbol + ".callee", ctx,
                      /*loop_body=*/false));
  const std::vector<int64_t> sizes = LeafSizes(hlo.shape());
  const int64_t n = sizes.size();
  const int64_t inputs = OperandLeafCount(hlo);
  if (static_cast<int64_t>(plan.root.size()) != n) {
    return OpUnimplemented(hlo, "call result");
  }
  ControlFlowKernel k(ctx.module, symbol, inputs + n);
  k.Allocate({&plan}, 0);
  std::vector<llvm::Value*> result = k.Run(plan, k.buffers(0, inputs));
  for (int64_t j = 0; j < n; ++j) {
    k.Copy(k.buffer(inputs + j), result[j], sizes[j]);
  }
  k.Finish();
  return absl::OkStatus();
}

}  // namespace

bool IsControlFlow(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      return true;
    default:
      return false;
  }
}

absl::Status EmitControlFlowKernel(const HloInstruction& hlo,
                                   const std::string& symbol,
                                   const OpEmitterContext& ctx) {
  for (const HloInstruction* operand : hlo.operands()) {
    HLOC_RETURN_IF_ERROR(CheckLeaves(*operand));
  }
  HLOC_RETURN_IF_ERROR(CheckLeaves(hlo));
  switch (hlo.opcode()) {
    case HloOpcode::kWhile:
      return EmitWhile(hlo, symbol, ctx);
    case HloOpcode::kConditional:
      return EmitConditional(hlo, symbol, ctx);
    case HloOpcode::kCall:
      return EmitCall(hlo, symbol, ctx);
    default:
      return OpUnimplemented(hlo, "not control flow");
  }
}

}  // namespace hloc
