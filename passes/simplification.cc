#include "passes/simplification.h"

#include "passes/call_inliner.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/sharding_remover.h"
#include "passes/simplifier/algebraic_simplifier.h"
#include "passes/single_device_collectives.h"
#include "passes/tuple_simplifier.h"

namespace hloc {

std::unique_ptr<HloPassPipeline> MakeSimplificationPipeline() {
  auto pipeline = std::make_unique<HloPassPipeline>("simplify");
  pipeline->AddPass<CallInliner>();
  pipeline->AddPass<ShardingRemover>();
  // psum and friends over a mesh axis of one device (shard_map on one
  // device, any module of one) are their operands.
  pipeline->AddPass<SingleDeviceCollectives>();
  HloPassPipeline* fixed_point =
      pipeline->AddFixedPoint("simplify-fixed-point");
  fixed_point->AddPass<AlgebraicSimplifier>();
  fixed_point->AddPass<TupleSimplifier>();
  fixed_point->AddPass<ConstantFolding>();
  fixed_point->AddPass<CommonSubexpressionElimination>();
  fixed_point->AddPass<DeadCodeElimination>();
  return pipeline;
}

}  // namespace hloc
