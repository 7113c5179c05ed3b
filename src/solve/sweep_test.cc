#include "solve/sweep.h"

#include <gtest/gtest.h>

#include "core/bytes.h"
#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "solve/sweep_perf.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& k3() {
  static const ModelSpec m = load_catalogue_model("kimi-k3", "test").value_or_throw();
  return m;
}

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

CountSpec counts(const std::string& text) { return parse_counts(text, "--counts").value_or_throw(); }

// Every count green, the weights its tightest resource.
Result<ProbeResult> green(const Accelerator&, const PlanRequest& r) {
  ProbeResult p;
  p.layout.world = r.gpu_count;
  p.verdict.fits = true;
  p.binding = Resource::weights;
  return p;
}

TEST(SolveSweep, GridShapeFollowsEachFamilysNodeSize) {
  const std::vector<Accelerator> gpus = {gpu("H100"), gpu("nvidia-gb200"), gpu("nvidia-gh200-96gb")};
  const auto sweep = run_sweep(k3(), green, gpus, PlanRequest{}, counts("1..32"));
  ASSERT_EQ(sweep.rows.size(), 3u);
  EXPECT_EQ(sweep.rows[0].cells.size(), 7u);   // 8-GPU nodes: 1 2 4 8 16 24 32
  EXPECT_EQ(sweep.rows[1].cells.size(), 10u);  // 4-GPU nodes: 1 2 4 8 12 ... 32
  EXPECT_EQ(sweep.rows[2].cells.size(), 32u);  // one GPU per node: every count
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(sweep.rows[i].gpus_per_node, sweep.rows[i].gpu.gpus_per_node);
    std::vector<std::uint64_t> want = counts_for(counts("1..32"), sweep.rows[i].gpus_per_node);
    ASSERT_EQ(sweep.rows[i].cells.size(), want.size()) << sweep.rows[i].gpu.id;
    for (std::size_t c = 0; c < want.size(); ++c) EXPECT_EQ(sweep.rows[i].cells[c].gpus, want[c]);
  }
  EXPECT_EQ(sweep.green_cells, sweep.rows[0].cells.size() + sweep.rows[1].cells.size() + sweep.rows[2].cells.size());
  EXPECT_GE(sweep.evaluations, sweep.green_cells);
}

// With latency targets a cell green on memory and the bounds stays green only
// when the estimate's percentile meets them (as fit and max); the sweep says
// which percentile decided, and counts each check as an evaluation.
TEST(SolveSweep, EstimateCheckTurnsSmallCountsRed) {
  SweepEstimate estimate;
  estimate.percentile = 99;
  estimate.check = [](const Accelerator&, const PlanRequest& r, const Layout&) -> std::optional<EstimateMiss> {
    if (r.gpu_count >= 8) return std::nullopt;
    return EstimateMiss{Resource::tpot, "estimated p99 time per output token 80 ms above the 50 ms target"};
  };
  const auto sweep = run_sweep(k3(), green, {gpu("H100")}, PlanRequest{}, counts("1..16"), 1, estimate);
  EXPECT_EQ(sweep.estimate_percentile, 99u);
  ASSERT_EQ(sweep.rows.at(0).cells.size(), 5u);  // 1 2 4 8 16
  for (const auto& cell : sweep.rows[0].cells) {
    SCOPED_TRACE(cell.gpus);
    EXPECT_EQ(cell.best.verdict.fits, cell.gpus >= 8);
    EXPECT_EQ(cell.best.binding, cell.gpus >= 8 ? Resource::weights : Resource::tpot);
    if (cell.gpus < 8) {
      EXPECT_NE(cell.best.verdict.summary.find("80 ms above the 50 ms target"), std::string::npos);
    }
  }
  EXPECT_EQ(sweep.green_cells, 2u);
  const auto unchecked = run_sweep(k3(), green, {gpu("H100")}, PlanRequest{}, counts("1..16"));
  EXPECT_EQ(sweep.evaluations, unchecked.evaluations + 5);  // one check per cell green on memory
  EXPECT_EQ(unchecked.green_cells, 5u);
  EXPECT_EQ(unchecked.estimate_percentile, 0u);
}

TEST(SolveSweep, UnplannableCellsSayWhy) {
  const PlanEvaluator picky = [](const Accelerator&, const PlanRequest& r) -> Result<ProbeResult> {
    if (r.gpu_count == 16) return Error{"--gpus", "", "16 expert groups exceed the 8 experts"};
    ProbeResult p;
    p.layout.world = r.gpu_count;
    p.verdict.fits = false;
    p.verdict.headroom_bytes = -1;
    p.binding = Resource::weights;
    return p;
  };
  const auto sweep = run_sweep(k3(), picky, {gpu("H100")}, PlanRequest{}, counts("8,16"));
  ASSERT_EQ(sweep.rows.at(0).cells.size(), 2u);
  EXPECT_TRUE(sweep.rows[0].cells[0].planned);
  EXPECT_FALSE(sweep.rows[0].cells[1].planned);
  EXPECT_NE(sweep.rows[0].cells[1].note.find("exceed the 8 experts"), std::string::npos);
  EXPECT_EQ(sweep.green_cells, 0u);
}

// Kimi K3, weights only, on H100: red on the weights below three nodes, green
// from 24 GPUs on (1,560.9 GB of tensors over 85.0 GB per GPU).
TEST(SolveSweep, KimiK3WeightsOnlyOnH100) {
  const auto sweep = run_sweep(k3(), full_plan_evaluator(k3()), {gpu("H100")}, PlanRequest{}, counts("8..64"));
  ASSERT_EQ(sweep.rows.size(), 1u);
  const auto& cells = sweep.rows[0].cells;
  ASSERT_EQ(cells.size(), 8u);
  for (const auto& c : cells) {
    ASSERT_TRUE(c.planned) << c.gpus << ": " << c.note;
    EXPECT_EQ(c.best.layout.world, c.gpus);
    EXPECT_EQ(c.best.verdict.fits, c.gpus >= 24) << c.gpus;
    EXPECT_EQ(c.best.binding, Resource::weights) << c.gpus;  // weights only: the one resource
    EXPECT_EQ(c.best.verdict.headroom_bytes >= 0, c.gpus >= 24) << c.gpus;
  }
  EXPECT_EQ(sweep.green_cells, 6u);
}

// The best layout of a cell is at least as good as the planner's default one.
TEST(SolveSweep, BestLayoutBeatsTheDefault) {
  WorkloadOptions w;
  w.requested = true;
  w.context_tokens = 131'072;
  w.concurrency = 16;
  PlanRequest req;
  req.workload = w;
  const auto evaluate = full_plan_evaluator(k3());
  const auto sweep = run_sweep(k3(), evaluate, {gpu("H200"), gpu("B300")}, req, counts("8,16,32"));
  for (const auto& row : sweep.rows)
    for (const auto& c : row.cells) {
      PlanRequest d = req;
      d.gpu_count = c.gpus;
      auto def = evaluate(row.gpu, d);
      if (!def) continue;
      ASSERT_TRUE(c.planned);
      EXPECT_FALSE(better_probe(*def, c.best)) << row.gpu.id << " x " << c.gpus;
    }
}

// Planning the families on several threads gives the same grid as one thread:
// the same best layout, verdict, headroom and binding in every cell, and the
// same throughput bounds (the context's memos are shared between threads).
TEST(SolveSweep, ThreadsDoNotChangeTheGrid) {
  WorkloadOptions w;
  w.requested = true;
  w.context_tokens = 131'072;
  w.concurrency = 8;
  PlanRequest req;
  req.workload = w;
  const std::vector<Accelerator> gpus = {gpu("H100"), gpu("H200"), gpu("B300"), gpu("nvidia-gb200"), gpu("MI355X")};
  const PlanContext one_context(k3());
  auto one = run_sweep(k3(), verdict_plan_evaluator(one_context), gpus, req, counts("8..96"), 1);
  add_sweep_perf(one, one_context, req, 1);
  const PlanContext many_context(k3());
  auto many = run_sweep(k3(), verdict_plan_evaluator(many_context), gpus, req, counts("8..96"), 4);
  add_sweep_perf(many, many_context, req, 4);
  EXPECT_EQ(one.evaluations, many.evaluations);
  EXPECT_EQ(one.green_cells, many.green_cells);
  EXPECT_GT(one.green_cells, 0u);
  ASSERT_EQ(one.rows.size(), many.rows.size());
  for (std::size_t r = 0; r < one.rows.size(); ++r) {
    ASSERT_EQ(one.rows[r].cells.size(), many.rows[r].cells.size());
    EXPECT_EQ(one.rows[r].gpu.id, many.rows[r].gpu.id);
    for (std::size_t c = 0; c < one.rows[r].cells.size(); ++c) {
      const auto& a = one.rows[r].cells[c];
      const auto& b = many.rows[r].cells[c];
      const auto where = one.rows[r].gpu.id + " x " + std::to_string(a.gpus);
      EXPECT_EQ(a.gpus, b.gpus) << where;
      EXPECT_EQ(a.planned, b.planned) << where;
      EXPECT_EQ(a.note, b.note) << where;
      EXPECT_EQ(a.best.verdict.fits, b.best.verdict.fits) << where;
      EXPECT_EQ(a.best.verdict.headroom_bytes, b.best.verdict.headroom_bytes) << where;
      EXPECT_EQ(a.best.binding, b.best.binding) << where;
      EXPECT_EQ(layout_options_of(a.best.layout).tp, layout_options_of(b.best.layout).tp) << where;
      EXPECT_EQ(layout_options_of(a.best.layout).ep, layout_options_of(b.best.layout).ep) << where;
      EXPECT_EQ(layout_options_of(a.best.layout).pp, layout_options_of(b.best.layout).pp) << where;
      ASSERT_EQ(a.perf.has_value(), b.perf.has_value()) << where;
      if (a.perf) {
        EXPECT_EQ(a.perf->tokens_per_s_per_gpu_bound, b.perf->tokens_per_s_per_gpu_bound) << where;
      }
    }
  }
}

}  // namespace
}  // namespace preflight
