// The graph builder on testdata/loop_softmax.hlo as read and after the cuda
// pipeline: clusters, launch numbering (the same as CountKernels), rules on
// edges, reducers left out, folding, and the dot text's clusters and quoting.
#include "tools/graph/fusion_graph.h"

#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/fusion/kernel_count.h"
#include "passes/pipelines.h"
#include "passes/test_util.h"
#include "tools/graph/dot_writer.h"
#include "tools/graph/layered_layout.h"

namespace hloc {
namespace {

std::unique_ptr<HloModule> LoadTestModule() {
  std::ifstream in("tools/graph/testdata/loop_softmax.hlo");
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(text.str());
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

void RunCudaPipeline(HloModule* module, FusionReport* report) {
  PipelineOptions options;
  options.verify = true;
  absl::StatusOr<HloPassPipeline> pipeline =
      MakePipeline("cuda", options, report);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  absl::StatusOr<bool> changed = pipeline->Run(module);
  ASSERT_TRUE(changed.ok()) << changed.status();
}

int CountClusters(const FusionGraph& g, GraphClusterKind kind) {
  int n = 0;
  for (const GraphCluster& c : g.clusters) n += c.kind == kind ? 1 : 0;
  return n;
}

const GraphNode* NodeNamed(const FusionGraph& g, const std::string& name) {
  for (const GraphNode& n : g.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

TEST(FusionGraphTest, UnfusedModuleHasBodiesAndNoFusions) {
  std::unique_ptr<HloModule> module = LoadTestModule();
  ASSERT_NE(module, nullptr);
  FusionGraph g = BuildFusionGraph(*module, nullptr, {/*max_nodes=*/0});
  EXPECT_EQ(CountClusters(g, GraphClusterKind::kFusion), 0);
  EXPECT_EQ(CountClusters(g, GraphClusterKind::kBody), 2);  // cond, body
  EXPECT_EQ(g.kernels, CountKernels(*module).total());
  // Reducers are named on their user, not drawn.
  EXPECT_EQ(NodeNamed(g, "s"), nullptr);
  EXPECT_EQ(NodeNamed(g, "m"), nullptr);
  const GraphNode* row_max = NodeNamed(g, "row_max");
  ASSERT_NE(row_max, nullptr);
  EXPECT_NE(row_max->label.find("max_f32"), std::string::npos);
  // Every instruction of entry, cond and body is a node.
  EXPECT_EQ(g.nodes.size(), 14u + 4u + 11u);
}

TEST(FusionGraphTest, FusionsAreClustersNumberedInLaunchOrder) {
  std::unique_ptr<HloModule> module = LoadTestModule();
  ASSERT_NE(module, nullptr);
  FusionReport report;
  RunCudaPipeline(module.get(), &report);
  FusionGraph g = BuildFusionGraph(*module, &report, {0});
  EXPECT_EQ(CountClusters(g, GraphClusterKind::kFusion), 4);
  EXPECT_EQ(CountClusters(g, GraphClusterKind::kBody), 2);
  // Launch numbers 1..n follow CountKernels' order, one per kernel.
  KernelCount count = CountKernels(*module);
  ASSERT_EQ(g.kernels, count.total());
  std::vector<std::string> numbered(count.kernels.size());
  for (const GraphCluster& c : g.clusters) {
    if (c.kernel == 0) continue;
    ASSERT_LE(c.kernel, static_cast<int64_t>(numbered.size()));
    EXPECT_TRUE(numbered[c.kernel - 1].empty());
    numbered[c.kernel - 1] = c.label;
  }
  for (const GraphNode& n : g.nodes) {
    if (n.kernel == 0) continue;
    EXPECT_TRUE(numbered[n.kernel - 1].empty());
    numbered[n.kernel - 1] = n.label;
  }
  for (size_t i = 0; i < numbered.size(); ++i) {
    const std::string name =
        count.kernels[i].substr(0, count.kernels[i].find(' '));
    EXPECT_EQ(numbered[i].rfind(absl::StrCat("#", i + 1, " ", name), 0), 0u)
        << numbered[i] << " should be kernel #" << i + 1 << " " << name;
  }
  // The row-reduction fusion's body is drawn inside its cluster.
  const GraphNode* row_max = nullptr;
  for (const GraphNode& n : g.nodes) {
    if (n.name.rfind("row_max.", 0) == 0) row_max = &n;
  }
  ASSERT_NE(row_max, nullptr);
  EXPECT_EQ(row_max->kind, GraphNodeKind::kFused);
}

TEST(FusionGraphTest, ReportRulesLabelTheirEdges) {
  std::unique_ptr<HloModule> module = LoadTestModule();
  ASSERT_NE(module, nullptr);
  FusionReport report;
  RunCudaPipeline(module.get(), &report);
  ASSERT_GT(report.records().size(), 0u);
  FusionGraph g = BuildFusionGraph(*module, &report, {0});
  EXPECT_EQ(g.rules_on_edges + g.rules_on_nodes,
            static_cast<int64_t>(report.records().size()));
  // row_max -> max_b fused by the row-reduction rule, on the fused copies.
  bool found = false;
  for (const GraphEdge& e : g.edges) {
    if (e.rule.find("row_max (reduce) -> max_b (broadcast)") ==
        std::string::npos) {
      continue;
    }
    found = true;
    EXPECT_TRUE(e.fused);
    EXPECT_NE(e.rule.find("row-wise consumer"), std::string::npos) << e.rule;
    EXPECT_EQ(e.label, "f32[64] 256 B");
  }
  EXPECT_TRUE(found);
  // The same rules land on the module as it was read (the names match
  // exactly there).
  std::unique_ptr<HloModule> before = LoadTestModule();
  FusionGraph b = BuildFusionGraph(*before, &report, {0});
  EXPECT_GT(b.rules_on_edges, 0);
}

TEST(FusionGraphTest, FoldsBodiesThenFusionsAboveTheLimit) {
  std::unique_ptr<HloModule> module = LoadTestModule();
  ASSERT_NE(module, nullptr);
  RunCudaPipeline(module.get(), nullptr);
  FusionGraph all = BuildFusionGraph(*module, nullptr, {0});
  EXPECT_EQ(all.folded, 0);
  EXPECT_EQ(all.unfolded_node_count, static_cast<int64_t>(all.nodes.size()));

  // Folding the largest body (the loop body, 11 nodes) is enough for 20.
  FusionGraph some = BuildFusionGraph(*module, nullptr, {20});
  EXPECT_EQ(some.folded, 1);
  EXPECT_LE(some.nodes.size(), 20u);
  EXPECT_EQ(CountClusters(some, GraphClusterKind::kBody), 1);  // cond
  EXPECT_EQ(CountClusters(some, GraphClusterKind::kFusion), 2);
  const GraphNode* body = NodeNamed(some, "body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->kind, GraphNodeKind::kFolded);

  // 10 nodes folds cond too, then the entry's fusion; it keeps its launch
  // number.
  FusionGraph few = BuildFusionGraph(*module, nullptr, {10});
  EXPECT_EQ(few.folded, 3);
  EXPECT_LE(few.nodes.size(), 10u);
  EXPECT_TRUE(few.clusters.empty());
  const GraphNode* fusion = NodeNamed(few, "row_reduction_fusion");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->kind, GraphNodeKind::kFolded);
  EXPECT_EQ(fusion->kernel, 4);
  EXPECT_EQ(few.kernels, all.kernels);
}

// A conditional's branches and a call's body are clusters beside the
// instruction that runs them, with a control edge to each; the reducer is
// only named.
TEST(FusionGraphTest, BranchesAndCallsAreClusters) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(R"(
HloModule branches

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

yes {
  p = f32[8] parameter(0)
  ROOT e = f32[8] exponential(p)
}

no {
  q = f32[8] parameter(0)
  ROOT n = f32[8] negate(q)
}

twice {
  r = f32[8] parameter(0)
  ROOT d = f32[8] add(r, r)
}

ENTRY main {
  c = pred[] parameter(0)
  x = f32[8] parameter(1)
  pick = f32[8] conditional(c, x, x), true_computation=yes, false_computation=no
  y = f32[8] call(pick), to_apply=twice
  zero = f32[] constant(0)
  ROOT total = f32[] reduce(y, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  FusionGraph g = BuildFusionGraph(**module, nullptr, {0});
  std::vector<std::string> labels;
  for (const GraphCluster& c : g.clusters) {
    EXPECT_EQ(c.kind, GraphClusterKind::kBody);
    labels.push_back(c.label);
  }
  EXPECT_EQ(labels,
            (std::vector<std::string>{"pick branch 0: yes", "pick branch 1: no",
                                      "y body: twice"}));
  int control = 0;
  for (const GraphEdge& e : g.edges) control += e.control ? 1 : 0;
  EXPECT_EQ(control, 3);
  EXPECT_EQ(NodeNamed(g, "s"), nullptr);
  const GraphNode* total = NodeNamed(g, "total");
  ASSERT_NE(total, nullptr);
  EXPECT_NE(total->label.find("reduce (add)"), std::string::npos);
  // Kernels: exponential, negate, add in the bodies, then the reduce.
  EXPECT_EQ(g.kernels, 4);
  EXPECT_EQ(total->kernel, 4);
}

// The module as read has no fusions: with both bodies folded the entry is
// still over 10 nodes, so its tail in launch order becomes one node.
TEST(FusionGraphTest, FoldsTheEntrysTailLast) {
  std::unique_ptr<HloModule> module = LoadTestModule();
  ASSERT_NE(module, nullptr);
  FusionGraph g = BuildFusionGraph(*module, nullptr, {10});
  EXPECT_LE(g.nodes.size(), 10u);
  EXPECT_EQ(g.folded, 3);  // cond, body, the entry's tail
  const GraphNode* tail = NodeNamed(g, "main (rest)");
  ASSERT_NE(tail, nullptr);
  EXPECT_EQ(tail->kind, GraphNodeKind::kFolded);
  EXPECT_NE(tail->label.find("more instructions folded\nkernels #"),
            std::string::npos)
      << tail->label;
  // The root is a kernel, so the last one is in the tail.
  EXPECT_NE(tail->label.find(absl::StrCat("..#", g.kernels)), std::string::npos)
      << tail->label;
  // One edge into the tail per producer outside it, none out of it.
  absl::flat_hash_set<std::string> sources;
  for (const GraphEdge& e : g.edges) {
    EXPECT_NE(e.from, tail->id);
    if (e.to == tail->id) EXPECT_TRUE(sources.insert(e.from).second);
  }
  EXPECT_FALSE(sources.empty());
}

TEST(DotWriterTest, ClustersNestAndTextIsQuoted) {
  std::unique_ptr<HloModule> module = LoadTestModule();
  ASSERT_NE(module, nullptr);
  RunCudaPipeline(module.get(), nullptr);
  FusionGraph g = BuildFusionGraph(*module, nullptr, {0});
  const std::string dot = WriteDot(g, {"p1_", "title"});
  size_t clusters = 0;
  for (size_t at = dot.find("subgraph \"cluster_p1_"); at != std::string::npos;
       at = dot.find("subgraph \"cluster_p1_", at + 1)) {
    ++clusters;
  }
  EXPECT_EQ(clusters, g.clusters.size());
  EXPECT_NE(dot.find("\"p1_n0\""), std::string::npos);
  EXPECT_EQ(DotQuote("a \"b\"\nc\\"), "\"a \\\"b\\\"\\nc\\\\\"");
  EXPECT_EQ(FormatBytes(100), "100 B");
  EXPECT_EQ(FormatBytes(32768), "32.0 KiB");
  EXPECT_EQ(FormatBytes(3 << 20), "3.0 MiB");
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// Without Graphviz: every cluster, node and edge between boxes is drawn,
// with the ids the page's script looks up.
TEST(LayeredLayoutTest, DrawsEveryClusterAndNode) {
  std::unique_ptr<HloModule> module = LoadTestModule();
  ASSERT_NE(module, nullptr);
  FusionReport report;
  RunCudaPipeline(module.get(), &report);
  FusionGraph g = BuildFusionGraph(*module, &report, {0});
  const std::string svg = LayeredLayoutSvg(g, "p1_", "a <title>");
  EXPECT_EQ(svg.rfind("<svg xmlns=", 0), 0u);
  EXPECT_EQ(Count(svg, "class=\"cluster\""), g.clusters.size());
  EXPECT_EQ(Count(svg, "class=\"node\""), g.nodes.size());
  for (const GraphCluster& c : g.clusters) {
    EXPECT_NE(svg.find("id=\"p1_" + c.id + "\""), std::string::npos) << c.id;
  }
  EXPECT_GT(Count(svg, "class=\"edge\""), 0u);
  EXPECT_LT(Count(svg, "class=\"edge\""), g.edges.size());  // Not inside.
  EXPECT_NE(svg.find("a &lt;title&gt;"), std::string::npos);
}

}  // namespace
}  // namespace hloc
