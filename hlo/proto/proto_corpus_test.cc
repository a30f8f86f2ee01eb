// The proto bridge on the JAX corpus: every module.pb imports with its names,
// metadata and constants; exporting reproduces JAX's bytes field for field
// (except what the IR does not model) and re-imports to the same module; the
// proto and the text (module.hlo) give structurally equal modules; and text
// -> proto -> text prints identically, also for XLA's optimized modules.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "hlo/proto/proto_export.h"
#include "hlo/proto/proto_import.h"
#include "hlo/proto/proto_test_util.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

// The first line where two printed modules differ, or "" if they agree.
std::string FirstDifference(const std::string& a, const std::string& b) {
  std::vector<std::string> x = absl::StrSplit(a, '\n');
  std::vector<std::string> y = absl::StrSplit(b, '\n');
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const std::string& u = i < x.size() ? x[i] : "<end>";
    const std::string& v = i < y.size() ? y[i] : "<end>";
    if (u != v) return absl::StrCat("line ", i + 1, ":\n  ", u, "\n  ", v);
  }
  return "";
}

std::vector<std::string> Cases() {
  std::vector<std::string> cases = CorpusCases();
  EXPECT_EQ(cases.size(), 30u)
      << "shared/corpus/jax not found next to the checkout (set "
         "HLOC_CORPUS_DIR to override)";
  return cases;
}

TEST(ProtoCorpusTest, EveryModuleImportsWithNamesMetadataAndValues) {
  for (const std::string& name : Cases()) {
    SCOPED_TRACE(name);
    const std::string path = CorpusFile(name, "module.pb");
    std::string contents;
    ASSERT_TRUE(ReadFileToString(path, &contents));
    const std::string* bytes = &contents;
    xla::HloModuleProto proto;
    ASSERT_TRUE(proto.ParseFromString(*bytes));
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModuleProtoBytes(*bytes, path);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ((*m)->name(), proto.name());
    EXPECT_EQ((*m)->entry_computation()->name(),
              proto.entry_computation_name());
    EXPECT_EQ((*m)->computation_count(), proto.computations_size());
    EXPECT_EQ(
        (*m)->stack_frames().stack_frames.size(),
        static_cast<size_t>(proto.stack_frame_index().stack_frames_size()));
    for (const xla::HloComputationProto& c : proto.computations()) {
      HloComputation* computation = (*m)->GetComputationWithName(c.name());
      ASSERT_NE(computation, nullptr) << c.name();
      EXPECT_EQ(computation->unique_id(), c.id());
      EXPECT_EQ(computation->instruction_count(), c.instructions_size());
      for (const xla::HloInstructionProto& i : c.instructions()) {
        HloInstruction* instr = computation->GetInstructionWithName(i.name());
        ASSERT_NE(instr, nullptr) << i.name();
        EXPECT_EQ(instr->unique_id(), i.id());
        EXPECT_EQ(HloOpcodeString(instr->opcode()), i.opcode());
        EXPECT_EQ(instr->metadata().op_name, i.metadata().op_name());
        EXPECT_EQ(instr->metadata().stack_frame_id,
                  i.metadata().stack_frame_id());
        if (i.literal().f32s_size() > 0) {
          const Literal& literal = instr->literal();
          ASSERT_EQ(literal.element_count(), i.literal().f32s_size());
          for (int k = 0; k < i.literal().f32s_size(); ++k) {
            float want = i.literal().f32s(k);
            float got = literal.data<float>()[k];
            EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want)));
          }
        }
      }
    }
  }
}

// Drops what XLA writes but the IR does not model (and empty messages, whose
// presence carries nothing), so the rest can be compared byte for byte.
void Normalize(xla::HloModuleProto* p) {
  p->clear_id();
  for (auto& c : *p->mutable_computations()) {
    for (auto& i : *c.mutable_instructions()) {
      i.clear_statistics_viz();
      i.clear_sparsity_config();
      i.clear_block_scaling_config();
      if (i.frontend_attributes().map().empty()) i.clear_frontend_attributes();
      if (i.metadata().ByteSizeLong() == 0) i.clear_metadata();
    }
  }
}

TEST(ProtoCorpusTest, ExportReproducesJaxProtosAndReimportsIdentically) {
  for (const std::string& name : Cases()) {
    SCOPED_TRACE(name);
    const std::string path = CorpusFile(name, "module.pb");
    std::string contents;
    ASSERT_TRUE(ReadFileToString(path, &contents));
    const std::string* bytes = &contents;
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModuleProtoBytes(*bytes, path);
    ASSERT_TRUE(m.ok()) << m.status();
    ExpectRoundTrips(**m);

    xla::HloModuleProto original;
    ASSERT_TRUE(original.ParseFromString(*bytes));
    absl::StatusOr<xla::HloModuleProto> exported = ExportHloModuleProto(**m);
    ASSERT_TRUE(exported.ok()) << exported.status();
    Normalize(&original);
    Normalize(&*exported);
    ASSERT_EQ(exported->computations_size(), original.computations_size());
    for (int c = 0; c < original.computations_size(); ++c) {
      const auto& a = original.computations(c);
      const auto& b = exported->computations(c);
      ASSERT_EQ(a.instructions_size(), b.instructions_size());
      for (int i = 0; i < a.instructions_size(); ++i) {
        EXPECT_EQ(a.instructions(i).SerializeAsString(),
                  b.instructions(i).SerializeAsString())
            << "JAX:\n"
            << a.instructions(i).DebugString() << "ours:\n"
            << b.instructions(i).DebugString();
      }
      EXPECT_EQ(a.program_shape().SerializeAsString(),
                b.program_shape().SerializeAsString());
      EXPECT_EQ(a.id(), b.id());
      EXPECT_EQ(a.root_id(), b.root_id());
    }
    EXPECT_EQ(original.host_program_shape().SerializeAsString(),
              exported->host_program_shape().SerializeAsString());
    EXPECT_EQ(original.stack_frame_index().SerializeAsString(),
              exported->stack_frame_index().SerializeAsString());
    EXPECT_EQ(original.entry_computation_id(),
              exported->entry_computation_id());
  }
}

TEST(ProtoCorpusTest, ProtoAndTextGiveTheSameModule) {
  for (const std::string& name : Cases()) {
    SCOPED_TRACE(name);
    std::string bytes, text;
    ASSERT_TRUE(ReadFileToString(CorpusFile(name, "module.pb"), &bytes));
    ASSERT_TRUE(ReadFileToString(CorpusFile(name, "module.hlo"), &text));
    absl::StatusOr<std::unique_ptr<HloModule>> from_proto =
        ParseHloModuleProtoBytes(bytes, CorpusFile(name, "module.pb"));
    ASSERT_TRUE(from_proto.ok()) << from_proto.status();
    absl::StatusOr<std::unique_ptr<HloModule>> from_text =
        ParseHloModule(text, CorpusFile(name, "module.hlo"));
    ASSERT_TRUE(from_text.ok()) << from_text.status();
    EXPECT_TRUE((*from_proto)->StructurallyEqual(**from_text));
    // The text printer shows the same module for both (the JAX text has no
    // metadata, so compare without it).
    PrintOptions options;
    options.print_metadata = false;
    EXPECT_EQ(FirstDifference(PrintModule(**from_proto, options),
                              PrintModule(**from_text, options)),
              "");
  }
}

// The importer's canonical forms are the text parser's: printing an imported
// module and parsing the text back gives the same module, for a module using
// nearly every attribute.
TEST(ProtoTextTest, KitchenSinkPrintsAndParsesBack) {
  absl::StatusOr<std::unique_ptr<HloModule>> imported =
      ImportHloModuleProto(TextProto(KitchenSink()));
  ASSERT_TRUE(imported.ok()) << imported.status();
  const std::string printed = PrintModule(**imported);
  absl::StatusOr<std::unique_ptr<HloModule>> parsed =
      ParseHloModule(printed, "kitchen_sink.hlo");
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << printed;
  EXPECT_TRUE((*imported)->StructurallyEqual(**parsed)) << printed;
  EXPECT_EQ(FirstDifference(PrintModule(**parsed), printed), "");
  ExpectRoundTrips(**parsed);
}

TEST(ProtoCorpusTest, TextThroughProtoIsTheIdentity) {
  int checked = 0;
  for (const std::string& name : Cases()) {
    for (const char* file : {"module.hlo", "xla_gpu_opt.hlo"}) {
      const std::string path = CorpusFile(name, file);
      SCOPED_TRACE(path);
      std::string text;
      ASSERT_TRUE(ReadFileToString(path, &text));
      absl::StatusOr<std::unique_ptr<HloModule>> parsed =
          ParseHloModule(text, path);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      absl::StatusOr<std::string> bytes = SerializeHloModule(**parsed);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      absl::StatusOr<std::unique_ptr<HloModule>> back =
          ParseHloModuleProtoBytes(*bytes, "exported");
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_TRUE((*parsed)->StructurallyEqual(**back));
      // Module-level options outside HloModuleProto (in XLA they travel in
      // the compilation options) cannot come back.
      (*parsed)->mutable_config().raw_attributes.clear();
      EXPECT_EQ(FirstDifference(PrintModule(**back), PrintModule(**parsed)),
                "");
      ExpectRoundTrips(**parsed);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 60);
}

}  // namespace
}  // namespace hloc
