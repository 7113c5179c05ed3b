// Renderers of a launch: shell text for people (comment lines saying where
// every flag came from, then one command per node) and JSON for scripts:
//   {"engine": "vllm", "commands": [{"node": 0, "argv": [...], "shell": "..."}],
//    "env": {...}, "sources": [...], ...}
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "launch/launch_command.h"
#include "plan/plan.h"

namespace preflight {

// The verdict as one comment line: "# preflight: fits (deployment hypothesis): ..."
// or "# preflight: does NOT fit: ... — this command would fail at start-up".
std::string launch_verdict_line(const Plan& plan);

// The commands as a shell script; `markdown` wraps it in a ```bash fence.
std::string render_launch(const Plan& plan, const LaunchInput& input, const LaunchPlan& launch, bool markdown);

nlohmann::json launch_json(const Plan& plan, const LaunchInput& input, const LaunchPlan& launch);

}  // namespace preflight
