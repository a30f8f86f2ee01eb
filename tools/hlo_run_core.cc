#include "tools/hlo_run_core.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/host_memory.h"
#include "hlo/instruction.h"
#include "hlo/status_macros.h"
#include "passes/host_callbacks.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "tools/flags.h"
#include "tools/module_loader.h"

namespace hloc {
namespace {

// Outputs up to this many elements are printed when nothing is compared.
constexpr int64_t kMaxPrintedElements = 64;

const std::vector<FlagSpec>& Specs() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"inputs", true, "DIR: read entry parameter i from DIR/in<i>.npy"},
      {"random-inputs", true,
       "SEED: make deterministic random inputs from SEED instead"},
      {"platform", true, "NAME: where to run (default interpreter)"},
      {"target", true,
       "host|aarch64: what --platform=cpu compiles for (default host; "
       "aarch64: NEON object code run under qemu-aarch64)"},
      {"expect", true, "DIR: compare output i with DIR/out<i>.npy"},
      {"rtol", true,
       "R: relative tolerance for float outputs (default: by type)"},
      {"atol", true,
       "A: absolute tolerance for float outputs (default: by type)"},
      {"expect-tf32", false,
       "the --expect outputs came from a GPU that ran default-precision f32 "
       "dots/convolutions in TF32 (XLA:GPU on NVIDIA): allow 2^-8 of the "
       "largest |expected| on f32 outputs of such modules"},
      {"allow-excess-precision", true,
       "true|false: let compiling platforms keep values more precise than "
       "their bf16/f16 types, as XLA does (default true)"},
      {"denormals", true,
       "flush|keep: flush f32/f64 denormals to zero as XLA's runtimes do "
       "(default), or keep them (IEEE)"},
      {"no-fallback", false,
       "compiling platforms: fail (exit 3) if any instruction would run in "
       "the reference evaluator, listing each and why (default for "
       "--target=aarch64 and cuda)"},
      {"fallback", false,
       "--platform=cpu: run what code generation declines in the evaluator, "
       "one warning line each (default for the host)"},
      {"output", true, "DIR: write output i to DIR/out<i>.npy"},
      {"format", true,
       "hlo|pb|hloexe: module or saved executable (default: by extension)"},
      {"profile", false, "print per-kernel device times to stderr (cuda)"},
      {"no-programmatic-launch", false,
       "cuda: start every kernel after the one before has ended, instead "
       "of launching the kernels of sm_90 executables as programmatic "
       "dependents (the next starts while the last blocks of the one "
       "before run)"},
      {"no-conditional-nodes", false,
       "cuda: read each while loop's and conditional's predicate on the "
       "host, instead of deciding on the GPU inside a CUDA graph "
       "(conditional nodes, where the driver has them)"},
      {"graph-streams", true,
       "N: cuda: capture each graph on up to N streams, so kernels that "
       "share no memory run as parallel branches (default 4; 1: one "
       "chain)"},
      {"always-branch", false,
       "cuda: launch graphs on their branches (captured on several "
       "streams) in every run, instead of timing the first runs that way "
       "and as one chain and keeping the faster"},
      {"iterations", true,
       "N: after the run, run N more times and print the median time of a "
       "run to stderr (cuda: device time of its kernels, CUDA events; "
       "interpreter and cpu: wall time of whole runs, nothing recompiled)"},
      {"time-run", false,
       "with --iterations: time whole runs instead, 20 back to back with "
       "the inputs resident per sample (CUDA events around them, graphs as "
       "usual, launch gaps included), as the benchmark's peers are timed "
       "(cuda)"},
      {"replicas", true,
       "N: run N devices of a module with collectives (interpreter, cpu "
       "host: one thread per device): "
       "parameter i of device k from in<i>.r<k>.npy, or in<i>.npy for all "
       "devices when there are no per-device files; outputs out<i>.r<k>.npy. "
       "N is the module's replica_count x num_partitions (a module that "
       "gives neither runs N replicas)"},
      {"max-while-iterations", true,
       "N: stop with an error naming the loop (exit 3) when a while loop "
       "runs more than N iterations (interpreter, cpu host)"},
      {"reference", true,
       "PLATFORM: also run on PLATFORM (e.g. interpreter) and compare "
       "--platform's outputs with its outputs, as --expect does with files"},
      {"disable-passes", true,
       "a,b: skip these passes of --platform's pipeline (cpu), e.g. to work "
       "around a pass; a name the pipeline lacks is an error listing the "
       "names it has"},
      {"drop-debug-callbacks", false,
       "drop JAX's Python host callbacks whose results are unused "
       "(jax.debug.print, jax.debug.callback, io_callback without results) "
       "before running, one notice line each on stderr, instead of failing "
       "(exit 3): hloc runs no Python. A callback whose results are used "
       "(pure_callback) fails either way"},
      {"help", false, "print this help"},
  };
  return *specs;
}

absl::Status ParseTolerance(const ParsedFlags& flags, const std::string& name,
                            std::optional<double>* target) {
  if (!flags.Has(name)) return absl::OkStatus();
  double value;
  if (!absl::SimpleAtod(flags.Get(name), &value) || !std::isfinite(value) ||
      value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("flag --", name, ": '", flags.Get(name),
                     "' is not a non-negative number"));
  }
  *target = value;
  return absl::OkStatus();
}

std::string ParameterText(const HloInstruction& parameter, int64_t i) {
  return absl::StrCat("parameter ", i, " (", parameter.name(), ": ",
                      parameter.shape().ToString(false), ")");
}

// DIR/<prefix><i><suffix>.npy; the suffix names a device (".r2").
std::string NpyPath(const std::string& dir, absl::string_view prefix,
                    int64_t i, absl::string_view suffix = "") {
  return (std::filesystem::path(dir) / absl::StrCat(prefix, i, suffix, ".npy"))
      .string();
}

std::string DeviceSuffix(int64_t device) {
  return absl::StrCat(".r", device);
}

bool FileExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// SplitMix64: a small, fast generator whose output depends only on its
// seed, so random inputs are the same on every platform and library.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1), on a grid of 2^-52.
  double Uniform() {
    return static_cast<double>(Next() >> 11) * 0x1.0p-52 - 1.0;
  }
  // Uniform integer in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi) {
    return lo +
           static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t state_;
};

Literal RandomArray(const Shape& shape, uint64_t seed) {
  Literal literal(Shape::Array(shape.element_type(), shape.dimensions()));
  Random random(seed);
  const PrimitiveType type = shape.element_type();
  const int64_t n = literal.element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (type == PRED) {
      literal.data<bool>()[i] = (random.Next() >> 63) != 0;
    } else if (type == C64) {
      const float re = static_cast<float>(random.Uniform());
      literal.data<complex64>()[i] =
          complex64(re, static_cast<float>(random.Uniform()));
    } else if (type == C128) {
      const double re = random.Uniform();
      literal.data<complex128>()[i] = complex128(re, random.Uniform());
    } else if (IsFloatingPointType(type)) {
      literal.SetFromDouble(i, random.Uniform());
    } else if (IsSignedIntegralType(type)) {
      literal.SetFromInt64(i, random.Int(-8, 8));
    } else {
      literal.SetFromInt64(i, random.Int(0, 15));
    }
  }
  return literal;
}

void FlattenInto(Literal literal, std::vector<Literal>* leaves) {
  if (literal.shape().IsTuple()) {
    for (Literal& element : literal.tuple_elements()) {
      FlattenInto(std::move(element), leaves);
    }
  } else if (literal.shape().IsArray()) {
    leaves->push_back(std::move(literal));
  }
}

std::string ErrorText(double error) { return absl::StrFormat("%.3g", error); }

// Compares `outputs` with `expected` (from --expect's files or the
// --reference platform) and prints the table; returns the exit status.
// `suffix` names a device's outputs (--replicas).
int CompareOutputs(const HloModule& module, const HloRunOptions& options,
                   const std::vector<Literal>& outputs,
                   const std::vector<Literal>& expected, std::ostream& out,
                   absl::string_view suffix = "") {
  const int64_t n = static_cast<int64_t>(outputs.size());
  std::vector<std::vector<std::string>> rows = {
      {"output", "shape", "max_abs_err", "max_rel_err", "mismatches",
       "tolerance", "result"}};
  std::vector<std::string> details;
  bool all_ok = true;
  for (int64_t i = 0; i < n; ++i) {
    ToleranceOptions tolerance_options;
    tolerance_options.expected_used_tf32 = options.expect_tf32;
    Tolerance tolerance =
        DefaultToleranceFor(module, expected[i], tolerance_options);
    const bool exact = tolerance.rtol == 0 && tolerance.atol == 0;
    if (!exact && options.rtol) tolerance.rtol = *options.rtol;
    if (!exact && options.atol) tolerance.atol = *options.atol;
    const ComparisonResult result =
        CompareLiterals(outputs[i], expected[i], tolerance);
    all_ok = all_ok && result.ok();
    const std::string name = absl::StrCat("out", i, suffix);
    if (result.shape_mismatch) {
      rows.push_back({name, expected[i].shape().ToString(false), "-", "-", "-",
                      tolerance.ToString(), "SHAPE MISMATCH"});
      details.push_back(absl::StrCat("  ", name, ": ", result.shape_message));
      continue;
    }
    rows.push_back(
        {name, expected[i].shape().ToString(false),
         ErrorText(result.max_abs_error), ErrorText(result.max_rel_error),
         absl::StrCat(result.mismatch_count, "/", result.element_count),
         tolerance.ToString(), result.ok() ? "ok" : "MISMATCH"});
    constexpr size_t kShown = 5;
    for (size_t m = 0; m < result.first_mismatches.size() && m < kShown; ++m) {
      details.push_back(
          absl::StrCat("  ", name, result.first_mismatches[m].ToString()));
    }
    if (result.mismatch_count > static_cast<int64_t>(kShown)) {
      details.push_back(absl::StrCat("  ", name, ": ",
                                     result.mismatch_count - kShown,
                                     " more mismatches"));
    }
  }
  PrintTable(rows, out);
  for (const std::string& line : details) out << line << "\n";
  out << (all_ok ? "all outputs match\n" : "MISMATCH\n");
  return all_ok ? kHloRunMatch : kHloRunMismatch;
}

std::string PlatformList(const HloRunPlatforms& platforms) {
  std::vector<std::string> names;
  for (const HloRunPlatform& platform : platforms) {
    names.push_back(platform.name);
  }
  return absl::StrJoin(names, ", ");
}

}  // namespace

absl::StatusOr<std::vector<Literal>> ReadExpected(
    const std::string& dir, const std::vector<Literal>& outputs,
    absl::string_view suffix) {
  const int64_t n = static_cast<int64_t>(outputs.size());
  std::vector<Literal> expected;
  for (int64_t i = 0; i < n; ++i) {
    NpyReadOptions read_options;
    read_options.expected_type = outputs[i].element_type();
    absl::StatusOr<Literal> literal =
        ReadNpy(NpyPath(dir, "out", i, suffix), read_options);
    if (!literal.ok()) {
      return absl::Status(literal.status().code(),
                          absl::StrCat("expected output ", i, ": ",
                                       literal.status().message()));
    }
    expected.push_back(*std::move(literal));
  }
  const std::string extra = NpyPath(dir, "out", n, suffix);
  if (FileExists(extra)) {
    return absl::InvalidArgumentError(
        absl::StrCat(extra, " exists, but the module has ", n, " output",
                     n == 1 ? "" : "s"));
  }
  return expected;
}

void PrintTable(const std::vector<std::vector<std::string>>& rows,
                std::ostream& out) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      absl::StrAppend(&line, row[c]);
      if (c + 1 < row.size()) line.append(widths[c] + 2 - row[c].size(), ' ');
    }
    out << line << "\n";
  }
}

std::string HloRunUsage(const HloRunPlatforms& platforms) {
  return absl::StrCat(
      FlagHelp("hlo-run MODULE.{hlo,pb,hloexe} [flags]", Specs()),
      "Runs an HLO module on .npy inputs (in<i>.npy per entry parameter) and\n"
      "writes or compares its outputs (out<i>.npy per result leaf).\n"
      "Platforms: ",
      PlatformList(platforms),
      ".\nExit status: 0 match, 1 mismatch, 2 bad input, 3 run failed.\n");
}

absl::StatusOr<HloRunOptions> ParseHloRunOptions(
    const std::vector<std::string>& args) {
  std::vector<char*> argv = {const_cast<char*>("hlo-run")};
  for (const std::string& arg : args)
    argv.push_back(const_cast<char*>(arg.c_str()));
  absl::StatusOr<ParsedFlags> parsed =
      ParseFlags(static_cast<int>(argv.size()), argv.data(), Specs());
  if (!parsed.ok()) return parsed.status();
  const ParsedFlags& flags = *parsed;
  HloRunOptions options;
  if (flags.Has("help")) {
    options.help = true;
    return options;
  }
  options.inputs_dir = flags.Get("inputs");
  options.platform = flags.Get("platform", options.platform);
  options.target = flags.Get("target", options.target);
  if (options.target != "host" && options.target != "aarch64") {
    return absl::InvalidArgumentError(absl::StrCat(
        "flag --target: '", options.target, "' is not host or aarch64"));
  }
  if (options.target != "host" && options.platform != "cpu") {
    return absl::InvalidArgumentError(
        "flag --target: only --platform=cpu has targets");
  }
  absl::StatusOr<std::optional<bool>> allow_fallback =
      SwitchPair(flags, "fallback", "no-fallback");
  if (!allow_fallback.ok()) return allow_fallback.status();
  options.allow_fallback = *allow_fallback;
  if (options.allow_fallback && options.platform != "cpu" &&
      options.platform != "cuda" && options.platform != "rocm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "flag --", *options.allow_fallback ? "fallback" : "no-fallback",
        ": --platform=", options.platform, " compiles nothing"));
  }
  if (options.allow_fallback.value_or(false) &&
      (options.platform == "cuda" || options.platform == "rocm")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "flag --fallback: the ", options.platform,
        " backend has no evaluator fallback (it is always strict)"));
  }
  options.expect_dir = flags.Get("expect");
  options.reference = flags.Get("reference");
  if (flags.Has("reference") && options.reference.empty()) {
    return absl::InvalidArgumentError("flag --reference: give a platform");
  }
  if (!options.reference.empty() && !options.expect_dir.empty()) {
    return absl::InvalidArgumentError(
        "give either --expect (files) or --reference (a platform), not both");
  }
  if (flags.Has("disable-passes")) {
    for (absl::string_view name :
         absl::StrSplit(flags.Get("disable-passes"), ',')) {
      name = absl::StripAsciiWhitespace(name);
      if (name.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --disable-passes: an empty pass name in '",
                         flags.Get("disable-passes"), "'"));
      }
      options.disabled_passes.insert(std::string(name));
    }
  }
  options.output_dir = flags.Get("output");
  options.format = flags.Get("format");
  options.profile = flags.Has("profile");
  options.programmatic_launch = !flags.Has("no-programmatic-launch");
  options.conditional_nodes = !flags.Has("no-conditional-nodes");
  options.time_graph_branches = !flags.Has("always-branch");
  options.time_run = flags.Has("time-run");
  // More streams than this only add joins (CudaExecutorOptions).
  HLOC_RETURN_IF_ERROR(
      PositiveIntFlag(flags, "graph-streams", &options.graph_streams, 32));
  HLOC_RETURN_IF_ERROR(
      PositiveIntFlag(flags, "iterations", &options.iterations));
  HLOC_RETURN_IF_ERROR(PositiveIntFlag(flags, "max-while-iterations",
                                       &options.max_while_iterations));
  HLOC_RETURN_IF_ERROR(
      PositiveIntFlag(flags, "replicas", &options.replicas, 1024));
  if (flags.Has("random-inputs")) {
    uint64_t seed;
    if (!absl::SimpleAtoi(flags.Get("random-inputs"), &seed)) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag --random-inputs: '", flags.Get("random-inputs"),
                       "' is not a non-negative integer"));
    }
    options.random_seed = seed;
  }
  absl::Status status = ParseTolerance(flags, "rtol", &options.rtol);
  if (status.ok()) status = ParseTolerance(flags, "atol", &options.atol);
  if (!status.ok()) return status;
  options.expect_tf32 = flags.Has("expect-tf32");
  options.drop_debug_callbacks = flags.Has("drop-debug-callbacks");
  const std::string excess = flags.Get("allow-excess-precision", "true");
  if (excess != "true" && excess != "false") {
    return absl::InvalidArgumentError(absl::StrCat(
        "flag --allow-excess-precision: '", excess, "' is not true or false"));
  }
  options.allow_excess_precision = excess == "true";
  const std::string denormals = flags.Get("denormals", "flush");
  if (denormals != "flush" && denormals != "keep") {
    return absl::InvalidArgumentError(absl::StrCat(
        "flag --denormals: '", denormals, "' is not flush or keep"));
  }
  options.denormals =
      denormals == "flush" ? DenormalMode::kFlush : DenormalMode::kKeep;
  if (flags.positional.empty()) {
    return absl::InvalidArgumentError("no module file given");
  }
  if (flags.positional.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected one module file, got ", flags.positional.size(),
                     ": ", absl::StrJoin(flags.positional, " ")));
  }
  options.module_path = flags.positional[0];
  if (!options.inputs_dir.empty() && options.random_seed) {
    return absl::InvalidArgumentError(
        "give either --inputs or --random-inputs, not both");
  }
  return options;
}

namespace {

bool IsSavedExecutable(const HloRunOptions& options) {
  return options.format == "hloexe" ||
         (options.format.empty() &&
          absl::EndsWith(options.module_path, ".hloexe"));
}

const HloRunPlatform* FindPlatform(const HloRunPlatforms& platforms,
                                   absl::string_view name) {
  for (const HloRunPlatform& platform : platforms) {
    if (platform.name == name) return &platform;
  }
  return nullptr;
}

// The evaluator's arguments with their denormals flushed (runtime/
// denormals.h), but what bitcast-converts read: XLA:CPU flushes what
// arithmetic reads, and a bitcast moves the bits exactly
// (bitcast_convert_type of a denormal 1e-40 to u8[4] is its bytes there and
// in hloc's compiled code). An entry parameter only bitcasts read keeps its
// argument as given; one that bitcasts and other instructions both read is
// split when `split` is given: a clone of the module (*split) takes the
// argument unflushed as one more parameter, which the bitcasts read.
std::vector<Literal> FlushedArguments(const HloModule& module,
                                      absl::Span<const Literal> arguments,
                                      std::unique_ptr<HloModule>* split) {
  std::vector<Literal> copies(arguments.begin(), arguments.end());
  const HloComputation* entry = module.entry_computation();
  std::vector<int64_t> to_split;
  for (int64_t i = 0; i < static_cast<int64_t>(arguments.size()); ++i) {
    int64_t bitcasts = 0;
    int64_t others = 0;
    if (entry != nullptr &&
        i < static_cast<int64_t>(entry->parameter_instructions().size())) {
      for (const HloInstruction* user :
           entry->parameter_instruction(i)->users()) {
        ++(user->opcode() == HloOpcode::kBitcastConvert ? bitcasts : others);
      }
    }
    if (bitcasts > 0 && others == 0) continue;
    if (bitcasts > 0 && split != nullptr) to_split.push_back(i);
    FlushDenormals(&copies[i]);
  }
  if (to_split.empty()) return copies;
  *split = module.Clone();
  (*split)->mutable_config().entry_computation_layout.reset();
  HloComputation* clone_entry = (*split)->entry_computation();
  for (const int64_t i : to_split) {
    HloInstruction* parameter = clone_entry->parameter_instruction(i);
    HloInstruction* bits =
        clone_entry->AddParameter(HloInstruction::CreateParameter(
            clone_entry->num_parameters(), parameter->shape(),
            absl::StrCat(parameter->name(), ".bits")));
    const std::vector<HloInstruction*> users = parameter->users();
    for (HloInstruction* user : users) {
      if (user->opcode() != HloOpcode::kBitcastConvert) continue;
      // A bitcast-convert has one operand.
      absl::Status status = user->ReplaceOperandWith(0, bits);
      if (!status.ok()) {
        split->reset();
        return FlushedArguments(module, arguments, nullptr);
      }
    }
    copies.push_back(arguments[i]);
  }
  return copies;
}

}  // namespace

HloRunPlatform InterpreterPlatform() {
  HloRunPlatform platform;
  platform.name = "interpreter";
  // The reference evaluator is IEEE C++ code: in flush mode it runs with
  // flush-to-zero set and its inputs' denormals flushed (runtime/denormals.h
  // says why both; FlushedArguments: not those only bitcasts read), so it
  // computes what XLA's runtimes compute.
  platform.run_module =
      [](const HloModule& module, absl::Span<const Literal> arguments,
         const HloRunOptions& options) -> absl::StatusOr<Literal> {
    EvaluateOptions evaluate;
    evaluate.max_while_iterations = options.max_while_iterations;
    std::vector<Literal> flushed;
    std::unique_ptr<HloModule> split;
    if (options.denormals == DenormalMode::kFlush) {
      flushed = FlushedArguments(module, arguments, &split);
      arguments = flushed;
    }
    const HloModule& run = split != nullptr ? *split : module;
    const ScopedDenormalMode mode(options.denormals);
    absl::StatusOr<Literal> result = EvaluateModule(run, arguments, evaluate);
    if (!result.ok() || options.iterations == 0) return result;
    absl::Status timed = TimeRepeatedRuns(
        "interpreter", options.iterations,
        [&] { return EvaluateModule(run, arguments, evaluate).status(); },
        std::cerr);
    if (!timed.ok()) return timed;
    return result;
  };
  platform.check_options = [](const HloRunOptions& options) {
    if (!options.disabled_passes.empty()) {
      return absl::InvalidArgumentError(
          "flag --disable-passes: --platform=interpreter runs no passes");
    }
    if (options.time_run) {
      return absl::InvalidArgumentError(
          "flag --time-run: CUDA timing; --platform=interpreter's "
          "--iterations time whole runs already");
    }
    return absl::OkStatus();
  };
  platform.run_replicated = [](const HloModule& module,
                               absl::Span<const std::vector<Literal>> arguments,
                               const HloRunOptions& options) {
    EvaluateOptions evaluate;
    evaluate.max_while_iterations = options.max_while_iterations;
    std::vector<std::vector<Literal>> flushed;
    for (const std::vector<Literal>& device : arguments) {
      flushed.push_back(options.denormals == DenormalMode::kFlush
                            ? FlushedArguments(module, device, nullptr)
                            : device);
    }
    // The device threads inherit the mode, as the evaluator's own do.
    const ScopedDenormalMode mode(options.denormals);
    return EvaluateReplicated(module, flushed, evaluate);
  };
  return platform;
}

absl::Status TimeRepeatedRuns(absl::string_view platform, int64_t iterations,
                              const std::function<absl::Status()>& run,
                              std::ostream& err) {
  std::vector<double> milliseconds;
  for (int64_t i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    absl::Status status = run();
    if (!status.ok()) return status;
    milliseconds.push_back(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count());
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  err << absl::StrFormat(
      "%s: %d more runs: median %.3f ms, min %.3f ms, max %.3f ms\n",
      std::string(platform), iterations, milliseconds[milliseconds.size() / 2],
      milliseconds.front(), milliseconds.back());
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Literal>> ReadInputs(const HloModule& module,
                                                const std::string& dir) {
  return ReadDeviceInputs(module, dir, 0, 0);
}

absl::StatusOr<std::vector<Literal>> ReadDeviceInputs(const HloModule& module,
                                                      const std::string& dir,
                                                      int64_t device,
                                                      int64_t num_devices) {
  const HloComputation* entry = module.entry_computation();
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction& parameter = *entry->parameter_instruction(i);
    const Shape& shape = parameter.shape();
    if (!shape.IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ParameterText(parameter, i),
                       ": only array parameters can be read from .npy files"));
    }
    NpyReadOptions read_options;
    read_options.expected_type = shape.element_type();
    std::string path = NpyPath(dir, "in", i);
    if (num_devices > 0 && FileExists(NpyPath(dir, "in", i, ".r0"))) {
      path = NpyPath(dir, "in", i, DeviceSuffix(device));
      const std::string extra = NpyPath(dir, "in", i, DeviceSuffix(num_devices));
      if (FileExists(extra)) {
        return absl::InvalidArgumentError(
            absl::StrCat(ParameterText(parameter, i), ": ", extra,
                         " exists, but the run has ", num_devices, " devices"));
      }
    }
    absl::StatusOr<Literal> literal = ReadNpy(path, read_options);
    if (!literal.ok()) {
      return absl::Status(literal.status().code(),
                          absl::StrCat(ParameterText(parameter, i), ": ",
                                       literal.status().message()));
    }
    if (!literal->shape().Compatible(shape)) {
      return absl::InvalidArgumentError(
          absl::StrCat(ParameterText(parameter, i), ": ", path, " holds ",
                       literal->shape().ToString(false)));
    }
    inputs.push_back(*std::move(literal));
  }
  const std::string extra = NpyPath(dir, "in", entry->num_parameters());
  if (FileExists(extra)) {
    return absl::InvalidArgumentError(
        absl::StrCat(extra, " exists, but the entry computation has ",
                     entry->num_parameters(), " parameters"));
  }
  return inputs;
}

absl::StatusOr<std::vector<Literal>> RandomInputs(const HloModule& module,
                                                  uint64_t seed) {
  const HloComputation* entry = module.entry_computation();
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction& parameter = *entry->parameter_instruction(i);
    if (!parameter.shape().IsArray() ||
        !IsSupportedElementType(parameter.shape().element_type())) {
      return absl::InvalidArgumentError(
          absl::StrCat(ParameterText(parameter, i),
                       ": cannot make random values of this shape"));
    }
    HLOC_RETURN_IF_ERROR(CheckFitsInHostMemory(
        parameter.shape(),
        absl::StrCat(ParameterText(parameter, i), ": random values")));
    // Each parameter gets its own stream, so its values do not depend on
    // the other parameters' sizes.
    Random stream(seed ^
                  (0x51ed27a3c5e0f1b1ull * static_cast<uint64_t>(i + 1)));
    inputs.push_back(RandomArray(parameter.shape(), stream.Next()));
  }
  return inputs;
}

std::vector<Literal> FlattenResult(Literal result) {
  std::vector<Literal> leaves;
  FlattenInto(std::move(result), &leaves);
  return leaves;
}

namespace {

// Whether `platform` can honour the options; an error is bad input.
absl::Status CheckPlatformOptions(const HloRunPlatform& platform,
                                  const HloRunOptions& options) {
  if (platform.check_options) return platform.check_options(options);
  if (!options.disabled_passes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("flag --disable-passes: --platform=", platform.name,
                     " does not take it (cpu's pipeline does)"));
  }
  if (options.max_while_iterations > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "flag --max-while-iterations: --platform=", platform.name,
        " has no while-loop limit (the interpreter and cpu have)"));
  }
  return absl::OkStatus();
}

// The options the --reference platform runs with: the same inputs and
// numerics, its own default pipeline, no timing or profile.
HloRunOptions ReferenceOptions(const HloRunOptions& options) {
  HloRunOptions reference = options;
  reference.platform = options.reference;
  reference.target = "host";
  reference.allow_fallback.reset();
  reference.disabled_passes.clear();
  reference.iterations = 0;
  reference.time_run = false;
  reference.profile = false;
  return reference;
}

// Runs every device of a replicated run (the platform's, or a saved
// executable's).
using ReplicatedRun = std::function<absl::StatusOr<std::vector<Literal>>(
    const HloModule& module, absl::Span<const std::vector<Literal>> arguments)>;

// Writes (or prints) and compares every device's outputs: --replicas.
int RunReplicas(const HloRunOptions& options, const ReplicatedRun& run,
                HloModule& module, std::ostream& out, std::ostream& err) {
  if (!run) {
    err << "hlo-run: error: --replicas: --platform=" << options.platform
        << " runs one device; use --platform=interpreter or cpu\n";
    return kHloRunBadInput;
  }
  HloModuleConfig& config = module.mutable_config();
  const int64_t n = options.replicas;
  if (config.replica_count == 1 && config.num_partitions == 1) {
    config.replica_count = n;
  } else if (config.replica_count * config.num_partitions != n) {
    err << "hlo-run: error: --replicas=" << n << ", but module "
        << module.name() << " runs on "
        << config.replica_count * config.num_partitions
        << " devices (replica_count=" << config.replica_count
        << ", num_partitions=" << config.num_partitions << ")\n";
    return kHloRunBadInput;
  }
  const int64_t num_parameters = module.entry_computation()->num_parameters();
  std::vector<std::vector<Literal>> inputs(n);
  for (int64_t k = 0; k < n; ++k) {
    absl::StatusOr<std::vector<Literal>> device = std::vector<Literal>();
    if (!options.inputs_dir.empty()) {
      device = ReadDeviceInputs(module, options.inputs_dir, k, n);
    } else if (options.random_seed) {
      device = RandomInputs(module, *options.random_seed + k);
    } else if (num_parameters > 0) {
      device = absl::InvalidArgumentError(absl::StrCat(
          "the entry computation has ", num_parameters,
          " parameters; give --inputs=DIR or --random-inputs=SEED"));
    }
    if (!device.ok()) {
      err << "hlo-run: error: device " << k << ": "
          << device.status().message() << "\n";
      return kHloRunBadInput;
    }
    inputs[k] = *std::move(device);
  }
  absl::StatusOr<std::vector<Literal>> results = run(module, inputs);
  if (!results.ok()) {
    err << "hlo-run: error: " << options.platform << " failed to run "
        << options.module_path << ": " << results.status().message() << "\n";
    return absl::IsInvalidArgument(results.status()) ||
                   absl::IsResourceExhausted(results.status())
               ? kHloRunBadInput
               : kHloRunFailed;
  }
  if (!options.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.output_dir, ec);
    if (ec) {
      err << "hlo-run: error: " << options.output_dir
          << ": cannot create directory: " << ec.message() << "\n";
      return kHloRunBadInput;
    }
  }
  int status = kHloRunMatch;
  for (int64_t k = 0; k < n; ++k) {
    const std::string suffix = DeviceSuffix(k);
    const std::vector<Literal> outputs =
        FlattenResult(std::move((*results)[k]));
    for (size_t i = 0; i < outputs.size() && !options.output_dir.empty();
         ++i) {
      absl::Status written =
          WriteNpy(NpyPath(options.output_dir, "out", i, suffix), outputs[i]);
      if (!written.ok()) {
        err << "hlo-run: error: " << written.message() << "\n";
        return kHloRunBadInput;
      }
    }
    out << "device " << k << " (replica " << k / config.num_partitions
        << ", partition " << k % config.num_partitions << "):\n";
    if (!options.expect_dir.empty()) {
      absl::StatusOr<std::vector<Literal>> expected =
          ReadExpected(options.expect_dir, outputs, suffix);
      if (!expected.ok()) {
        err << "hlo-run: error: " << expected.status().message() << "\n";
        return kHloRunBadInput;
      }
      status = std::max(
          status, CompareOutputs(module, options, outputs, *expected, out,
                                 suffix));
      continue;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      out << "out" << i << suffix << " " << outputs[i].shape().ToString(false);
      if (outputs[i].element_count() <= kMaxPrintedElements) {
        out << " " << outputs[i].ValuesToString();
      }
      out << "\n";
    }
  }
  return status;
}

}  // namespace

int RunHloRun(const HloRunOptions& options, const HloRunPlatforms& platforms,
              std::ostream& out, std::ostream& err) {
  const HloRunPlatform* platform = FindPlatform(platforms, options.platform);
  if (platform == nullptr) {
    err << "hlo-run: error: unknown platform '" << options.platform
        << "' (available: " << PlatformList(platforms) << ")\n";
    return kHloRunBadInput;
  }
  const HloRunPlatform* reference = nullptr;
  const HloRunOptions reference_options = ReferenceOptions(options);
  if (!options.reference.empty()) {
    reference = FindPlatform(platforms, options.reference);
    if (reference == nullptr) {
      err << "hlo-run: error: --reference: unknown platform '"
          << options.reference << "' (available: " << PlatformList(platforms)
          << ")\n";
      return kHloRunBadInput;
    }
  }
  for (const auto& [checked, checked_options] :
       {std::pair{platform, &options},
        std::pair{reference, &reference_options}}) {
    if (checked == nullptr) continue;
    absl::Status status = CheckPlatformOptions(*checked, *checked_options);
    if (!status.ok()) {
      err << "hlo-run: error: " << status.message() << "\n";
      return kHloRunBadInput;
    }
  }
  for (const auto& [flag, dir] : {std::pair{"--inputs", &options.inputs_dir},
                                  std::pair{"--expect", &options.expect_dir}}) {
    std::error_code ec;
    if (!dir->empty() && !std::filesystem::is_directory(*dir, ec)) {
      err << "hlo-run: error: " << flag << ": " << *dir
          << " is not a directory\n";
      return kHloRunBadInput;
    }
  }
  // A saved executable (hlo-opt --stage=executable) runs as it was
  // compiled; its module says what the inputs are.
  SavedExecutable saved;
  absl::StatusOr<std::unique_ptr<HloModule>> module;
  if (IsSavedExecutable(options)) {
    if (!platform->load_executable) {
      module = absl::InvalidArgumentError(
          absl::StrCat(options.module_path, ": --platform=", options.platform,
                       " cannot run a saved executable"));
    } else if (!options.disabled_passes.empty()) {
      module = absl::InvalidArgumentError(absl::StrCat(
          "flag --disable-passes: ", options.module_path,
          " is compiled already (give hlo-opt --disable-passes when saving "
          "it)"));
    } else if (options.drop_debug_callbacks) {
      module = absl::InvalidArgumentError(absl::StrCat(
          "flag --drop-debug-callbacks: ", options.module_path,
          " is compiled already (give hlo-opt --drop-debug-callbacks when "
          "saving it)"));
    } else {
      absl::StatusOr<SavedExecutable> loaded =
          platform->load_executable(options);
      if (loaded.ok()) {
        saved = *std::move(loaded);
        module = std::move(saved.module);
      } else {
        module = loaded.status();
      }
    }
  } else {
    module = LoadModule(options.module_path, options.format);
  }
  if (!module.ok()) {
    err << "hlo-run: error: " << module.status().message() << "\n";
    return kHloRunBadInput;
  }
  // Once for every platform (and the reference): each refuses the
  // callbacks left (hlo/host_callbacks.h), and a used one is refused here.
  if (options.drop_debug_callbacks) {
    absl::StatusOr<bool> dropped =
        HostCallbacks(/*drop=*/true, &err).Run(module->get());
    if (!dropped.ok()) {
      err << "hlo-run: error: " << dropped.status().message() << "\n";
      return kHloRunFailed;
    }
  }
  if (options.replicas > 0) {
    ReplicatedRun run;
    if (saved.run_replicated) {
      run = [&saved](const HloModule&,
                     absl::Span<const std::vector<Literal>> arguments) {
        return saved.run_replicated(arguments);
      };
    } else if (!saved.run && platform->run_replicated) {
      run = [platform, &options](
                const HloModule& module,
                absl::Span<const std::vector<Literal>> arguments) {
        return platform->run_replicated(module, arguments, options);
      };
    }
    return RunReplicas(options, run, **module, out, err);
  }
  const int64_t num_parameters =
      (*module)->entry_computation()->num_parameters();

  absl::StatusOr<std::vector<Literal>> inputs = std::vector<Literal>();
  if (!options.inputs_dir.empty()) {
    inputs = ReadInputs(**module, options.inputs_dir);
  } else if (options.random_seed) {
    inputs = RandomInputs(**module, *options.random_seed);
  } else if (num_parameters > 0) {
    inputs = absl::InvalidArgumentError(
        absl::StrCat("the entry computation has ", num_parameters,
                     " parameters; give --inputs=DIR or --random-inputs=SEED"));
  }
  if (!inputs.ok()) {
    err << "hlo-run: error: " << inputs.status().message() << "\n";
    return kHloRunBadInput;
  }

  // A failed run: a value too large for the host is the module's fault, as
  // a shape mismatch is (bad input, whatever platform found it); anything
  // else is the platform's.
  auto run_failed = [&](absl::string_view name, const absl::Status& status) {
    err << "hlo-run: error: " << name << " failed to run "
        << options.module_path << ": " << status.message() << "\n";
    return absl::IsResourceExhausted(status) ? kHloRunBadInput : kHloRunFailed;
  };
  absl::StatusOr<Literal> result =
      saved.run ? saved.run(*inputs)
                : platform->run_module(**module, *inputs, options);
  if (!result.ok()) return run_failed(options.platform, result.status());
  const std::vector<Literal> outputs = FlattenResult(*std::move(result));

  if (!options.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.output_dir, ec);
    if (ec) {
      err << "hlo-run: error: " << options.output_dir
          << ": cannot create directory: " << ec.message() << "\n";
      return kHloRunBadInput;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      absl::Status status =
          WriteNpy(NpyPath(options.output_dir, "out", i), outputs[i]);
      if (!status.ok()) {
        err << "hlo-run: error: " << status.message() << "\n";
        return kHloRunBadInput;
      }
    }
  }

  if (reference != nullptr) {
    absl::StatusOr<Literal> expected =
        reference->run_module(**module, *inputs, reference_options);
    if (!expected.ok()) {
      return run_failed(absl::StrCat(options.reference, " (the reference)"),
                        expected.status());
    }
    std::vector<Literal> expected_outputs = FlattenResult(*std::move(expected));
    if (expected_outputs.size() != outputs.size()) {
      err << "hlo-run: error: " << options.platform << " gave "
          << outputs.size() << " outputs, the reference " << options.reference
          << " " << expected_outputs.size() << "\n";
      return kHloRunMismatch;
    }
    out << options.platform << " against the reference " << options.reference
        << ":\n";
    return CompareOutputs(**module, options, outputs, expected_outputs, out);
  }
  if (!options.expect_dir.empty()) {
    absl::StatusOr<std::vector<Literal>> expected =
        ReadExpected(options.expect_dir, outputs);
    if (!expected.ok()) {
      err << "hlo-run: error: " << expected.status().message() << "\n";
      return kHloRunBadInput;
    }
    return CompareOutputs(**module, options, outputs, *expected, out);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    out << "out" << i << " " << outputs[i].shape().ToString(false);
    if (outputs[i].element_count() <= kMaxPrintedElements) {
      out << " " << outputs[i].ValuesToString();
    } else if (!options.output_dir.empty()) {
      out << " -> " << NpyPath(options.output_dir, "out", i);
    } else {
      out << " (" << outputs[i].element_count()
          << " elements; --output=DIR saves them)";
    }
    out << "\n";
  }
  return kHloRunMatch;
}

int HloRunMain(const std::vector<std::string>& args,
               const HloRunPlatforms& platforms, std::ostream& out,
               std::ostream& err) {
  absl::StatusOr<HloRunOptions> options = ParseHloRunOptions(args);
  if (!options.ok()) {
    err << "hlo-run: error: " << options.status().message()
        << "\n(hlo-run --help lists the flags)\n";
    return kHloRunBadInput;
  }
  if (options->help) {
    out << HloRunUsage(platforms);
    return kHloRunMatch;
  }
  const int status = RunHloRun(*options, platforms, out, err);
  // A table that could not be written (a full disk, a closed pipe) is not
  // a success.
  out.flush();
  if (!out && status == kHloRunMatch) {
    err << "hlo-run: error: cannot write to standard output\n";
    return kHloRunBadInput;
  }
  return status;
}

}  // namespace hloc
