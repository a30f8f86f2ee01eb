// Unit tests of the HLO text printer: exact output for modules built in
// memory, a canonical text covering every attribute family that must print
// back byte for byte, and the print options.
#include "hlo/text/printer.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "hlo/text/test_util.h"

namespace hloc {
namespace {

std::unique_ptr<HloModule> BuildModule() {
  auto module = std::make_unique<HloModule>("built");
  auto add = std::make_unique<HloComputation>("add");
  HloInstruction* x = add->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Scalar(F32), "x"));
  HloInstruction* y = add->AddParameter(
      HloInstruction::CreateParameter(1, Shape::Scalar(F32), "y"));
  add->set_root_instruction(add->AddInstruction(
      HloInstruction::CreateBinary(Shape::Scalar(F32), HloOpcode::kAdd, x, y)));
  HloComputation* add_raw = module->AddEmbeddedComputation(std::move(add));

  auto main = std::make_unique<HloComputation>("main");
  HloInstruction* p = main->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Array(F32, {2, 3}), "p"));
  HloInstruction* zero = main->AddInstruction(
      HloInstruction::CreateConstant(Literal::CreateR0<float>(F32, 0.1f)));
  HloInstruction* reduce = main->AddInstruction(HloInstruction::CreateReduce(
      Shape::Array(F32, {2}), {p, zero}, {1}, add_raw));
  reduce->mutable_metadata()->op_name = "sum \"q\"";
  reduce->set_backend_config("not json");
  main->set_root_instruction(reduce);
  module->AddEntryComputation(std::move(main));
  return module;
}

constexpr char kBuilt[] =
    R"(HloModule built, entry_computation_layout={(f32[2,3]{1,0})->f32[2]{0}}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(%x, %y)
}

ENTRY %main (p: f32[2,3]) -> f32[2] {
  %p = f32[2,3]{1,0} parameter(0)
  %constant = f32[] constant(0.1)
  ROOT %reduce = f32[2]{0} reduce(%p, %constant), dimensions={1}, to_apply=%add, metadata={op_name="sum \"q\""}, backend_config="not json"
}

)";

TEST(PrinterTest, ModuleBuiltInMemory) {
  auto module = BuildModule();
  EXPECT_EQ(PrintModule(*module), kBuilt);
  auto reparsed = ParseHloModule(kBuilt);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(DiffModules(*module, **reparsed), "");
  EXPECT_EQ(PrintModule(**reparsed), kBuilt);
}

TEST(PrinterTest, Options) {
  auto module = BuildModule();
  const HloComputation* main = module->entry_computation();
  const HloInstruction* reduce = main->root_instruction();
  EXPECT_EQ(PrintInstruction(*reduce),
            "%reduce = f32[2]{0} reduce(%p, %constant), dimensions={1}, "
            "to_apply=%add, metadata={op_name=\"sum \\\"q\\\"\"}, "
            "backend_config=\"not json\"");
  PrintOptions o;
  o.print_percent = false;
  o.print_operand_shape = true;
  o.print_metadata = false;
  o.print_backend_config = false;
  EXPECT_EQ(PrintInstruction(*reduce, o),
            "reduce = f32[2]{0} reduce(f32[2,3]{1,0} p, f32[] constant), "
            "dimensions={1}, to_apply=add");
  o.print_program_shape = false;
  EXPECT_EQ(PrintComputation(*main, o),
            "main {\n"
            "  p = f32[2,3]{1,0} parameter(0)\n"
            "  constant = f32[] constant(0.1)\n"
            "  ROOT reduce = f32[2]{0} reduce(f32[2,3]{1,0} p, f32[] "
            "constant), dimensions={1}, to_apply=add\n"
            "}");
}

TEST(PrinterTest, CanonicalTextRoundTripsExactly) {
  auto module = ParseHloModule(kCanonicalModule, "canonical.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string printed = PrintModule(**module);
  EXPECT_EQ(printed, kCanonicalModule);
  auto again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(DiffModules(**module, **again), "");
}

TEST(PrinterTest, BackendConfigIsBareOnlyWhenItReadsBackVerbatim) {
  auto module = BuildModule();
  HloInstruction* reduce = module->entry_computation()->root_instruction();
  auto config_text = [&](const std::string& config) {
    reduce->set_backend_config(config);
    std::string line = PrintInstruction(*reduce);
    return line.substr(line.find("backend_config=") + 15);
  };
  EXPECT_EQ(config_text("{\"a\":[1,{}]}"), "{\"a\":[1,{}]}");
  EXPECT_EQ(config_text(" {\"a\":1}"), "\" {\\\"a\\\":1}\"");
  EXPECT_EQ(config_text("{\"a\":1} "), "\"{\\\"a\\\":1} \"");
  EXPECT_EQ(config_text("{(}"), "\"{(}\"");
  EXPECT_EQ(config_text("{} {}"), "\"{} {}\"");
  EXPECT_EQ(config_text("{\"unterminated}"), "\"{\\\"unterminated}\"");
  // Whatever was printed parses back to the same string.
  for (const std::string& config :
       {std::string("{\"a\":[1,{}]}"), std::string(" {\"a\":1}"),
        std::string("{(}"), std::string("x\ny\t\"z\\")}) {
    reduce->set_backend_config(config);
    auto reparsed = ParseHloModule(PrintModule(*module));
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_EQ(
        (*reparsed)->entry_computation()->root_instruction()->backend_config(),
        config);
  }
}

TEST(PrinterTest, ScheduledModulePrintsInScheduleOrder) {
  auto module = ParseHloModule(R"(HloModule s, is_scheduled=true
ENTRY e {
  b = f32[] parameter(1)
  a = f32[] parameter(0)
  ROOT r = f32[] add(a, b)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  auto& seq = (*module)->mutable_schedule()[entry];
  std::swap(seq[0], seq[1]);
  EXPECT_EQ(PrintComputation(*entry),
            "%e (a: f32[], b: f32[]) -> f32[] {\n"
            "  %a = f32[] parameter(0)\n"
            "  %b = f32[] parameter(1)\n"
            "  ROOT %r = f32[] add(%a, %b)\n"
            "}");
}

}  // namespace
}  // namespace hloc
