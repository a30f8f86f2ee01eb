// hlo-diff-fuzz: the differential fuzzer's driver. Generates modules from
// consecutive seeds and checks each (differential_check.h) until a count or
// a time budget is spent; a disagreement is written to --out as
// diff-<seed>.hlo (its inputs follow from the seed: MakeDifferentialInput
// with input seed = module seed) and ends the run with exit 1.
//
//   hlo-diff-fuzz [--seed=S] [--count=N] [--seconds=T] [--out=DIR]
//   hlo-diff-fuzz --print --seed=S       (the module of seed S, unchecked:
//                                         for a run that crashed)
//   hlo-diff-fuzz --replay FILE.hlo...   (check saved modules; the input
//                                         seed is the N of diff-N.hlo)
//   hlo-diff-fuzz --write-cases=DIR [--seed=S] [--count=N]
//       (N modules for another target, unchecked: DIR/diff-<seed>/
//        module.hlo and in<i>.npy; see WriteCases)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "fuzz/differential/differential_check.h"
#include "fuzz/differential/module_generator.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "runtime/npy.h"

namespace {

bool Flag(const std::string& arg, const char* name, std::string* value) {
  const std::string prefix = std::string("--") + name + "=";
  if (!absl::StartsWith(arg, prefix)) return false;
  *value = arg.substr(prefix.size());
  return true;
}

// --write-cases: `count` modules from consecutive seeds (those
// ForExactTarget keeps) as case folders for hlo-run or another target's check
// (scripts/gpu_check.sh: compiled for cuda, expected outputs from the
// evaluator). The inputs are MakeDifferentialInputs', as CheckModule's.
int WriteCases(const std::string& dir, uint64_t seed, int64_t count) {
  int64_t written = 0;
  for (uint64_t s = seed; written < count; ++s) {
    hloc::fuzz::RandomSource source(s);
    std::optional<std::string> text =
        hloc::fuzz::ForExactTarget(hloc::fuzz::GenerateModule(source));
    if (!text) continue;
    auto module = hloc::ParseHloModule(*text, "generated");
    if (!module.ok() || !hloc::VerifyModule(**module).ok()) {
      std::fprintf(stderr, "seed %llu: the generated module is invalid\n%s\n",
                   static_cast<unsigned long long>(s), text->c_str());
      return 1;
    }
    const std::string case_dir = absl::StrCat(dir, "/diff-", s);
    std::filesystem::create_directories(case_dir);
    std::ofstream(case_dir + "/module.hlo") << *text;
    const std::vector<hloc::Literal> inputs =
        hloc::fuzz::MakeDifferentialInputs(*(*module)->entry_computation(), s);
    for (size_t i = 0; i < inputs.size(); ++i) {
      absl::Status st =
          hloc::WriteNpy(absl::StrCat(case_dir, "/in", i, ".npy"), inputs[i]);
      if (!st.ok()) {
        std::fprintf(stderr, "%s: %s\n", case_dir.c_str(),
                     std::string(st.message()).c_str());
        return 1;
      }
    }
    ++written;
  }
  std::fprintf(stderr, "%lld cases in %s\n", static_cast<long long>(written),
               dir.c_str());
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: hlo-diff-fuzz [--seed=S] [--count=N] [--seconds=T] "
               "[--out=DIR] | --print --seed=S | --replay FILE... | "
               "--write-cases=DIR [--seed=S] [--count=N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int64_t count = -1;
  double seconds = -1;
  std::string out = ".";
  std::string cases_dir;
  bool print = false;
  if (argc >= 2 && std::string(argv[1]) == "--replay") {
    int failures = 0;
    for (int i = 2; i < argc; ++i) {
      std::ifstream in(argv[i], std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "%s: cannot open\n", argv[i]);
        return 2;
      }
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      uint64_t input_seed = 0;
      const std::string stem = std::filesystem::path(argv[i]).stem().string();
      if (absl::StartsWith(stem, "diff-")) {
        (void)absl::SimpleAtoi(stem.substr(5), &input_seed);
      }
      absl::Status status = hloc::fuzz::CheckModule(text, input_seed);
      std::fprintf(stderr, "%s: %s\n", argv[i],
                   status.ok() ? "agrees" : std::string(status.message()).c_str());
      failures += !status.ok();
    }
    return failures ? 1 : 0;
  }
  for (int i = 1; i < argc; ++i) {
    std::string v;
    const std::string arg = argv[i];
    if (Flag(arg, "seed", &v)) {
      if (!absl::SimpleAtoi(v, &seed)) return Usage();
    } else if (Flag(arg, "count", &v)) {
      if (!absl::SimpleAtoi(v, &count)) return Usage();
    } else if (Flag(arg, "seconds", &v)) {
      if (!absl::SimpleAtod(v, &seconds)) return Usage();
    } else if (Flag(arg, "out", &v)) {
      out = v;
    } else if (Flag(arg, "write-cases", &v)) {
      cases_dir = v;
    } else if (arg == "--print") {
      print = true;
    } else {
      return Usage();
    }
  }
  if (print) {
    hloc::fuzz::RandomSource source(seed);
    std::fputs(hloc::fuzz::GenerateModule(source).c_str(), stdout);
    return 0;
  }
  if (!cases_dir.empty()) {
    return WriteCases(cases_dir, seed, count < 0 ? 100 : count);
  }
  if (count < 0 && seconds < 0) count = 100;
  const auto start = std::chrono::steady_clock::now();
  int64_t done = 0;
  for (uint64_t s = seed;; ++s) {
    if (count >= 0 && done >= count) break;
    const double elapsed = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count();
    if (seconds >= 0 && elapsed >= seconds) break;
    hloc::fuzz::RandomSource source(s);
    const std::string text = hloc::fuzz::GenerateModule(source);
    absl::Status status = hloc::fuzz::CheckModule(text, s);
    ++done;
    if (!status.ok()) {
      const std::string path = out + "/diff-" + std::to_string(s) + ".hlo";
      std::ofstream(path) << text;
      std::fprintf(stderr, "seed %llu: %s\nwritten to %s\n",
                   static_cast<unsigned long long>(s),
                   std::string(status.message()).c_str(), path.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "%lld modules from seed %llu: cpu and evaluator agree\n",
               static_cast<long long>(done),
               static_cast<unsigned long long>(seed));
  return 0;
}
