#include "passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"

namespace hloc {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

HloPassPipeline::HloPassPipeline(std::string name) : name_(std::move(name)) {}

HloPass* HloPassPipeline::AddPass(std::unique_ptr<HloPass> pass) {
  Entry entry;
  // A nested pipeline runs under this one's options and dump numbering.
  entry.sub_pipeline = dynamic_cast<HloPassPipeline*>(pass.get());
  entry.pass = std::move(pass);
  entries_.push_back(std::move(entry));
  return entries_.back().pass.get();
}

HloPassPipeline* HloPassPipeline::AddFixedPoint(std::string name,
                                                int max_iterations) {
  auto sub = std::make_unique<HloPassPipeline>(std::move(name));
  sub->max_iterations_ = max_iterations < 1 ? 1 : max_iterations;
  HloPassPipeline* raw = sub.get();
  AddPass(std::move(sub));
  return raw;
}

absl::StatusOr<bool> HloPassPipeline::Run(HloModule* module) {
  absl::Status names = CheckDisabledPasses();
  if (!names.ok()) return names;
  RunState state{&options_};
  state.between_passes_seconds = &between_passes_seconds_;
  if (!options_.dump_dir.empty()) {
    absl::Status status = AfterPass(*module, "input", /*changed=*/true, &state);
    if (!status.ok()) return status;
  }
  return RunWithState(module, &state);
}

absl::StatusOr<bool> HloPassPipeline::RunWithState(HloModule* module,
                                                   RunState* state) {
  bool changed = false;
  for (int iteration = 0; iteration < max_iterations_; ++iteration) {
    if (max_iterations_ > 1) Count("iterations");
    absl::StatusOr<bool> iteration_changed = RunOnce(module, state);
    if (!iteration_changed.ok()) return iteration_changed.status();
    if (!*iteration_changed) return changed;
    changed = true;
  }
  // A run that still changes the module after the cap is not wrong, only
  // unfinished; the counter makes it visible with --stats.
  if (max_iterations_ > 1) Count("iteration-cap-reached");
  return changed;
}

absl::StatusOr<bool> HloPassPipeline::RunOnce(HloModule* module,
                                              RunState* state) {
  bool changed = false;
  for (Entry& entry : entries_) {
    if (state->options->disabled_passes.count(std::string(entry.pass->name())))
      continue;
    const Clock::time_point start = Clock::now();
    absl::StatusOr<bool> pass_changed =
        entry.sub_pipeline != nullptr
            ? entry.sub_pipeline->RunWithState(module, state)
            : entry.pass->Run(module);
    if (entry.sub_pipeline == nullptr) entry.seconds += SecondsSince(start);
    if (!pass_changed.ok()) {
      if (entry.sub_pipeline != nullptr) return pass_changed.status();
      return absl::Status(
          pass_changed.status().code(),
          absl::StrCat("pass '", entry.pass->name(),
                       "' failed: ", pass_changed.status().message()));
    }
    ++entry.runs;
    if (*pass_changed) ++entry.changed;
    changed |= *pass_changed;
    // A sub-pipeline checks and dumps after each of its own passes.
    if (entry.sub_pipeline == nullptr) {
      const Clock::time_point after = Clock::now();
      absl::Status status =
          AfterPass(*module, entry.pass->name(), *pass_changed, state);
      if (state->between_passes_seconds != nullptr) {
        *state->between_passes_seconds += SecondsSince(after);
      }
      if (!status.ok()) return status;
    }
  }
  return changed;
}

namespace {

// Writes `module` as DIR/NNNN.<name>.hlo (the counter advances); returns
// the path.
absl::StatusOr<std::string> WriteDump(const HloModule& module,
                                      const std::string& dir,
                                      absl::string_view name,
                                      int64_t* counter) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create dump directory '", dir, "': ", error.message()));
  }
  std::string path =
      absl::StrFormat("%s/%04d.%s.hlo", dir, (*counter)++, std::string(name));
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << PrintModule(module);
  file.close();
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write dump file '", path, "'"));
  }
  return path;
}

}  // namespace

absl::Status HloPassPipeline::AfterPass(const HloModule& module,
                                        absl::string_view pass_name,
                                        bool changed, RunState* state) {
  const PipelineOptions& options = *state->options;
  if (options.verify) {
    absl::Status status = VerifyModule(module);
    if (!status.ok()) {
      std::string message = absl::StrCat("module is invalid after pass '",
                                         pass_name, "': ", status.message());
      // The module the verifier rejected is the one to look at (or attach
      // to a bug report), so it is dumped whatever dump_unchanged says.
      if (!options.dump_dir.empty()) {
        absl::StatusOr<std::string> path = WriteDump(
            module, options.dump_dir, absl::StrCat(pass_name, ".invalid"),
            &state->dump_counter);
        if (path.ok()) {
          absl::StrAppend(&message, " (the invalid module: ", *path, ")");
        } else {
          absl::StrAppend(&message, " (", path.status().message(), ")");
        }
      }
      return absl::InternalError(message);
    }
  }
  if (options.dump_dir.empty() || (!changed && !options.dump_unchanged)) {
    return absl::OkStatus();
  }
  return WriteDump(module, options.dump_dir, pass_name, &state->dump_counter)
      .status();
}

std::string HloPassPipeline::ToString() const {
  std::vector<std::string> parts;
  for (const Entry& entry : entries_) {
    parts.push_back(entry.sub_pipeline != nullptr
                        ? entry.sub_pipeline->ToString()
                        : std::string(entry.pass->name()));
  }
  std::string list = absl::StrJoin(parts, ",");
  if (max_iterations_ > 1) return absl::StrCat("fixed-point(", list, ")");
  return list;
}

void HloPassPipeline::CollectPassNames(std::set<std::string>* names) const {
  for (const Entry& entry : entries_) {
    names->insert(std::string(entry.pass->name()));
    if (entry.sub_pipeline != nullptr) {
      entry.sub_pipeline->CollectPassNames(names);
    }
  }
}

std::vector<std::string> HloPassPipeline::PassNames() const {
  std::set<std::string> names;
  CollectPassNames(&names);
  return std::vector<std::string>(names.begin(), names.end());
}

absl::Status HloPassPipeline::CheckDisabledPasses() const {
  const std::vector<std::string> known = PassNames();
  std::vector<std::string> unknown;
  for (const std::string& name : options_.disabled_passes) {
    if (!std::binary_search(known.begin(), known.end(), name)) {
      unknown.push_back(name);
    }
  }
  if (unknown.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(unknown.size() == 1 ? "unknown pass '" : "unknown passes '",
                   absl::StrJoin(unknown, "', '"), "' to disable: pipeline ",
                   name_, " has ", absl::StrJoin(known, ", ")));
}

void HloPassPipeline::AppendStatistics(std::string* out) const {
  // Zero counters are left out, as LLVM's -stats does.
  auto line = [out](int64_t value, absl::string_view pass,
                    absl::string_view counter) {
    if (value == 0) return;
    absl::StrAppendFormat(out, "%8d %s - %s\n", value, std::string(pass),
                          std::string(counter));
  };
  for (const auto& [counter, value] : statistics()) line(value, name_, counter);
  for (const Entry& entry : entries_) {
    if (entry.sub_pipeline != nullptr) {
      entry.sub_pipeline->AppendStatistics(out);
      continue;
    }
    line(entry.runs, entry.pass->name(), "runs");
    line(entry.changed, entry.pass->name(), "changed");
    for (const auto& [counter, value] : entry.pass->statistics()) {
      line(value, entry.pass->name(), counter);
    }
  }
}

std::string HloPassPipeline::StatisticsReport() const {
  std::string out;
  AppendStatistics(&out);
  return out;
}

void HloPassPipeline::CollectPassTimes(std::vector<PassTime>* rows) const {
  for (const Entry& entry : entries_) {
    if (entry.sub_pipeline != nullptr) {
      entry.sub_pipeline->CollectPassTimes(rows);
      continue;
    }
    const absl::string_view name = entry.pass->name();
    auto row = std::find_if(rows->begin(), rows->end(),
                            [&](const PassTime& r) { return r.name == name; });
    if (row == rows->end()) {
      rows->push_back({std::string(name), 0, 0});
      row = std::prev(rows->end());
    }
    row->runs += entry.runs;
    row->seconds += entry.seconds;
  }
}

std::vector<PassTime> HloPassPipeline::PassTimes() const {
  std::vector<PassTime> rows;
  CollectPassTimes(&rows);
  if (between_passes_seconds_ > 0) {
    int64_t runs = 0;
    for (const PassTime& row : rows) runs += row.runs;
    rows.push_back(
        {"(verify and dump between passes)", runs, between_passes_seconds_});
  }
  return rows;
}

std::string FormatPassTimes(std::vector<PassTime> rows, double total_seconds) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const PassTime& a, const PassTime& b) {
                     if (a.seconds != b.seconds) return a.seconds > b.seconds;
                     return a.name < b.name;
                   });
  const std::string rule(77, '-');
  std::string out = absl::StrCat("===", rule, "===\n");
  absl::StrAppend(&out, std::string(27, ' '), "hloc execution timing report\n");
  absl::StrAppend(&out, "===", rule, "===\n");
  absl::StrAppendFormat(&out, "  Total: %.4f s\n\n", total_seconds);
  absl::StrAppend(&out, "   Wall (s)   Share   Runs  Name\n");
  for (const PassTime& row : rows) {
    const double share =
        total_seconds > 0 ? 100.0 * row.seconds / total_seconds : 0.0;
    absl::StrAppendFormat(&out, "  %9.4f  %5.1f%%  %5d  %s\n", row.seconds,
                          share, row.runs, row.name);
  }
  return out;
}

}  // namespace hloc
