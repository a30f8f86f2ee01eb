#include "backends/cpu/aarch64_aot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/common/collective_step.h"
#include "backends/common/custom_call_support.h"
#include "backends/common/evaluator_fallback.h"
#include "backends/common/find_on_path.h"
#include "backends/common/step_plan.h"
#include "backends/cpu/custom_call_targets.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/object_emitter.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "passes/cholesky_expander.h"
#include "passes/topk_expander.h"
#include "passes/triangular_solve_expander.h"
#include "runtime/aot/aot_main_source.h"
#include "runtime/buffer_assignment.h"
#include "runtime/dense_buffer.h"

extern char** environ;

namespace hloc {
namespace {

constexpr int64_t kAlignment = 64;

int64_t RoundUp(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>>
CreateAarch64TargetMachine() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
  });
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget(kAarch64Triple, error);
  if (target == nullptr) {
    return absl::InternalError(
        absl::StrCat("LLVM has no AArch64 target: ", error));
  }
  // PIC: the driver links as a position-independent executable.
  llvm::TargetOptions options;
  SetCpuTargetOptions(options);
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      kAarch64Triple, kAarch64Cpu, kAarch64Features, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) {
    return absl::InternalError("cannot create the AArch64 target machine");
  }
  return tm;
}

llvm::GlobalVariable* AddI64Global(llvm::Module* module,
                                   const std::string& name, int64_t value) {
  llvm::Type* i64 = llvm::Type::getInt64Ty(module->getContext());
  return new llvm::GlobalVariable(*module, i64, /*isConstant=*/true,
                                  llvm::GlobalValue::ExternalLinkage,
                                  llvm::ConstantInt::get(i64, value), name);
}

// An exported i64 array (one element at least, so the symbol has storage).
void AddI64ArrayGlobal(llvm::Module* module, const std::string& name,
                       std::vector<uint64_t> values) {
  if (values.empty()) values.push_back(0);
  llvm::Constant* init =
      llvm::ConstantDataArray::get(module->getContext(), values);
  new llvm::GlobalVariable(*module, init->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, init, name);
}

// hloc_aot_entry and the exported sizes (see aarch64_aot.h).
void EmitEntry(const Executable& e, const std::vector<int64_t>& scratch_offsets,
               int64_t scratch_bytes, llvm::Module* module) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i8 = llvm::Type::getInt8Ty(ctx);
  llvm::FunctionType* kernel_type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
  llvm::Function* entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, ptr},
                              false),
      llvm::GlobalValue::ExternalLinkage, "hloc_aot_entry", module);
  entry->setDoesNotThrow();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  llvm::Value* parameters = entry->getArg(0);
  llvm::Value* scratch = entry->getArg(1);
  llvm::Value* results = entry->getArg(2);

  // Zero-size buffers point here, so no kernel sees a null pointer.
  llvm::Type* empty_type = llvm::ArrayType::get(i8, kAlignment);
  auto* empty = new llvm::GlobalVariable(
      *module, empty_type, /*isConstant=*/false,
      llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantAggregateZero::get(empty_type), "hloc.aot.empty");
  empty->setAlignment(llvm::Align(kAlignment));

  // Where each allocation starts.
  std::vector<llvm::Value*> base(e.allocations.size(), nullptr);
  std::vector<uint64_t> parameter_bytes;
  for (size_t p = 0; p < e.parameter_buffers.size(); ++p) {
    for (int64_t slot : e.parameter_buffers[p]) {
      const ExecutableBuffer& buffer = e.buffers[slot];
      llvm::Value* address = b.CreateLoad(
          ptr,
          b.CreateConstInBoundsGEP1_64(ptr, parameters, parameter_bytes.size()),
          absl::StrCat("param", parameter_bytes.size()));
      base[buffer.allocation] = address;
      parameter_bytes.push_back(buffer.size);
    }
  }
  for (size_t a = 0; a < e.allocations.size(); ++a) {
    const ExecutableAllocation& allocation = e.allocations[a];
    if (allocation.kind == BufferAllocation::Kind::kConstant &&
        allocation.size > 0) {
      llvm::Constant* data = llvm::ConstantDataArray::getRaw(
          allocation.constant_data, allocation.constant_data.size(), i8);
      auto* global = new llvm::GlobalVariable(
          *module, data->getType(), /*isConstant=*/true,
          llvm::GlobalValue::PrivateLinkage, data,
          absl::StrCat("hloc.aot.constant", a));
      global->setAlignment(llvm::Align(kAlignment));
      base[a] = global;
    } else if (scratch_offsets[a] >= 0) {
      base[a] = b.CreateConstInBoundsGEP1_64(i8, scratch, scratch_offsets[a]);
    }
  }
  auto slot_address = [&](int64_t slot) -> llvm::Value* {
    const ExecutableBuffer& buffer = e.buffers[slot];
    llvm::Value* start = base[buffer.allocation];
    if (buffer.size == 0 || start == nullptr) return empty;
    return buffer.offset == 0
               ? start
               : b.CreateConstInBoundsGEP1_64(i8, start, buffer.offset);
  };

  size_t most = 1;
  for (const ExecutableStep& step : e.steps) {
    most = std::max(most, step.buffers.size());
  }
  llvm::Value* table =
      b.CreateAlloca(llvm::ArrayType::get(ptr, most), nullptr, "buffers");
  for (const ExecutableStep& step : e.steps) {
    for (size_t i = 0; i < step.buffers.size(); ++i) {
      b.CreateStore(slot_address(step.buffers[i]),
                    b.CreateConstInBoundsGEP1_64(ptr, table, i));
    }
    llvm::FunctionCallee kernel =
        module->getOrInsertFunction(step.kernel_name, kernel_type);
    b.CreateCall(kernel, {table});
  }
  std::vector<uint64_t> result_bytes;
  for (size_t j = 0; j < e.result_buffers.size(); ++j) {
    b.CreateStore(slot_address(e.result_buffers[j]),
                  b.CreateConstInBoundsGEP1_64(ptr, results, j));
    result_bytes.push_back(e.buffers[e.result_buffers[j]].size);
  }
  b.CreateRetVoid();

  AddI64Global(module, "hloc_aot_num_parameters", parameter_bytes.size());
  AddI64Global(module, "hloc_aot_num_results", result_bytes.size());
  AddI64ArrayGlobal(module, "hloc_aot_parameter_bytes", parameter_bytes);
  AddI64ArrayGlobal(module, "hloc_aot_result_bytes", result_bytes);
  AddI64Global(module, "hloc_aot_scratch_bytes", scratch_bytes);
}

absl::StatusOr<std::string> EmitAssembly(llvm::Module& module,
                                         llvm::TargetMachine& tm) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr,
                             llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("the AArch64 target cannot emit assembly");
  }
  pm.run(module);
  return text.str().str();
}

}  // namespace

absl::StatusOr<Aarch64AotModule> CompileForAarch64(
    const HloModule& original, const Aarch64AotOptions& options) {
  HLOC_RETURN_IF_ERROR(VerifyModule(original));
  std::unique_ptr<HloModule> hlo = original.Clone();
  HloComputation* computation = hlo->entry_computation();
  if (computation == nullptr) {
    return absl::InvalidArgumentError("module has no entry computation");
  }
  // The host runs topk as a library call, which AArch64 ahead of time does
  // not have: here a topk is a sort and a slice, which it compiles.
  HLOC_RETURN_IF_ERROR(TopKExpander().Run(hlo.get()).status());
  // Nor LAPACK: cholesky and triangular-solve become loops it compiles.
  HLOC_RETURN_IF_ERROR(CholeskyExpander().Run(hlo.get()).status());
  HLOC_RETURN_IF_ERROR(TriangularSolveExpander().Run(hlo.get()).status());
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  HLOC_RETURN_IF_ERROR(
      CheckCustomCallTargets(*hlo, CpuSupportsCustomCall, "aarch64 AOT"));
  HLOC_RETURN_IF_ERROR(CheckCodegenShapes(order, "aarch64 AOT"));
  HLOC_ASSIGN_OR_RETURN(BufferAssignment assignment,
                        AssignBuffers(*computation, order));
  Aarch64AotModule result;
  Executable& e = result.executable;
  e.name = hlo->name();
  HLOC_RETURN_IF_ERROR(SetBufferPlan(assignment, *computation, &e));
  e.target_triple = kAarch64Triple;
  e.cpu_name = kAarch64Cpu;
  e.cpu_features = kAarch64Features;
  for (const ExecutableAllocation& a : e.allocations) {
    const bool in_scratch = a.kind == BufferAllocation::Kind::kArena ||
                            a.kind == BufferAllocation::Kind::kOutput;
    result.scratch_offsets.push_back(in_scratch ? result.scratch_bytes : -1);
    if (in_scratch) result.scratch_bytes += RoundUp(a.size);
  }

  // The steps, as CompileForCpu makes them, with dots and convolutions tiled
  // for AArch64's registers rather than the host's.
  CpuCodegenOptions codegen = options.codegen;
  codegen.target_triple = kAarch64Triple;
  CpuModuleEmitter emitter(hlo->name(), codegen);
  FallbackReport fallbacks(
      "aarch64 AOT", "has no generated code, so the object has no entry",
      FallbackPolicy{options.allow_fallback, options.log_fallbacks});
  for (PlannedStep& planned : PlanSteps(order, assignment)) {
    const HloInstruction* instr = planned.instruction;
    const HloOpcode opcode = instr->opcode();
    ExecutableStep step;
    step.instruction = instr->name();
    step.buffers = std::move(planned.buffers);
    // The executable carries collective steps as the host's does; the
    // qemu driver has no runtime to run them, so the object gets no entry.
    HLOC_ASSIGN_OR_RETURN(
        CollectiveStepOrFallback collective,
        MakeCollectiveStepOrFallback(*instr, hlo->config(), step.buffers));
    if (collective.step.has_value()) {
      result.missing.push_back(absl::StrCat(instr->name(), " (",
                                            HloOpcodeString(opcode),
                                            ", a collective step)"));
      e.steps.push_back(*std::move(collective.step));
      continue;
    }
    absl::StatusOr<std::string> symbol =
        collective.fallback.ok()
            ? emitter.EmitKernel(*instr, absl::StrCat("hloc.", instr->name()))
            : absl::StatusOr<std::string>(collective.fallback);
    if (symbol.ok()) {
      step.kind = ExecutableStep::Kind::kKernel;
      step.kernel_name = *symbol;
    } else if (absl::IsUnimplemented(symbol.status())) {
      step.kind = ExecutableStep::Kind::kEvaluator;
      step.fallback_reason = std::string(symbol.status().message());
      fallbacks.Add(*instr, step.fallback_reason);
      result.missing.push_back(
          absl::StrCat(instr->name(), " (", HloOpcodeString(opcode), ")"));
    } else {
      return symbol.status();
    }
    e.steps.push_back(std::move(step));
  }
  HLOC_RETURN_IF_ERROR(fallbacks.Check());

  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  HLOC_RETURN_IF_ERROR(emitter.ReleaseModule(&context, &module));
  HLOC_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                        CreateAarch64TargetMachine());
  module->setTargetTriple(kAarch64Triple);
  module->setDataLayout(tm->createDataLayout());
  if (result.missing.empty()) {
    EmitEntry(e, result.scratch_offsets, result.scratch_bytes, module.get());
  }
  for (llvm::Function& f : *module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", kAarch64Cpu);
    f.addFnAttr("target-features", kAarch64Features);
  }
  {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (llvm::verifyModule(*module, &os)) {
      return absl::InternalError(
          absl::StrCat("generated LLVM IR is invalid: ", os.str()));
    }
  }
  OptimizeModule(*module, tm.get());
  if (options.keep_ir) {
    llvm::raw_string_ostream os(result.optimized_ir);
    module->print(os, nullptr);
  }
  if (options.keep_asm) {
    // Code generation changes the module: print a copy.
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*module);
    HLOC_ASSIGN_OR_RETURN(result.assembly, EmitAssembly(*copy, *tm));
  }
  HLOC_ASSIGN_OR_RETURN(e.object_code, EmitObjectCode(*module, *tm));
  PrintOptions print_options;
  print_options.print_metadata = false;
  e.hlo_module = PrintModule(*hlo, print_options);
  module.reset();
  return result;
}

namespace {

std::string FromEnv(const char* variable) {
  const char* value = std::getenv(variable);
  return value == nullptr ? "" : value;
}

// $variable if set (an executable), else `name` found on PATH.
absl::StatusOr<std::string> FindTool(const char* variable,
                                     const std::string& name,
                                     const char* debian_package) {
  std::string path = FromEnv(variable);
  if (!path.empty()) {
    if (access(path.c_str(), X_OK) == 0) return path;
    return absl::FailedPreconditionError(absl::StrCat(
        "aarch64 AOT: $", variable, " (", path, ") is not an executable"));
  }
  path = FindOnPath(name);
  if (!path.empty()) return path;
  return absl::FailedPreconditionError(absl::StrCat("aarch64 AOT needs ", name,
                                                    " on PATH (Debian: apt-get "
                                                    "install ",
                                                    debian_package, ") or $",
                                                    variable));
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

absl::Status WriteFile(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path));
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

// The last lines of a log, for error messages.
std::string Tail(const std::string& text) {
  constexpr size_t kMax = 2000;
  return text.size() <= kMax ? text : "..." + text.substr(text.size() - kMax);
}

// Runs argv[0] (a path) with stdout and stderr into `log`; returns what it
// printed if it exits with status 0.
absl::StatusOr<std::string> RunTool(const std::vector<std::string>& argv,
                                    const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid;
  const int error = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr,
                                args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", argv[0], ": ", std::strerror(error)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(
          absl::StrCat("waiting for ", argv[0], ": ", std::strerror(errno)));
    }
  }
  absl::StatusOr<std::string> output = ReadFile(log);
  const std::string printed = output.ok() ? *output : "";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return printed;
  const std::string how =
      WIFSIGNALED(status)
          ? absl::StrCat("was killed by signal ", WTERMSIG(status))
          : absl::StrCat("exited with status ", WEXITSTATUS(status));
  return absl::InternalError(
      absl::StrCat(absl::StrJoin(argv, " "), " ", how, ":\n", Tail(printed)));
}

void LiteralLeaves(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& element : literal.tuple_elements()) {
      LiteralLeaves(element, out);
    }
  } else {
    out->push_back(&literal);
  }
}

// A literal of `shape` whose leaves are the result files from `*next` on.
absl::StatusOr<Literal> ReadResult(const Executable& e, const Shape& shape,
                                   const std::string& dir, size_t* next) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      HLOC_ASSIGN_OR_RETURN(Literal element, ReadResult(e, s, dir, next));
      elements.push_back(std::move(element));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  const size_t j = (*next)++;
  const ExecutableBuffer& buffer = e.buffers[e.result_buffers.at(j)];
  const std::string path = absl::StrCat(dir, "/result", j, ".bin");
  HLOC_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  if (static_cast<int64_t>(bytes.size()) != buffer.size) {
    return absl::InternalError(absl::StrCat(path, " has ", bytes.size(),
                                            " bytes, expected ", buffer.size));
  }
  return BufferToLiteral(reinterpret_cast<const uint8_t*>(bytes.data()),
                         buffer.shape);
}

// A directory removed when this goes out of scope (unless the caller
// named it).
class WorkDir {
 public:
  static absl::StatusOr<WorkDir> Create(const std::string& requested) {
    WorkDir dir;
    if (!requested.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(requested, ec);
      if (ec) {
        return absl::InternalError(
            absl::StrCat("cannot create ", requested, ": ", ec.message()));
      }
      dir.path_ = requested;
      return dir;
    }
    std::string tmp = FromEnv("TMPDIR");
    if (tmp.empty()) tmp = "/tmp";
    std::string pattern = tmp + "/hloc-aarch64-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError(absl::StrCat("cannot create a directory in ",
                                              tmp, ": ", std::strerror(errno)));
    }
    dir.path_ = pattern;
    dir.remove_ = true;
    return dir;
  }
  WorkDir(WorkDir&& other)
      : path_(std::move(other.path_)), remove_(other.remove_) {
    other.remove_ = false;
  }
  ~WorkDir() {
    if (!remove_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  WorkDir() = default;
  std::string path_;
  bool remove_ = false;
};

}  // namespace

absl::StatusOr<Aarch64Tools> FindAarch64Tools() {
  Aarch64Tools tools;
  HLOC_ASSIGN_OR_RETURN(tools.cc,
                        FindTool("HLOC_AARCH64_CC", "aarch64-linux-gnu-gcc",
                                 "gcc-aarch64-linux-gnu"));
  HLOC_ASSIGN_OR_RETURN(
      tools.qemu, FindTool("HLOC_QEMU_AARCH64", "qemu-aarch64", "qemu-user"));
  tools.sysroot = FromEnv("HLOC_AARCH64_SYSROOT");
  if (tools.sysroot.empty()) tools.sysroot = "/usr/aarch64-linux-gnu";
  std::error_code ec;
  if (!std::filesystem::exists(tools.sysroot + "/lib/ld-linux-aarch64.so.1",
                               ec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "aarch64 AOT needs an AArch64 sysroot with lib/ld-linux-aarch64.so.1 "
        "at ",
        tools.sysroot,
        " (Debian: apt-get install libc6-arm64-cross) or "
        "$HLOC_AARCH64_SYSROOT"));
  }
  return tools;
}

absl::StatusOr<Literal> RunAarch64UnderQemu(const Aarch64AotModule& compiled,
                                            absl::Span<const Literal> arguments,
                                            const Aarch64RunOptions& options) {
  if (!compiled.missing.empty()) {
    std::string more;
    if (compiled.missing.size() > 1) {
      more = absl::StrCat(" (", compiled.missing.size() - 1, " more: ",
                          absl::StrJoin(compiled.missing.begin() + 1,
                                        compiled.missing.end(), ", "),
                          ")");
    }
    return absl::UnimplementedError(
        absl::StrCat("aarch64 AOT cannot run ", compiled.missing[0],
                     ": no generated code yet", more));
  }
  const Executable& e = compiled.executable;
  if (arguments.size() != e.parameter_shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the entry computation takes ", e.parameter_shapes.size(),
                     " arguments, given ", arguments.size()));
  }
  HLOC_ASSIGN_OR_RETURN(Aarch64Tools tools, FindAarch64Tools());
  HLOC_ASSIGN_OR_RETURN(WorkDir dir, WorkDir::Create(options.work_dir));
  const std::string& d = dir.path();

  size_t k = 0;
  for (size_t p = 0; p < arguments.size(); ++p) {
    if (!arguments[p].shape().Compatible(e.parameter_shapes[p])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", p, " has shape ", arguments[p].shape().ToString(),
          ", the parameter ", e.parameter_shapes[p].ToString()));
    }
    std::vector<const Literal*> leaves;
    LiteralLeaves(arguments[p], &leaves);
    for (size_t l = 0; l < leaves.size(); ++l, ++k) {
      const ExecutableBuffer& buffer = e.buffers[e.parameter_buffers[p][l]];
      std::string bytes(buffer.size, '\0');
      if (buffer.size > 0) {
        CopyLiteralToBuffer(*leaves[l], buffer.shape,
                            reinterpret_cast<uint8_t*>(bytes.data()));
      }
      HLOC_RETURN_IF_ERROR(
          WriteFile(absl::StrCat(d, "/param", k, ".bin"), bytes));
    }
  }

  auto start = std::chrono::steady_clock::now();
  HLOC_RETURN_IF_ERROR(WriteFile(d + "/kernels.o", e.object_code));
  HLOC_RETURN_IF_ERROR(WriteFile(d + "/aot_main.c", kAotMainSource));
  HLOC_RETURN_IF_ERROR(
      RunTool({tools.cc, "-O2", "-fopenmp", "-o", d + "/program",
               d + "/aot_main.c", d + "/kernels.o", "-lm"},
              d + "/link.log")
          .status());
  if (options.stats != nullptr) {
    options.stats->link_ms = MillisecondsSince(start);
  }

  start = std::chrono::steady_clock::now();
  HLOC_ASSIGN_OR_RETURN(
      std::string printed,
      RunTool({tools.qemu, "-L", tools.sysroot, d + "/program", d},
              d + "/run.log"));
  if (options.stats != nullptr) {
    options.stats->qemu_ms = MillisecondsSince(start);
    constexpr absl::string_view kRanIn = "hloc aot driver: ran in ";
    const size_t at = printed.find(kRanIn.data(), 0, kRanIn.size());
    if (at != std::string::npos) {
      options.stats->entry_ms = std::atof(printed.c_str() + at + kRanIn.size());
    }
  }

  size_t next = 0;
  return ReadResult(e, e.result_shape, d, &next);
}

}  // namespace hloc
