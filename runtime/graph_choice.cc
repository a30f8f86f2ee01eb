#include "runtime/graph_choice.h"

namespace hloc {

void GraphChoice::Fix(Variant variant) {
  decided_ = true;
  variant_ = variant;
}

GraphChoice::Variant GraphChoice::NextTrial() const {
  return recorded_ % 2 == 0 ? Variant::kBranched : Variant::kChain;
}

void GraphChoice::Record(double milliseconds) {
  double& best = best_[recorded_ % 2];
  if (recorded_ < 2 || milliseconds < best) best = milliseconds;
  if (++recorded_ < 2 * kTrials) return;
  Fix(best_[0] <= best_[1] * (1 - kMargin) ? Variant::kBranched
                                           : Variant::kChain);
}

}  // namespace hloc
