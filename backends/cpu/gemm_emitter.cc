#include "backends/cpu/gemm_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/common/loop_emitter.h"
#include "backends/cpu/kernel_util.h"
#include "backends/cpu/target_cpu.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace hloc {
namespace {

llvm::Type* AccLlvmType(PrimitiveType t, llvm::LLVMContext& ctx) {
  switch (t) {
    case F64:
      return llvm::Type::getDoubleTy(ctx);
    case S32:
      return llvm::Type::getInt32Ty(ctx);
    case S64:
      return llvm::Type::getInt64Ty(ctx);
    default:
      return llvm::Type::getFloatTy(ctx);
  }
}

int64_t AccBytes(PrimitiveType t) { return t == F64 || t == S64 ? 8 : 4; }

llvm::Value* SMin(llvm::Value* x, llvm::Value* y, llvm::IRBuilderBase* b) {
  return b->CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y);
}

llvm::Value* Mul(llvm::Value* x, int64_t c, llvm::IRBuilderBase* b) {
  return c == 1 ? x : b->CreateMul(x, b->getInt64(c), "", true, true);
}

llvm::Value* Add(llvm::Value* x, llvm::Value* y, llvm::IRBuilderBase* b) {
  return b->CreateAdd(x, y, "", true, true);
}

// void ukernel(ptr a, ptr b, i64 kc, ptr cin, i64 ldcin, ptr cout, i64 ldcout)
// The MR x NR tile C = (cin ? cin : 0) + Ap x Bp over kc, stored to cout.
// Ap is k-major with MR entries per k, Bp k-major with NR entries per k.
// The accumulators are loop-carried vector values (phis): with the tile
// sized to the register file they stay in registers. The k loop is
// unrolled by 4.
llvm::Function* EmitMicroKernel(llvm::Module* module, const std::string& name,
                                const GemmTiling& t, PrimitiveType acc) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* elem = AccLlvmType(acc, ctx);
  const int64_t vw = t.vector_width;
  const int64_t nr = t.nr();
  const int64_t mr = t.mr;
  llvm::VectorType* vec = llvm::FixedVectorType::get(elem, vw);
  const llvm::Align valign(std::min<int64_t>(64, vw * AccBytes(acc)));
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                              {ptr, ptr, i64, ptr, i64, ptr, i64}, false),
      llvm::GlobalValue::InternalLinkage, name, module);
  fn->setDoesNotThrow();
  // One copy, called from two places; its loop is unrolled here already.
  fn->addFnAttr(llvm::Attribute::NoInline);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(1, llvm::Attribute::NoAlias);
  // Keep the tile's vectors whole where the target prefers narrower ones.
  fn->addFnAttr("min-legal-vector-width",
                std::to_string(vw * AccBytes(acc) * 8));
  llvm::Value* a = fn->getArg(0);
  llvm::Value* bp = fn->getArg(1);
  llvm::Value* kc = fn->getArg(2);
  llvm::Value* cin = fn->getArg(3);
  llvm::Value* ldcin = fn->getArg(4);
  llvm::Value* cout = fn->getArg(5);
  llvm::Value* ldcout = fn->getArg(6);
  const bool is_float = acc == F32 || acc == F64;
  const int64_t n_acc = mr * t.nv;

  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  llvm::BasicBlock* load_bb = llvm::BasicBlock::Create(ctx, "load_c", fn);
  llvm::BasicBlock* zero_bb = llvm::BasicBlock::Create(ctx, "zero_c", fn);
  llvm::BasicBlock* pre = llvm::BasicBlock::Create(ctx, "pre", fn);
  llvm::BasicBlock* main_h = llvm::BasicBlock::Create(ctx, "k4.header", fn);
  llvm::BasicBlock* main_b = llvm::BasicBlock::Create(ctx, "k4.body", fn);
  llvm::BasicBlock* rem_h = llvm::BasicBlock::Create(ctx, "k1.header", fn);
  llvm::BasicBlock* rem_b = llvm::BasicBlock::Create(ctx, "k1.body", fn);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  llvm::IRBuilder<> b(entry);
  b.CreateCondBr(b.CreateIsNotNull(cin), load_bb, zero_bb);

  auto tile_ptr = [&](llvm::Value* base, llvm::Value* ld, int64_t r,
                      int64_t v) {
    llvm::Value* off = b.CreateAdd(b.CreateMul(b.getInt64(r), ld),
                                   b.getInt64(v * vw), "", true, true);
    return b.CreateInBoundsGEP(elem, base, off);
  };
  b.SetInsertPoint(load_bb);
  std::vector<llvm::Value*> loaded(n_acc);
  for (int64_t r = 0; r < mr; ++r) {
    for (int64_t v = 0; v < t.nv; ++v) {
      loaded[r * t.nv + v] =
          b.CreateAlignedLoad(vec, tile_ptr(cin, ldcin, r, v), valign);
    }
  }
  b.CreateBr(pre);
  b.SetInsertPoint(zero_bb);
  b.CreateBr(pre);

  b.SetInsertPoint(pre);
  std::vector<llvm::Value*> init(n_acc);
  llvm::Value* zero = llvm::Constant::getNullValue(vec);
  for (int64_t i = 0; i < n_acc; ++i) {
    llvm::PHINode* phi = b.CreatePHI(vec, 2);
    phi->addIncoming(loaded[i], load_bb);
    phi->addIncoming(zero, zero_bb);
    init[i] = phi;
  }
  constexpr int64_t kUnroll = 4;
  llvm::Value* kc_main = b.CreateAnd(kc, b.getInt64(~(kUnroll - 1)));
  b.CreateBr(main_h);

  // One k step on the accumulators.
  auto step = [&](llvm::Value* k, std::vector<llvm::Value*>& accs) {
    llvm::Value* kb = b.CreateMul(k, b.getInt64(nr), "", true, true);
    std::vector<llvm::Value*> bv(t.nv);
    for (int64_t v = 0; v < t.nv; ++v) {
      bv[v] = b.CreateAlignedLoad(
          vec,
          b.CreateInBoundsGEP(elem, bp, b.CreateAdd(kb, b.getInt64(v * vw))),
          valign);
    }
    llvm::Value* ka = b.CreateMul(k, b.getInt64(mr), "", true, true);
    for (int64_t r = 0; r < mr; ++r) {
      llvm::Value* s = b.CreateLoad(
          elem, b.CreateInBoundsGEP(elem, a, b.CreateAdd(ka, b.getInt64(r))));
      llvm::Value* splat = b.CreateVectorSplat(vw, s);
      for (int64_t v = 0; v < t.nv; ++v) {
        llvm::Value*& c = accs[r * t.nv + v];
        c = is_float ? b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {vec},
                                         {splat, bv[v], c})
                     : b.CreateAdd(c, b.CreateMul(splat, bv[v]));
      }
    }
  };

  // Main loop: k in [0, kc_main) by 4.
  b.SetInsertPoint(main_h);
  llvm::PHINode* k4 = b.CreatePHI(i64, 2, "k4");
  k4->addIncoming(b.getInt64(0), pre);
  std::vector<llvm::PHINode*> main_phis(n_acc);
  std::vector<llvm::Value*> accs(n_acc);
  for (int64_t i = 0; i < n_acc; ++i) {
    main_phis[i] = b.CreatePHI(vec, 2);
    main_phis[i]->addIncoming(init[i], pre);
    accs[i] = main_phis[i];
  }
  b.CreateCondBr(b.CreateICmpSLT(k4, kc_main), main_b, rem_h);
  b.SetInsertPoint(main_b);
  for (int64_t u = 0; u < kUnroll; ++u) {
    step(b.CreateAdd(k4, b.getInt64(u), "", true, true), accs);
  }
  k4->addIncoming(b.CreateAdd(k4, b.getInt64(kUnroll), "", true, true), main_b);
  for (int64_t i = 0; i < n_acc; ++i) {
    main_phis[i]->addIncoming(accs[i], main_b);
  }
  b.CreateBr(main_h);

  // Remainder: k in [kc_main, kc).
  b.SetInsertPoint(rem_h);
  llvm::PHINode* k1 = b.CreatePHI(i64, 2, "k1");
  k1->addIncoming(k4, main_h);
  std::vector<llvm::PHINode*> rem_phis(n_acc);
  for (int64_t i = 0; i < n_acc; ++i) {
    rem_phis[i] = b.CreatePHI(vec, 2);
    rem_phis[i]->addIncoming(main_phis[i], main_h);
    accs[i] = rem_phis[i];
  }
  b.CreateCondBr(b.CreateICmpSLT(k1, kc), rem_b, exit);
  b.SetInsertPoint(rem_b);
  step(k1, accs);
  k1->addIncoming(b.CreateAdd(k1, b.getInt64(1), "", true, true), rem_b);
  for (int64_t i = 0; i < n_acc; ++i) rem_phis[i]->addIncoming(accs[i], rem_b);
  b.CreateBr(rem_h);

  b.SetInsertPoint(exit);
  for (int64_t r = 0; r < mr; ++r) {
    for (int64_t v = 0; v < t.nv; ++v) {
      b.CreateAlignedStore(rem_phis[r * t.nv + v], tile_ptr(cout, ldcout, r, v),
                           valign);
    }
  }
  b.CreateRetVoid();
  DisableLoopUnrolling(fn);
  return fn;
}

}  // namespace

absl::StatusOr<PrimitiveType> GemmAccumulationType(PrimitiveType a,
                                                   PrimitiveType b,
                                                   PrimitiveType out) {
  bool floating = false, wide_float = false;
  for (PrimitiveType t : {a, b, out}) {
    if (IsComplexType(t)) {
      return absl::UnimplementedError("CPU codegen: complex contraction");
    }
    floating |= IsFloatingPointType(t);
    wide_float |= t == F64;
  }
  if (floating) return wide_float ? F64 : F32;
  return BitWidth(out) > 32 ? S64 : S32;
}

VectorTarget VectorTargetFor(const std::string& triple_name,
                             const std::string& cpu_features) {
  VectorTarget target;
  const bool host = triple_name.empty();
  llvm::Triple triple(host ? llvm::sys::getProcessTriple() : triple_name);
  TargetCpu cpu;
  if (host) {
    cpu.features = cpu_features;
    if (cpu.features.empty()) {
      // An unusable $HLOC_CPU fails the compilation in the JIT, clearly.
      absl::StatusOr<TargetCpu> resolved = ResolveTargetCpu();
      if (resolved.ok()) cpu = *std::move(resolved);
    }
  }
  auto has = [&](const char* f) { return cpu.Has(f); };
  if (triple.isAArch64()) {
    target.vector_bits = 128;
    target.registers = 32;
  } else if (has("avx512f")) {
    target.vector_bits = 512;
    target.registers = 32;
  } else if (has("avx")) {
    target.vector_bits = 256;
    target.registers = 16;
  }
  return target;
}

GemmTiling ChooseGemmTiling(const VectorTarget& target, PrimitiveType acc_type,
                            int64_t m, int64_t n, int64_t k) {
  GemmTiling t;
  const int64_t bytes = AccBytes(acc_type);
  t.vector_width = std::max<int64_t>(1, target.vector_bits / (8 * bytes));
  const int64_t vectors_needed =
      std::max<int64_t>(1, CeilOfRatio(n, t.vector_width));
  // Registers: mr * nv accumulators, nv B vectors, one broadcast.
  const int64_t regs = target.registers;
  const int64_t full_mr = regs >= 32 ? 12 : 6;
  if (m >= full_mr) {
    t.nv = std::min<int64_t>(2, vectors_needed);
    t.mr = std::min<int64_t>(full_mr, (regs - 1 - t.nv) / t.nv);
  } else {
    // Few rows: widen the tile so enough independent accumulators hide the
    // multiply-add latency.
    t.mr = std::max<int64_t>(1, m);
    t.nv = std::min<int64_t>(vectors_needed, 4);
    while (t.nv > 1 && t.mr * t.nv + t.nv + 1 > regs) --t.nv;
  }
  t.kc = std::max<int64_t>(1, std::min<int64_t>(1024 / bytes, k));
  t.nc = std::max<int64_t>(t.nr(), (2048 / bytes) / t.nr() * t.nr());
  t.mc_blocks = std::max<int64_t>(1, 120 / t.mr);
  t.chunk_blocks =
      t.mc_blocks * std::max<int64_t>(1, 1024 / (t.mc_blocks * t.mr));
  return t;
}

int64_t PaddedGemmWork(const GemmTiling& t, int64_t m, int64_t n, int64_t k) {
  return CeilOfRatio(m, t.mr) * t.mr * CeilOfRatio(n, t.nr()) * t.nr() *
         std::max<int64_t>(k, 1);
}

int64_t GemmWorkItems(const GemmSpec& spec, const GemmTiling& t) {
  if (spec.m == 0 || spec.n == 0) return 0;
  return spec.batch * CeilOfRatio(spec.n, t.nc) * CeilOfRatio(spec.m, t.mr);
}

namespace {

// The loops of EmitGemm's range function around the micro-kernel, one
// method per level (see gemm_emitter.h for the nest).
class GemmLoops {
 public:
  GemmLoops(const GemmSpec& spec, const GemmTiling& t, llvm::Function* range,
            llvm::IRBuilderBase* b)
      : spec_(spec),
        t_(t),
        b_(b),
        elem_(AccLlvmType(spec.acc_type, b->getContext())),
        esz_(AccBytes(spec.acc_type)),
        mr_(t.mr),
        nr_(t.nr()),
        row_blocks_(CeilOfRatio(spec.m, t.mr)),
        col_blocks_(CeilOfRatio(spec.n, t.nc)),
        k_blocks_(std::max<int64_t>(1, CeilOfRatio(spec.k, t.kc))),
        kc_max_(std::max<int64_t>(1, std::min(t.kc, spec.k))),
        ncp_(std::min(t.nc, CeilOfRatio(spec.n, t.nr()) * t.nr())),
        mc_blocks_(std::min(t.mc_blocks, row_blocks_)),
        chunk_blocks_(std::min(t.chunk_blocks, row_blocks_)) {
    ukernel_ = EmitMicroKernel(range->getParent(),
                               (range->getName() + ".ukernel").str(), t,
                               spec.acc_type);
  }

  // Work items [lo, hi): allocates the per-thread scratch, walks the runs,
  // frees.
  absl::Status Emit(llvm::Function* range) {
    llvm::Value* lo = range->getArg(range->arg_size() - 2);
    llvm::Value* hi = range->getArg(range->arg_size() - 1);
    ap_ = EmitAlignedMalloc(I(mc_blocks_ * mr_ * kc_max_ * esz_), b_);
    bp_ = EmitAlignedMalloc(I(kc_max_ * ncp_ * esz_), b_);
    // Partial sums between K blocks (none when K fits one block).
    cb_ = k_blocks_ > 1
              ? EmitAlignedMalloc(I(chunk_blocks_ * mr_ * ncp_ * esz_), b_)
              : llvm::ConstantPointerNull::get(b_->getPtrTy());
    {
      llvm::IRBuilderBase::InsertPointGuard guard(*b_);
      b_->SetInsertPoint(&range->getEntryBlock(),
                         range->getEntryBlock().getFirstInsertionPt());
      llvm::AllocaInst* tile = b_->CreateAlloca(
          llvm::ArrayType::get(elem_, mr_ * nr_), nullptr, "tile");
      tile->setAlignment(llvm::Align(64));
      tile_ = tile;
    }
    // Work item w = (g * col_blocks + jb) * row_blocks + rb; a thread's
    // items are walked in runs of one (g, jb).
    HLOC_RETURN_IF_ERROR(EmitWhileLoop(
        "run", lo, hi,
        [&](llvm::Value* w) -> absl::StatusOr<llvm::Value*> {
          llvm::Value* rb0 = b_->CreateURem(w, I(row_blocks_));
          llvm::Value* gj = b_->CreateUDiv(w, I(row_blocks_));
          llvm::Value* jb = b_->CreateURem(gj, I(col_blocks_));
          llvm::Value* g = b_->CreateUDiv(gj, I(col_blocks_));
          llvm::Value* run_end =
              SMin(hi, Mul(Add(gj, I(1), b_), row_blocks_, b_), b_);
          llvm::Value* rb1 = Add(rb0, b_->CreateSub(run_end, w), b_);
          HLOC_RETURN_IF_ERROR(Run(g, jb, rb0, rb1));
          return run_end;
        },
        b_));
    EmitFree(ap_, b_);
    EmitFree(bp_, b_);
    if (k_blocks_ > 1) EmitFree(cb_, b_);
    b_->CreateRetVoid();
    return absl::OkStatus();
  }

 private:
  llvm::Value* I(int64_t v) { return b_->getInt64(v); }
  llvm::Value* At(llvm::Value* base, llvm::Value* offset) {
    return b_->CreateInBoundsGEP(elem_, base, offset);
  }
  // Panel p of a packed block with kc values per row or column.
  llvm::Value* Panel(llvm::Value* base, llvm::Value* p, llvm::Value* kc,
                     int64_t width) {
    return At(base, b_->CreateMul(b_->CreateMul(p, kc), I(width)));
  }
  llvm::Value* Zero() { return llvm::Constant::getNullValue(elem_); }

  // Row blocks [rb0, rb1) of column block jb of batch g.
  absl::Status Run(llvm::Value* g, llvm::Value* jb, llvm::Value* rb0,
                   llvm::Value* rb1) {
    llvm::Value* j0 = Mul(jb, t_.nc, b_);
    llvm::Value* nc = SMin(I(t_.nc), b_->CreateSub(I(spec_.n), j0), b_);
    llvm::Value* panels = b_->CreateUDiv(b_->CreateAdd(nc, I(nr_ - 1)), I(nr_));
    return EmitForLoop(
        "chunk", rb0, rb1, I(chunk_blocks_),
        [&](llvm::Value* ch0) -> absl::Status {
          llvm::Value* ch1 = SMin(rb1, Add(ch0, I(chunk_blocks_), b_), b_);
          return EmitForLoop(
              "pc", I(0), I(k_blocks_), I(1),
              [&](llvm::Value* pci) -> absl::Status {
                KBlock kb;
                kb.pc = Mul(pci, t_.kc, b_);
                kb.kc = SMin(I(t_.kc), b_->CreateSub(I(spec_.k), kb.pc), b_);
                kb.first = b_->CreateICmpEQ(pci, I(0));
                kb.last = b_->CreateICmpEQ(pci, I(k_blocks_ - 1));
                HLOC_RETURN_IF_ERROR(PackB(g, j0, panels, kb));
                return EmitForLoop(
                    "ic", ch0, ch1, I(mc_blocks_),
                    [&](llvm::Value* ic0) -> absl::Status {
                      llvm::Value* ic1 =
                          SMin(ch1, Add(ic0, I(mc_blocks_), b_), b_);
                      HLOC_RETURN_IF_ERROR(PackA(g, ic0, ic1, kb));
                      return Tiles(g, ic0, ic1, ch0, j0, panels, kb);
                    },
                    b_);
              },
              b_);
        },
        b_);
  }

  struct KBlock {
    llvm::Value* pc;     // first k
    llvm::Value* kc;     // k values
    llvm::Value* first;  // no partial sums yet
    llvm::Value* last;   // the tiles are final
  };

  // B[g][pc:pc+kc, j0:j0+nc] into NR-wide panels: panel p, row kk at
  // bp[(p * kc + kk) * nr], zero-padded past N.
  absl::Status PackB(llvm::Value* g, llvm::Value* j0, llvm::Value* panels,
                     const KBlock& kb) {
    return EmitForLoop(
        "packb", I(0), panels, I(1),
        [&](llvm::Value* p) -> absl::Status {
          llvm::Value* jp = Add(j0, Mul(p, nr_, b_), b_);
          llvm::Value* cols = SMin(I(nr_), b_->CreateSub(I(spec_.n), jp), b_);
          llvm::Value* panel = Panel(bp_, p, kb.kc, nr_);
          HLOC_RETURN_IF_ERROR(
              spec_.pack_b_panel(g, kb.pc, kb.kc, jp, cols, panel, nr_, b_));
          return EmitIfThenElse(
              b_->CreateICmpSLT(cols, I(nr_)),
              [&]() {
                return EmitForLoop(
                    "packb.pad", I(0), kb.kc, I(1),
                    [&](llvm::Value* kk) {
                      llvm::Value* row = At(panel, Mul(kk, nr_, b_));
                      return EmitForLoop(
                          "packb.pad.t", cols, I(nr_), I(1),
                          [&](llvm::Value* t) {
                            b_->CreateStore(Zero(), At(row, t));
                            return absl::OkStatus();
                          },
                          b_);
                    },
                    b_);
              },
              nullptr, b_);
        },
        b_);
  }

  // A[g][rows of row blocks ic0..ic1, pc:pc+kc] into MR-tall panels: panel
  // (rb - ic0), row r at ap[panel * kc * mr + kk * mr + r], zero rows past M.
  absl::Status PackA(llvm::Value* g, llvm::Value* ic0, llvm::Value* ic1,
                     const KBlock& kb) {
    return EmitForLoop(
        "packa", ic0, ic1, I(1),
        [&](llvm::Value* rb) -> absl::Status {
          llvm::Value* panel = Panel(ap_, b_->CreateSub(rb, ic0), kb.kc, mr_);
          llvm::Value* i0 = Mul(rb, mr_, b_);
          llvm::Value* rows = SMin(I(mr_), b_->CreateSub(I(spec_.m), i0), b_);
          HLOC_RETURN_IF_ERROR(
              spec_.pack_a_panel(g, i0, rows, kb.pc, kb.kc, panel, mr_, b_));
          return EmitIfThenElse(
              b_->CreateICmpSLT(rows, I(mr_)),
              [&]() {
                return EmitForLoop(
                    "packa.pad", I(0), kb.kc, I(1),
                    [&](llvm::Value* kk) {
                      llvm::Value* col = At(panel, Mul(kk, mr_, b_));
                      return EmitForLoop(
                          "packa.pad.r", rows, I(mr_), I(1),
                          [&](llvm::Value* r) {
                            b_->CreateStore(Zero(), At(col, r));
                            return absl::OkStatus();
                          },
                          b_);
                    },
                    b_);
              },
              nullptr, b_);
        },
        b_);
  }

  // The register tiles of row blocks ic0..ic1 (A panel outer, so it stays
  // in L1 while the B panels stream from L2). Partial sums live in cb
  // (rows from the chunk start ch0); the last K block's tile goes through
  // the stack tile to store_c_row.
  absl::Status Tiles(llvm::Value* g, llvm::Value* ic0, llvm::Value* ic1,
                     llvm::Value* ch0, llvm::Value* j0, llvm::Value* panels,
                     const KBlock& kb) {
    return EmitForLoop(
        "ir", ic0, ic1, I(1),
        [&](llvm::Value* rb) -> absl::Status {
          llvm::Value* a_panel = Panel(ap_, b_->CreateSub(rb, ic0), kb.kc, mr_);
          llvm::Value* i0 = Mul(rb, mr_, b_);
          llvm::Value* rows = SMin(I(mr_), b_->CreateSub(I(spec_.m), i0), b_);
          return EmitForLoop(
              "jr", I(0), panels, I(1),
              [&](llvm::Value* p) -> absl::Status {
                llvm::Value* b_panel = Panel(bp_, p, kb.kc, nr_);
                llvm::Value* jp = Add(j0, Mul(p, nr_, b_), b_);
                llvm::Value* c_tile =
                    k_blocks_ > 1
                        ? At(cb_, Add(Mul(Mul(b_->CreateSub(rb, ch0), mr_, b_),
                                          ncp_, b_),
                                      Mul(p, nr_, b_), b_))
                        : cb_;
                llvm::Value* cin = b_->CreateSelect(
                    kb.first, llvm::ConstantPointerNull::get(b_->getPtrTy()),
                    c_tile);
                return EmitIfThenElse(
                    kb.last,
                    [&]() -> absl::Status {
                      b_->CreateCall(ukernel_, {a_panel, b_panel, kb.kc, cin,
                                                I(ncp_), tile_, I(nr_)});
                      llvm::Value* count =
                          SMin(I(nr_), b_->CreateSub(I(spec_.n), jp), b_);
                      return EmitForLoop(
                          "store", I(0), rows, I(1),
                          [&](llvm::Value* r) {
                            return spec_.store_c_row(
                                g, Add(i0, r, b_), jp, count,
                                At(tile_, Mul(r, nr_, b_)), b_);
                          },
                          b_);
                    },
                    [&]() -> absl::Status {
                      b_->CreateCall(ukernel_, {a_panel, b_panel, kb.kc, cin,
                                                I(ncp_), c_tile, I(ncp_)});
                      return absl::OkStatus();
                    },
                    b_);
              },
              b_);
        },
        b_);
  }

  const GemmSpec& spec_;
  const GemmTiling& t_;
  llvm::IRBuilderBase* b_;
  llvm::Type* elem_;
  const int64_t esz_, mr_, nr_, row_blocks_, col_blocks_, k_blocks_, kc_max_,
      ncp_, mc_blocks_, chunk_blocks_;
  llvm::Function* ukernel_;
  llvm::Value* ap_ = nullptr;
  llvm::Value* bp_ = nullptr;
  llvm::Value* cb_ = nullptr;
  llvm::Value* tile_ = nullptr;
};

}  // namespace

void SetPanelPackers(GemmARowPacker a_rows, GemmBRowPacker b_rows,
                     GemmSpec* spec) {
  const PrimitiveType acc = spec->acc_type;
  spec->pack_a_panel = [a_rows, acc](llvm::Value* g, llvm::Value* i0,
                                     llvm::Value* rows, llvm::Value* k0,
                                     llvm::Value* kc, llvm::Value* dst,
                                     int64_t mr, llvm::IRBuilderBase* b) {
    llvm::Type* elem = AccLlvmType(acc, b->getContext());
    return EmitForLoop(
        "packa.row", b->getInt64(0), rows, b->getInt64(1),
        [&](llvm::Value* r) {
          return a_rows(g, b->CreateAdd(i0, r), k0, kc,
                        b->CreateInBoundsGEP(elem, dst, r), mr, b);
        },
        b);
  };
  spec->pack_b_panel = [b_rows, acc](llvm::Value* g, llvm::Value* k0,
                                     llvm::Value* kc, llvm::Value* j0,
                                     llvm::Value* cols, llvm::Value* dst,
                                     int64_t nr, llvm::IRBuilderBase* b) {
    llvm::Type* elem = AccLlvmType(acc, b->getContext());
    return EmitForLoop(
        "packb.row", b->getInt64(0), kc, b->getInt64(1),
        [&](llvm::Value* kk) {
          return b_rows(g, b->CreateAdd(k0, kk), j0, cols,
                        b->CreateInBoundsGEP(elem, dst,
                                             b->CreateMul(kk, b->getInt64(nr))),
                        b);
        },
        b);
  };
}

absl::Status EmitGemm(const GemmSpec& spec, const GemmTiling& t,
                      llvm::Function* range, llvm::IRBuilderBase* b) {
  HLOC_RETURN_IF_ERROR(GemmLoops(spec, t, range, b).Emit(range));
  DisableLoopUnrolling(range);
  return absl::OkStatus();
}

bool GemmRunsParallel(const CpuCodegenOptions& options, const GemmSpec& spec,
                      int64_t work_items) {
  // Threads pay off from about a million multiply-adds (a GOMP_parallel
  // costs microseconds).
  const int64_t macs =
      spec.batch * spec.m * spec.n * std::max<int64_t>(spec.k, 1);
  return macs >= (1 << 20) && ShouldRunParallel(options, work_items, macs);
}

}  // namespace hloc
