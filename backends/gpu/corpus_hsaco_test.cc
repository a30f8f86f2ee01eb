// Every module of the shared JAX corpus (module.hlo as JAX wrote it and
// xla_gpu_opt.hlo, XLA's own optimized module) goes through the rocm
// pipeline and compiles to an HSA code object for gfx90a, gfx942 and
// gfx1100, which llvm-readobj accepts and which has, per kernel the
// executable launches, a kernel descriptor and metadata whose register,
// LDS and work-group numbers fit the architecture and the launch; and no
// undefined symbols. No AMD GPU is needed. Modules with instructions the
// backend cannot compile are listed in KnownUnsupported with the reason;
// the test fails if that list is wrong either way.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/hsaco_readobj.h"
#include "gtest/gtest.h"
#include "hlo/math_util.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

// "case/file" -> a substring of the Unimplemented message.
const std::map<std::string, std::string>& KnownUnsupported() {
  static const auto* known = new std::map<std::string, std::string>{
      // None: XLA:GPU's __cudnn$convForward calls are convolutions again
      // (passes/cudnn_convolution_calls.h). A module that stops compiling
      // is listed here with the reason.
  };
  return *known;
}

// Register files, from AMD's CDNA2/CDNA3 and RDNA3 ISA guides and LLVM's
// AMDGPUUsage: the VGPRs a SIMD holds per lane (CDNA: 512, arch and
// accumulation registers unified; gfx1100: 1536 for wave32), the most one
// wave may use, and the SIMDs a work-group's waves share (a CU's 4 on
// CDNA; a WGP's 4 on RDNA in the backend's default WGP mode). SGPRs: 102
// addressable plus VCC, FLAT_SCRATCH and XNACK_MASK on gfx9 (106 plus VCC
// on gfx10+): 108 either way.
struct ArchLimits {
  int64_t vgprs_per_simd;
  int64_t max_vgprs_per_wave;
  int64_t simds_per_group;
  int64_t max_sgprs;
};

ArchLimits LimitsOf(const std::string& arch) {
  if (arch == "gfx1100") return {1536, 256, 4, 108};
  return {512, 512, 4, 108};
}

struct Case {
  std::string name;
  std::string file;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name << "/" << c.file;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const std::string& name : CorpusCases()) {
    for (const char* file : {"module.hlo", "xla_gpu_opt.hlo"}) {
      cases.push_back({name, file});
    }
  }
  return cases;
}

// The kernels `steps` launch (control flow's nested steps too), with the
// largest block each is launched with and its dynamic LDS.
void CollectLaunches(const std::vector<ExecutableStep>& steps,
                     std::map<std::string, LaunchDims>* launches) {
  for (const ExecutableStep& step : steps) {
    if (step.kind == ExecutableStep::Kind::kKernel) {
      LaunchDims& dims = (*launches)[step.kernel_name];
      if (step.launch.NumThreadsPerBlock() > dims.NumThreadsPerBlock()) {
        dims = step.launch;
      }
    }
    CollectLaunches(step.condition, launches);
    CollectLaunches(step.body, launches);
    for (const auto& branch : step.branches) CollectLaunches(branch, launches);
  }
}

// Everything the code object must say about itself for `arch`.
void CheckCodeObject(const HsacoInfo& info, const Executable& executable,
                     const GpuDeviceInfo& device) {
  const std::string& arch = device.arch;
  EXPECT_EQ(info.format, "elf64-amdgpu");
  EXPECT_EQ(info.elf_type, "SharedObject");
  ASSERT_TRUE(info.has_metadata_note) << "no NT_AMDGPU_METADATA note";
  EXPECT_EQ(info.target, "amdgcn-amd-amdhsa--" + arch);
  for (const std::vector<HsacoSymbol>* table :
       {&info.symbols, &info.dynamic_symbols}) {
    for (const HsacoSymbol& s : *table) {
      if (s.name.empty()) continue;  // the ELF's null symbol
      EXPECT_NE(s.section, "Undefined") << "undefined symbol " << s.name;
    }
  }
  std::map<std::string, const HsacoSymbol*> descriptors;
  for (const HsacoSymbol& s : info.dynamic_symbols) descriptors[s.name] = &s;
  std::map<std::string, const HsacoKernel*> kernels;
  for (const HsacoKernel& k : info.kernels) kernels[k.name] = &k;
  std::map<std::string, LaunchDims> launches;
  CollectLaunches(executable.steps, &launches);
  const ArchLimits limits = LimitsOf(arch);
  for (const auto& [name, launch] : launches) {
    SCOPED_TRACE(name);
    auto it = kernels.find(name);
    ASSERT_NE(it, kernels.end()) << "no metadata for kernel " << name;
    const HsacoKernel& k = *it->second;
    EXPECT_EQ(k.symbol, name + ".kd");
    // The kernel descriptor the runtime dispatches: an object of 64 bytes
    // in the dynamic symbol table.
    auto d = descriptors.find(k.symbol);
    ASSERT_NE(d, descriptors.end()) << "no kernel descriptor " << k.symbol;
    EXPECT_EQ(d->second->type, "Object");
    EXPECT_EQ(d->second->size, 64);
    EXPECT_EQ(k.Field(".wavefront_size"), device.warp_size);
    const int64_t threads = launch.NumThreadsPerBlock();
    const int64_t max_group = k.Field(".max_flat_workgroup_size");
    EXPECT_GE(max_group, threads) << "launched with more threads than the "
                                     "code was compiled for";
    EXPECT_LE(max_group, device.max_threads_per_block);
    EXPECT_LE(k.Field(".group_segment_fixed_size") + launch.shared_memory_bytes,
              device.shared_memory_per_block);
    const int64_t vgprs = k.Field(".vgpr_count");
    const int64_t agprs = std::max<int64_t>(0, k.Field(".agpr_count"));
    EXPECT_GE(vgprs, 0);
    EXPECT_LE(vgprs, limits.max_vgprs_per_wave);
    // Every wave of the largest work-group must be resident at once.
    const int64_t waves_per_simd = CeilOfRatio(
        CeilOfRatio(max_group, device.warp_size), limits.simds_per_group);
    EXPECT_LE(waves_per_simd * std::max(vgprs, agprs), limits.vgprs_per_simd)
        << "a work-group of " << max_group << " does not fit the registers";
    EXPECT_GE(k.Field(".sgpr_count"), 0);
    EXPECT_LE(k.Field(".sgpr_count"), limits.max_sgprs);
    EXPECT_EQ(k.Field(".vgpr_spill_count"), 0);
    EXPECT_EQ(k.Field(".sgpr_spill_count"), 0);
  }
}

class CorpusHsacoTest : public ::testing::TestWithParam<Case> {};

TEST_P(CorpusHsacoTest, CodeObjectsForEveryArch) {
  const Case& c = GetParam();
  const std::string readobj = FindLlvmReadobj();
  ASSERT_FALSE(readobj.empty())
      << "llvm-readobj-19 not found on PATH (Debian: llvm-19, which "
         "scripts/setup.sh installs) nor $HLOC_LLVM_READOBJ";
  std::string text;
  std::string path = CorpusFile(c.name, c.file);
  ASSERT_TRUE(ReadFileToString(path, &text)) << "cannot read " << path;
  auto module = ParseHloModule(text, path);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string key = c.name + "/" + c.file;
  auto pipeline = MakePipeline("rocm", PipelineOptions{});
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  absl::StatusOr<bool> ran = pipeline->Run(module->get());
  ASSERT_TRUE(ran.ok()) << ran.status();
  auto known = KnownUnsupported().find(key);
  for (const std::string& arch : KnownGpuArchs("rocm")) {
    SCOPED_TRACE(arch);
    absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("rocm", arch);
    ASSERT_TRUE(device.ok()) << device.status();
    GpuCompileOptions options;
    options.platform = "rocm";
    options.arch = arch;
    absl::StatusOr<Executable> executable = CompileForGpu(**module, options);
    if (known != KnownUnsupported().end()) {
      ASSERT_FALSE(executable.ok())
          << key << " compiles now: remove it from KnownUnsupported";
      EXPECT_TRUE(absl::IsUnimplemented(executable.status()))
          << executable.status();
      EXPECT_NE(executable.status().message().find(known->second),
                std::string::npos)
          << executable.status();
      continue;
    }
    ASSERT_TRUE(executable.ok())
        << key << " " << arch << ": " << executable.status();
    EXPECT_EQ(executable->platform, "rocm");
    ASSERT_EQ(executable->device_code.size(), 1u);
    EXPECT_EQ(executable->device_code[0].format, "hsaco");
    EXPECT_EQ(executable->device_code[0].arch, arch);
    absl::StatusOr<HsacoInfo> info =
        ReadHsaco(readobj, executable->device_code[0].code);
    ASSERT_TRUE(info.ok()) << info.status();
    CheckCodeObject(*info, *executable, *device);
  }
}

// The three architectures this test covers are the rocm platform's.
TEST(CorpusHsacoTest, CoversEveryRocmArch) {
  EXPECT_EQ(KnownGpuArchs("rocm"),
            (std::vector<std::string>{"gfx90a", "gfx942", "gfx1100"}));
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusHsacoTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name =
                               info.param.name + "_" + info.param.file;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace hloc
