#include "tools/graph/fusion_graph.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "passes/fusion/kernel_count.h"

namespace hloc {
namespace {

bool IsControlFlow(HloOpcode opcode) {
  return opcode == HloOpcode::kWhile || opcode == HloOpcode::kConditional ||
         opcode == HloOpcode::kCall;
}

// "row_max (reduce)" -> "row_max".
std::string RecordName(const std::string& text) {
  size_t paren = text.rfind(" (");
  return paren == std::string::npos ? text : text.substr(0, paren);
}

// Whether `candidate` is `name` with ".N" parts appended (a fused copy).
bool ExtendsName(absl::string_view candidate, absl::string_view name) {
  if (!absl::StartsWith(candidate, name) || candidate.size() <= name.size() ||
      candidate[name.size()] != '.') {
    return false;
  }
  for (char c : candidate.substr(name.size())) {
    if (c != '.' && (c < '0' || c > '9')) return false;
  }
  return true;
}

std::string EdgeLabel(const Shape& shape) {
  return absl::StrCat(shape.ToString(/*print_layout=*/false), " ",
                      FormatBytes(shape.ByteSize()));
}

class Builder {
 public:
  Builder(const HloModule& module, const FusionReport* report,
          const FusionGraphOptions& options)
      : module_(module), report_(report), options_(options) {}

  FusionGraph Build() {
    graph_.title = module_.name();
    const HloComputation* entry = module_.entry_computation();
    if (entry == nullptr) return graph_;
    KernelCount count = CountKernels(module_);
    graph_.kernels = count.total();
    for (size_t i = 0; i < count.kernels.size(); ++i) {
      kernel_of_.emplace(RecordName(count.kernels[i]), i + 1);
    }
    ChooseFolds(*entry);
    Draw(*entry, "");
    if (tail_ >= 0) LabelTail(*entry);
    if (report_ != nullptr) PlaceRules();
    return std::move(graph_);
  }

 private:
  // Nodes drawn for `comp` with the current folds (each computation once).
  int64_t CountNodes(const HloComputation& comp,
                     absl::flat_hash_set<const HloComputation*>* seen) const {
    int64_t n = 0;
    for (const HloInstruction* instr : comp.instructions()) {
      if (instr->opcode() == HloOpcode::kFusion) {
        const HloComputation* fused = instr->fused_computation();
        n += folded_.contains(fused)
                 ? 1
                 : fused->instruction_count() - fused->num_parameters();
        continue;
      }
      ++n;
      if (!IsControlFlow(instr->opcode())) continue;
      for (const HloComputation* body : instr->called_computations()) {
        if (!seen->insert(body).second) continue;
        n += folded_.contains(body) ? 1 : CountNodes(*body, seen);
      }
    }
    return n;
  }

  int64_t TotalNodes(const HloComputation& entry) const {
    absl::flat_hash_set<const HloComputation*> seen = {&entry};
    return CountNodes(entry, &seen);
  }

  // Nodes `instr` adds when drawn now (its fusion or unseen bodies too).
  int64_t Cost(const HloInstruction& instr) const {
    if (instr.opcode() == HloOpcode::kFusion) {
      const HloComputation* fused = instr.fused_computation();
      return folded_.contains(fused)
                 ? 1
                 : fused->instruction_count() - fused->num_parameters();
    }
    int64_t n = 1;
    if (!IsControlFlow(instr.opcode())) return n;
    absl::flat_hash_set<const HloComputation*> seen(drawn_.begin(),
                                                    drawn_.end());
    for (const HloComputation* body : instr.called_computations()) {
      if (!seen.insert(body).second) continue;
      n += folded_.contains(body) ? 1 : CountNodes(*body, &seen);
    }
    return n;
  }

  // Folds bodies, then fusions, largest first, until under the limit; if
  // the entry alone is still too large, its instructions past the limit
  // (in launch order) become one summary node while drawing.
  void ChooseFolds(const HloComputation& entry) {
    int64_t total = TotalNodes(entry);
    graph_.unfolded_node_count = total;
    if (options_.max_nodes <= 0 || total <= options_.max_nodes) return;
    FoldComputations(entry, total);
    fold_entry_tail_ = TotalNodes(entry) > options_.max_nodes;
  }

  void FoldComputations(const HloComputation& entry, int64_t total) {
    std::vector<std::pair<int64_t, const HloComputation*>> bodies, fusions;
    for (const HloComputation* comp : module_.computations()) {
      if (comp == &entry) continue;
      if (comp->IsFusionComputation()) {
        fusions.emplace_back(comp->instruction_count(), comp);
      } else {
        absl::flat_hash_set<const HloComputation*> seen = {comp};
        bodies.emplace_back(CountNodes(*comp, &seen), comp);
      }
    }
    auto by_size = [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first
                                : a.second->name() < b.second->name();
    };
    std::sort(bodies.begin(), bodies.end(), by_size);
    std::sort(fusions.begin(), fusions.end(), by_size);
    for (const auto* list : {&bodies, &fusions}) {
      for (const auto& [size, comp] : *list) {
        if (total <= options_.max_nodes) return;
        // One node stands for it: folding a single instruction saves nothing.
        if (size <= 1) continue;
        folded_.insert(comp);
        const int64_t now = TotalNodes(entry);
        if (now == total) {
          folded_.erase(comp);  // Not drawn (a reducer) or inside a fold.
          continue;
        }
        total = now;
        ++graph_.folded;
      }
    }
  }

  std::string KernelPrefix(const HloInstruction& instr) const {
    auto it = kernel_of_.find(instr.name());
    return it == kernel_of_.end() ? "" : absl::StrCat("#", it->second, " ");
  }
  int64_t KernelOf(const HloInstruction& instr) const {
    auto it = kernel_of_.find(instr.name());
    return it == kernel_of_.end() ? 0 : it->second;
  }

  GraphNode& AddNode(GraphNodeKind kind, std::string name, std::string label,
                     const std::string& cluster) {
    GraphNode node;
    node.id = absl::StrCat("n", graph_.nodes.size());
    node.kind = kind;
    node.name = std::move(name);
    node.label = std::move(label);
    node.cluster = cluster;
    node_by_name_.emplace(node.name, graph_.nodes.size());
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back();
  }

  GraphCluster& AddCluster(GraphClusterKind kind, std::string label,
                           const std::string& parent) {
    GraphCluster cluster;
    cluster.id = absl::StrCat("cluster_", graph_.clusters.size());
    cluster.kind = kind;
    cluster.label = std::move(label);
    cluster.parent = parent;
    graph_.clusters.push_back(std::move(cluster));
    return graph_.clusters.back();
  }

  void AddEdge(const std::string& from, const std::string& to,
               std::string label, bool control = false) {
    GraphEdge edge;
    edge.id = absl::StrCat("e", graph_.edges.size());
    edge.from = from;
    edge.to = to;
    edge.label = std::move(label);
    edge.control = control;
    graph_.edges.push_back(std::move(edge));
  }

  // What a node says about an instruction: its launch number, name, opcode
  // and the computations it applies (reducers are named, not drawn).
  std::string Label(const HloInstruction& instr) const {
    std::string second(HloOpcodeString(instr.opcode()));
    if (instr.opcode() == HloOpcode::kParameter ||
        instr.opcode() == HloOpcode::kConstant) {
      second = instr.shape().ToString(false);
    } else if (!IsControlFlow(instr.opcode()) &&
               instr.opcode() != HloOpcode::kFusion) {
      std::vector<std::string> called;
      for (const HloComputation* c : instr.called_computations()) {
        called.push_back(c->name());
      }
      if (!called.empty()) {
        absl::StrAppend(&second, " (", absl::StrJoin(called, ", "), ")");
      }
    }
    return absl::StrCat(KernelPrefix(instr), instr.name(), "\n", second);
  }

  std::string Tooltip(const HloInstruction& instr) const {
    std::vector<std::string> operands;
    for (const HloInstruction* op : instr.operands()) {
      operands.push_back(op->name());
    }
    return absl::StrCat(instr.name(), " = ", instr.shape().ToString(false), " ",
                        HloOpcodeString(instr.opcode()), "(",
                        absl::StrJoin(operands, ", "), ")");
  }

  void Draw(const HloComputation& comp, const std::string& cluster) {
    drawn_.insert(&comp);
    const bool entry = &comp == module_.entry_computation();
    for (const HloInstruction* instr : comp.MakeInstructionPostOrder()) {
      // One node stays for the summary itself.
      if (entry && fold_entry_tail_ &&
          (tail_ >= 0 ||
           static_cast<int64_t>(graph_.nodes.size()) + Cost(*instr) >
               options_.max_nodes - 1)) {
        FoldIntoTail(*instr);
        continue;
      }
      if (instr->opcode() == HloOpcode::kFusion) {
        DrawFusion(*instr, cluster);
        continue;
      }
      const GraphNodeKind kind = instr->opcode() == HloOpcode::kParameter
                                     ? GraphNodeKind::kParameter
                                 : instr->opcode() == HloOpcode::kConstant
                                     ? GraphNodeKind::kConstant
                                     : GraphNodeKind::kInstruction;
      GraphNode& node = AddNode(kind, instr->name(), Label(*instr), cluster);
      node.kernel = KernelOf(*instr);
      node.tooltip = Tooltip(*instr);
      const std::string id = node.id;
      source_of_[instr] = id;
      for (const HloInstruction* op : instr->operands()) {
        AddEdge(source_of_.at(op), id, EdgeLabel(op->shape()));
      }
      if (IsControlFlow(instr->opcode())) DrawBodies(*instr, id, cluster);
    }
  }

  void FoldIntoTail(const HloInstruction& instr) {
    if (tail_ < 0) {
      tail_ = graph_.nodes.size();
      AddNode(GraphNodeKind::kFolded,
              module_.entry_computation()->name() + " (rest)", "", "");
      ++graph_.folded;
    }
    const std::string id = graph_.nodes[tail_].id;
    ++tail_count_;
    if (const int64_t k = KernelOf(instr); k > 0) {
      tail_first_kernel_ = tail_first_kernel_ == 0 ? k : tail_first_kernel_;
      tail_last_kernel_ = k;
    }
    source_of_[&instr] = id;
    for (const HloInstruction* op : instr.operands()) {
      const std::string& from = source_of_.at(op);
      if (from != id && tail_sources_.insert(from).second) {
        AddEdge(from, id, EdgeLabel(op->shape()));
      }
    }
  }

  void LabelTail(const HloComputation& entry) {
    GraphNode& tail = graph_.nodes[tail_];
    tail.label = absl::StrCat(entry.name(), ": ", tail_count_,
                              " more instructions folded");
    if (tail_first_kernel_ > 0) {
      absl::StrAppend(&tail.label, "\nkernels #", tail_first_kernel_, "..#",
                      tail_last_kernel_);
    }
    tail.tooltip =
        "the rest of the entry computation in launch order, folded to keep "
        "the graph readable; --graph-max-nodes=0 draws every node";
  }

  void DrawBodies(const HloInstruction& instr, const std::string& node_id,
                  const std::string& cluster) {
    const auto& called = instr.called_computations();
    for (size_t i = 0; i < called.size(); ++i) {
      const HloComputation* body = called[i];
      std::string role = instr.opcode() == HloOpcode::kWhile
                             ? (i == 0 ? "condition" : "body")
                         : instr.opcode() == HloOpcode::kConditional
                             ? absl::StrCat("branch ", i)
                             : "body";
      if (!drawn_.contains(body)) {
        if (folded_.contains(body)) {
          drawn_.insert(body);
          absl::flat_hash_set<const HloComputation*> seen = {body};
          GraphNode& summary =
              AddNode(GraphNodeKind::kFolded, body->name(),
                      absl::StrCat(body->name(), "\n", CountNodes(*body, &seen),
                                   " nodes folded"),
                      cluster);
          summary.tooltip =
              "folded to keep the graph readable; --graph-max-nodes=0 draws "
              "every node";
          entry_node_of_[body] = summary.id;
        } else {
          GraphCluster& c = AddCluster(
              GraphClusterKind::kBody,
              absl::StrCat(instr.name(), " ", role, ": ", body->name()),
              cluster);
          const std::string body_cluster = c.id;
          Draw(*body, body_cluster);
          entry_node_of_[body] =
              body->num_parameters() > 0
                  ? source_of_.at(body->parameter_instruction(0))
                  : source_of_.at(body->root_instruction());
        }
      }
      AddEdge(node_id, entry_node_of_.at(body), role, /*control=*/true);
    }
  }

  void DrawFusion(const HloInstruction& fusion, const std::string& cluster) {
    const HloComputation& fused = *fusion.fused_computation();
    const std::string title =
        absl::StrCat(KernelPrefix(fusion), fusion.name(), " (",
                     FusionKindString(fusion.fusion_kind()), ")");
    if (folded_.contains(&fused)) {
      GraphNode& node = AddNode(
          GraphNodeKind::kFolded, fusion.name(),
          absl::StrCat(title, "\n",
                       fused.instruction_count() - fused.num_parameters(),
                       " fused instructions"),
          cluster);
      node.kernel = KernelOf(fusion);
      node.tooltip = absl::StrCat(
          Tooltip(fusion),
          "\nfolded to keep the graph readable; --graph-max-nodes=0 draws "
          "every node");
      const std::string id = node.id;
      source_of_[&fusion] = id;
      for (const HloInstruction* op : fusion.operands()) {
        AddEdge(source_of_.at(op), id, EdgeLabel(op->shape()));
      }
      return;
    }
    GraphCluster& c = AddCluster(GraphClusterKind::kFusion, title, cluster);
    c.kernel = KernelOf(fusion);
    c.tooltip = Tooltip(fusion);
    const std::string fusion_cluster = c.id;
    cluster_by_name_.emplace(fusion.name(), graph_.clusters.size() - 1);
    for (const HloInstruction* instr : fused.MakeInstructionPostOrder()) {
      if (instr->opcode() == HloOpcode::kParameter) continue;
      GraphNode& node = AddNode(GraphNodeKind::kFused, instr->name(),
                                Label(*instr), fusion_cluster);
      node.tooltip = Tooltip(*instr);
      const std::string id = node.id;
      source_of_[instr] = id;
      for (const HloInstruction* op : instr->operands()) {
        // A fused parameter is the fusion's operand, drawn outside.
        const HloInstruction* producer =
            op->opcode() == HloOpcode::kParameter
                ? fusion.operand(op->parameter_number())
                : op;
        AddEdge(source_of_.at(producer), id, EdgeLabel(op->shape()));
      }
    }
    source_of_[&fusion] = source_of_.at(fused.root_instruction());
  }

  // The node a report name stands for: exact, else the shortest fused copy
  // (preferring those in the cluster of the fusion the pair became).
  const GraphNode* FindNode(const std::string& name,
                            const std::string& in_cluster) const {
    auto it = node_by_name_.find(name);
    if (it != node_by_name_.end()) return &graph_.nodes[it->second];
    const GraphNode* best = nullptr;
    for (const GraphNode& node : graph_.nodes) {
      if (!ExtendsName(node.name, name)) continue;
      auto better = [&](const GraphNode& a, const GraphNode* b) {
        if (b == nullptr) return true;
        bool a_in = a.cluster == in_cluster, b_in = b->cluster == in_cluster;
        if (a_in != b_in) return a_in;
        return a.name.size() < b->name.size();
      };
      if (better(node, best)) best = &node;
    }
    return best;
  }

  bool InCluster(const GraphNode& node, const std::string& cluster) const {
    std::string c = node.cluster;
    while (!c.empty()) {
      if (c == cluster) return true;
      auto it = std::find_if(graph_.clusters.begin(), graph_.clusters.end(),
                             [&](const GraphCluster& x) { return x.id == c; });
      c = it == graph_.clusters.end() ? "" : it->parent;
    }
    return false;
  }

  static void AppendLine(std::string* text, const std::string& line) {
    if (!text->empty()) absl::StrAppend(text, "\n");
    absl::StrAppend(text, line);
  }

  void PlaceRules() {
    absl::flat_hash_map<std::string, size_t> node_index;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      node_index.emplace(graph_.nodes[i].id, i);
    }
    for (const FusionDecisionRecord& r : report_->records()) {
      const std::string rule = absl::StrCat(r.pass, ": ", r.producer, " -> ",
                                            r.consumer, ": ", r.rule);
      std::string result_cluster;
      auto rc = cluster_by_name_.find(r.result);
      if (rc != cluster_by_name_.end()) {
        result_cluster = graph_.clusters[rc->second].id;
      }
      const std::string consumer_name = RecordName(r.consumer);
      const GraphNode* producer =
          FindNode(RecordName(r.producer), result_cluster);
      auto cc = cluster_by_name_.find(consumer_name);
      const GraphCluster* consumer_cluster =
          cc == cluster_by_name_.end() ? nullptr : &graph_.clusters[cc->second];
      const GraphNode* consumer =
          consumer_cluster ? nullptr : FindNode(consumer_name, result_cluster);
      GraphEdge* edge = nullptr;
      if (producer != nullptr && (consumer != nullptr || consumer_cluster)) {
        for (GraphEdge& e : graph_.edges) {
          if (e.from != producer->id || e.control) continue;
          const GraphNode& to = graph_.nodes[node_index.at(e.to)];
          if (consumer != nullptr ? e.to == consumer->id
                                  : InCluster(to, consumer_cluster->id)) {
            edge = &e;
            break;
          }
        }
      }
      if (edge != nullptr) {
        AppendLine(&edge->rule, rule);
        edge->fused = r.fused;
        ++graph_.rules_on_edges;
      } else if (consumer_cluster != nullptr) {
        AppendLine(&graph_.clusters[cc->second].tooltip, rule);
        ++graph_.rules_on_nodes;
      } else if (consumer != nullptr || producer != nullptr) {
        const GraphNode* on = consumer != nullptr ? consumer : producer;
        AppendLine(&graph_.nodes[node_index.at(on->id)].tooltip, rule);
        ++graph_.rules_on_nodes;
      }
    }
  }

  const HloModule& module_;
  const FusionReport* report_;
  FusionGraphOptions options_;
  FusionGraph graph_;
  absl::flat_hash_map<std::string, int64_t> kernel_of_;
  absl::flat_hash_set<const HloComputation*> folded_;
  absl::flat_hash_set<const HloComputation*> drawn_;
  // The node an instruction's value leaves from (a fusion: its fused root).
  absl::flat_hash_map<const HloInstruction*, std::string> source_of_;
  // A drawn body's first node (its parameter), where its loop edge points.
  absl::flat_hash_map<const HloComputation*, std::string> entry_node_of_;
  absl::flat_hash_map<std::string, size_t> node_by_name_;
  // The entry's folded tail: its node (index), what it stands for, and the
  // nodes that already have an edge into it.
  bool fold_entry_tail_ = false;
  int64_t tail_ = -1;
  int64_t tail_count_ = 0;
  int64_t tail_first_kernel_ = 0, tail_last_kernel_ = 0;
  absl::flat_hash_set<std::string> tail_sources_;
  absl::flat_hash_map<std::string, size_t> cluster_by_name_;
};

}  // namespace

FusionGraph BuildFusionGraph(const HloModule& module,
                             const FusionReport* report,
                             const FusionGraphOptions& options) {
  return Builder(module, report, options).Build();
}

std::string FormatBytes(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  if (bytes < (int64_t{1} << 20)) {
    return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  }
  if (bytes < (int64_t{1} << 30)) {
    return absl::StrFormat("%.1f MiB", bytes / 1048576.0);
  }
  return absl::StrFormat("%.1f GiB", bytes / 1073741824.0);
}

}  // namespace hloc
