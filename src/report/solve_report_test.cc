#include "report/solve_report.h"

#include <gtest/gtest.h>

#include "core/bytes.h"
#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& k3() { return testing::catalogue_model("kimi-k3"); }

ProbeResult probe(bool fits, std::int64_t headroom, Resource binding, std::uint64_t world) {
  ProbeResult p;
  p.layout.world = world;
  p.layout.tp = 8;
  p.layout.dp = world / 8;
  p.layout.ep = world;
  p.layout.pp = 1;
  p.verdict.fits = fits;
  p.verdict.headroom_bytes = headroom;
  p.verdict.first_boundary = fits ? Resource::none : binding;
  p.binding = binding;
  return p;
}

Sweep small_sweep() {
  Sweep s;
  SweepRow row;
  row.gpu = *GpuCatalogue::embedded().find("H100", "test").value_or_throw();
  row.gpus_per_node = 8;
  row.cells.push_back({16, true, probe(false, -16'487'533'117, Resource::weights, 16), "", std::nullopt});
  row.cells.push_back({24, true, probe(true, 17'492'652'483, Resource::kv_cache, 24), "",
                       SweepCellPerf{150.25, 20.5, BindingTerm::memory, 1.23456}});
  SweepCell unplannable;  // built by name: GCC 12 misreads `{}` for the ProbeResult as uninitialized
  unplannable.gpus = 32;
  unplannable.planned = false;
  unplannable.note = "--gpus: 32 expert groups, \"too many\"";
  row.cells.push_back(unplannable);
  s.rows.push_back(row);
  s.green_cells = 1;
  s.evaluations = 3;
  return s;
}

TEST(SolveReport, SweepCsvRows) {
  const auto csv = sweep_csv(small_sweep());
  const std::string want =
      std::string(kSweepCsvHeader) +
      "\n"
      "nvidia-h100-sxm-80gb,8,16,2,red,-16487533117,-16.488,weights,8,2,16,1,1,,,,,\n"
      "nvidia-h100-sxm-80gb,8,24,3,green,17492652483,17.493,kv_cache,8,3,24,1,1,,150.25,20.50,memory_bandwidth,1.2346\n"
      "nvidia-h100-sxm-80gb,8,32,4,n/a,,,,,,,,,\"--gpus: 32 expert groups, \"\"too many\"\"\",,,,\n";
  EXPECT_EQ(csv, want);
}

TEST(SolveReport, SweepGridCells) {
  const auto text = render_sweep(k3(), PlanRequest{}, small_sweep(), TextStyle::table);
  for (const char* want : {"-16.5 W", "+17.5", "n/a", "1 of 3 cells fit", "weights only (pass 1)"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  const auto md = render_sweep(k3(), PlanRequest{}, small_sweep(), TextStyle::markdown);
  EXPECT_NE(md.find("| GPU \\ count | 16 | 24 | 32 |"), std::string::npos) << md;
  const auto j = sweep_json(k3(), PlanRequest{}, small_sweep());
  EXPECT_EQ(j["families"][0]["cells"][1]["verdict"], "green");
  EXPECT_EQ(j["families"][0]["cells"][1]["layout"]["tp"], 8);
  EXPECT_EQ(j["families"][0]["cells"][2]["verdict"], "n/a");
}

TEST(SolveReport, FitRowsSayWhatBinds) {
  FamilyFit green;
  green.gpu = *GpuCatalogue::embedded().find("H100", "test").value_or_throw();
  green.gpus_per_node = 8;
  green.fits = true;
  green.min_gpus = 24;
  green.best = probe(true, 17'492'652'483, Resource::weights, 24);
  green.binding = Resource::weights;
  green.binding_at = 16;
  FamilyFit red = green;
  red.fits = false;
  red.min_gpus = 0;
  red.limit_gpus = 256;
  red.limit_planned = true;
  red.binding_at = 256;
  red.binding = Resource::kv_cache;
  red.best = probe(false, -2'000'000'000, Resource::kv_cache, 256);
  const std::vector<FamilyFit> fits = {green, red};
  const auto text = render_fit(k3(), PlanRequest{}, FitOptions{}, fits, TextStyle::table);
  for (const char* want :
       {"weights ran out at 16 GPUs", "17.5 GB", "TP8 DP3 EP24",
        "does not fit within 256 GPUs; at 256 the binding resource is kv_cache (2.0 GB short", "1 of 2 families fit"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  const auto csv = fit_csv(fits);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), kFitCsvHeader);
  EXPECT_NE(csv.find("nvidia-h100-sxm-80gb,8,true,24,3,8,3,24,1,1,17492652483,17.493,weights,16,\n"), std::string::npos)
      << csv;
  const auto j = fit_json(k3(), PlanRequest{}, FitOptions{}, fits);
  EXPECT_EQ(j["families"][0]["min_gpus"], 24);
  EXPECT_TRUE(j["families"][1]["min_gpus"].is_null());
  EXPECT_EQ(j["families"][1]["binding"], "kv_cache");
}

}  // namespace
}  // namespace preflight
