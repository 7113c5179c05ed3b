// Text renderings for people: the plan table (with a small bar per rank), its
// Markdown variant for a deployment note, the explain view (every figure with
// its evidence, formula and source), the inventory, and the GPU list.
#pragma once

#include <string>
#include <vector>

#include "artifact/reconciliation.h"
#include "hardware/accelerator.h"
#include "model/inventory.h"
#include "model/model_spec.h"
#include "plan/plan.h"

namespace preflight {

enum class TextStyle { table, markdown };

// The plan as text; the table style keeps every line within 100 columns (long
// sentences wrap, a figure row's evidence tag moves to the next line).
std::string render_plan(const Plan& plan, TextStyle style);
// The same text before the width pass (tests compare the two word for word).
std::string render_plan_lines(const Plan& plan, TextStyle style);
// plan --brief: cluster and layout, the verdict, first boundary and headroom, weights on the
// heaviest rank, the engine's pools or the workload's cache, a throughput bound; at most 12 lines.
std::string render_brief(const Plan& plan);
// Any report text within the plan's 100 columns (figure tags moved under the value, sentences wrapped).
std::string within_plan_width(const std::string& text);
// explain: every figure with its formula and source, the tightest rank's ledger rows, the
// checklist. `only` ("weights", "state", "kv", "engine", "perf", "disk"; "" for all) keeps one
// section's figures and ledger rows.
std::string render_explain(const Plan& plan, TextStyle style, std::string_view only = "");
std::string render_inventory(const ModelSpec& model, const Inventory& inv, const Reconciliation* reconciliation,
                             TextStyle style);
std::string render_gpus(const std::vector<Accelerator>& gpus, TextStyle style);

// A rank's bar: '#' weights, 'r' reserve, 'a' activations, 's' state, 'k' KV, '.' free, '!' over.
std::string rank_bar(const RankLedger& ledger, int width);

}  // namespace preflight
