// Every module of the shared JAX corpus (module.hlo as JAX emits it and
// xla_gpu_opt.hlo after XLA's GPU pipeline) parses and verifies; and the
// verifier survives (errors, never crashes on) corpus modules with one
// attribute, shape, operand or callee corrupted at a time.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

TEST(VerifierCorpusTest, EveryCorpusModuleVerifies) {
  const std::vector<std::string> cases = CorpusCases();
  ASSERT_FALSE(cases.empty()) << "corpus not found (set HLOC_CORPUS_DIR)";
  int verified = 0;
  for (const std::string& name : cases) {
    for (const char* file : {"module.hlo", "xla_gpu_opt.hlo"}) {
      const std::string path = CorpusFile(name, file);
      std::string text;
      ASSERT_TRUE(ReadFileToString(path, &text)) << path;
      auto module = ParseHloModule(text, path);
      ASSERT_TRUE(module.ok()) << module.status();
      absl::Status status = VerifyModule(**module);
      EXPECT_TRUE(status.ok()) << path << ": " << status.message();
      if (status.ok()) ++verified;
    }
  }
  EXPECT_EQ(verified, 2 * static_cast<int>(cases.size()));
}

// Corruptions of one instruction; each returns a function that undoes it.
using Undo = std::function<void()>;
using Mutation = std::function<Undo(HloInstruction*, HloComputation*)>;

std::vector<Mutation> Mutations() {
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  std::vector<Mutation> m;
  auto attrs = [&m](std::function<void(HloAttributes&)> change) {
    m.push_back([change](HloInstruction* instr, HloComputation*) -> Undo {
      HloAttributes saved = instr->attrs();
      change(instr->mutable_attrs());
      return [instr, saved] { instr->mutable_attrs() = saved; };
    });
  };
  for (std::vector<int64_t> dims : std::vector<std::vector<int64_t>>{
           {}, {-1}, {1000}, {0, 0}, {kHuge, 0, 1, 2, 3}}) {
    attrs([dims](HloAttributes& a) { a.dimensions = dims; });
  }
  attrs([](HloAttributes& a) { a.dimensions.push_back(0); });
  attrs([](HloAttributes& a) {
    if (!a.slice_limits.empty()) a.slice_limits.back() = kHuge;
    if (!a.slice_starts.empty()) a.slice_starts.pop_back();
  });
  attrs([](HloAttributes& a) {
    for (int64_t& s : a.dynamic_slice_sizes) s = -s - 1;
  });
  attrs([](HloAttributes& a) {
    if (a.window && !a.window->dimensions.empty()) {
      a.window->dimensions[0].padding_high = kHuge;
      a.window->dimensions[0].base_dilation = kHuge;
    }
  });
  attrs([](HloAttributes& a) {
    if (a.window && !a.window->dimensions.empty()) {
      a.window->dimensions[0].stride = 0;
    }
  });
  attrs([](HloAttributes& a) {
    if (a.window) a.window->dimensions.pop_back();
  });
  attrs([](HloAttributes& a) {
    if (a.padding_config && !a.padding_config->dimensions.empty()) {
      a.padding_config->dimensions[0].edge_padding_high = kHuge;
      a.padding_config->dimensions[0].interior_padding = kHuge;
    }
  });
  attrs([](HloAttributes& a) {
    if (a.padding_config) a.padding_config->dimensions.clear();
  });
  attrs([](HloAttributes& a) {
    if (a.dot_dimension_numbers) {
      a.dot_dimension_numbers->lhs_contracting_dimensions.push_back(99);
    }
  });
  attrs([](HloAttributes& a) {
    if (a.dot_dimension_numbers) {
      a.dot_dimension_numbers->rhs_batch_dimensions.push_back(0);
    }
  });
  attrs([](HloAttributes& a) {
    if (a.convolution_dimension_numbers) {
      a.convolution_dimension_numbers->output_batch_dimension = 99;
    }
  });
  attrs([](HloAttributes& a) {
    if (a.convolution_dimension_numbers) {
      a.convolution_dimension_numbers->kernel_spatial_dimensions.clear();
    }
  });
  attrs([](HloAttributes& a) {
    a.feature_group_count = 0;
    a.batch_group_count = -3;
  });
  attrs([](HloAttributes& a) {
    if (a.gather_dimension_numbers) {
      a.gather_dimension_numbers->offset_dims.push_back(99);
    }
  });
  attrs([](HloAttributes& a) {
    if (a.gather_dimension_numbers) {
      a.gather_dimension_numbers->index_vector_dim = -1;
    }
    a.gather_slice_sizes.clear();
  });
  attrs([](HloAttributes& a) {
    if (a.gather_dimension_numbers) {
      a.gather_dimension_numbers->operand_batching_dims.push_back(0);
      a.gather_dimension_numbers->start_indices_batching_dims.push_back(7);
    }
  });
  attrs([](HloAttributes& a) {
    if (a.scatter_dimension_numbers) {
      a.scatter_dimension_numbers->update_window_dims = {5, 1};
      a.scatter_dimension_numbers->index_vector_dim = 77;
    }
  });
  attrs([](HloAttributes& a) {
    if (a.scatter_dimension_numbers) {
      a.scatter_dimension_numbers->inserted_window_dims.clear();
      a.scatter_dimension_numbers->scatter_dims_to_operand_dims.push_back(-4);
    }
  });
  attrs([](HloAttributes& a) {
    a.tuple_index = 99;
    a.iota_dimension = -1;
    a.k = kHuge;
    a.num_carries = -1;
    a.feature_index = 99;
    a.exponent_bits = 0;
  });
  attrs([](HloAttributes& a) { a.tuple_index = -1; });
  attrs([](HloAttributes& a) { a.literal.reset(); });
  attrs([](HloAttributes& a) {
    a.fft_length.clear();
    a.parameter_number = 42;
  });
  // Shapes.
  auto shape = [&m](std::function<void(Shape*)> change) {
    m.push_back([change](HloInstruction* instr, HloComputation*) -> Undo {
      Shape saved = instr->shape();
      change(instr->mutable_shape());
      return [instr, saved] { *instr->mutable_shape() = saved; };
    });
  };
  shape([](Shape* s) { s->mutable_dimensions()->push_back(3); });
  shape([](Shape* s) {
    if (s->rank() > 0) s->mutable_dimensions()->at(0) = -7;
  });
  shape([](Shape* s) { s->set_dimensions({kHuge, kHuge}); });
  shape([](Shape* s) { s->set_element_type(PRIMITIVE_TYPE_INVALID); });
  shape([](Shape* s) { s->set_element_type(static_cast<PrimitiveType>(999)); });
  shape([](Shape* s) { s->set_element_type(TUPLE); });
  shape([](Shape* s) { *s = Shape::Tuple({*s, Shape::Token()}); });
  shape([](Shape* s) { *s = Shape::Token(); });
  shape([](Shape* s) {
    if (s->IsArray()) s->mutable_layout()->minor_to_major = {5};
  });
  shape([](Shape* s) {
    if (s->IsArray() && s->rank() > 0) s->set_dynamic_dimension(0, true);
  });
  // Operands, callees and roots.
  m.push_back([](HloInstruction* instr, HloComputation* c) -> Undo {
    if (instr->operand_count() == 0) return [] {};
    HloInstruction* old = instr->operand(0);
    HloInstruction* other = c->root_instruction();
    if (other == nullptr || !instr->ReplaceOperandWith(0, other).ok()) {
      return [] {};
    }
    return [instr, old] { (void)instr->ReplaceOperandWith(0, old); };
  });
  m.push_back([](HloInstruction* instr, HloComputation*) -> Undo {
    std::vector<HloComputation*> saved = instr->called_computations();
    instr->set_called_computations({});
    return [instr, saved] { instr->set_called_computations(saved); };
  });
  m.push_back([](HloInstruction* instr, HloComputation* c) -> Undo {
    std::vector<HloComputation*> saved = instr->called_computations();
    instr->set_called_computations({c, c, c});
    return [instr, saved] { instr->set_called_computations(saved); };
  });
  m.push_back([](HloInstruction* instr, HloComputation* c) -> Undo {
    HloInstruction* root = c->root_instruction();
    c->set_root_instruction(nullptr);
    return [c, root] { c->set_root_instruction(root); };
  });
  return m;
}

TEST(VerifierCorpusTest, CorruptedCorpusModulesGiveErrorsNotCrashes) {
  const std::vector<std::string> cases = CorpusCases();
  ASSERT_FALSE(cases.empty()) << "corpus not found (set HLOC_CORPUS_DIR)";
  const std::vector<Mutation> mutations = Mutations();
  int64_t rejected = 0;
  for (const std::string& name : cases) {
    for (const char* file : {"module.hlo", "xla_gpu_opt.hlo"}) {
      const std::string path = CorpusFile(name, file);
      std::string text;
      ASSERT_TRUE(ReadFileToString(path, &text)) << path;
      auto parsed = ParseHloModule(text, path);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      HloModule& module = **parsed;
      for (HloComputation* c : module.computations()) {
        for (HloInstruction* instr : c->instructions()) {
          for (const Mutation& mutate : mutations) {
            Undo undo = mutate(instr, c);
            if (!VerifyModule(module).ok()) ++rejected;
            undo();
          }
        }
      }
      EXPECT_TRUE(VerifyModule(module).ok()) << path;
    }
  }
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace hloc
