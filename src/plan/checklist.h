// The preflight checklist of seed 000, closing every plan: each step with what
// this plan established and what is still open, plus the license as a
// procurement step.
#pragma once

#include <vector>

#include "model/model_spec.h"
#include "plan/plan.h"

namespace preflight {

std::vector<ChecklistItem> build_checklist(const Plan& plan, const ModelSpec& model);

}  // namespace preflight
