// The latency bounds against public measurements (tests/data/latency): a
// roofline bound is a lower bound on time, so it must sit at or below every
// measured TPOT / ITL and TTFT of the same model, GPUs, layout and
// concurrency. A check that can fail: it found the catalogue planning an
// FP8 checkpoint as BF16 (its TPOT bound was above the measured ITL).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "artifact/model_files.h"
#include "plan/plan.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

// One CSV line with double-quoted fields ("" inside quotes is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::map<std::string, std::string>> measurements() {
  std::ifstream in(std::string(PREFLIGHT_TEST_DATA_DIR) + "/latency/measurements.csv");
  std::string line;
  std::getline(in, line);
  const auto header = csv_fields(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto cells = csv_fields(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::map<std::string, std::string>& catalogue_names() {
  static const std::map<std::string, std::string> names = {
      {"DeepSeek-R1-0528", "deepseek-v3"},
      {"DeepSeek-R1", "deepseek-v3"},
      {"gpt-oss-120b", "gpt-oss-120b"},
      {"gpt-oss-20b", "gpt-oss-20b"},
      {"Llama-3.3-70B-Instruct", "llama-3.3-70b-instruct-fp8-dynamic"}};
  return names;
}

TEST(LatencyTruth, BoundsSitBelowEveryPublishedMeasurement) {
  const auto rows = measurements();
  ASSERT_GE(rows.size(), 15u);
  std::size_t tpot_checked = 0, ttft_checked = 0;
  for (const auto& r : rows) {
    if (r.at("input_tokens").empty() || r.at("output_tokens").empty()) continue;  // lengths unknown: no bound to place
    SCOPED_TRACE("row " + r.at("id") + " " + r.at("model") + " on " + r.at("gpus") + " x " + r.at("gpu") + " at " +
                 r.at("concurrency") + " (" + r.at("source_url") + ")");
    const auto input = std::stoull(r.at("input_tokens"));
    const auto output = std::stoull(r.at("output_tokens"));
    PlanRequest req;
    req.gpu_count = std::stoull(r.at("gpus"));
    if (!r.at("tp").empty()) req.layout.tp = std::stoull(r.at("tp"));
    if (!r.at("dp").empty()) req.layout.dp = std::stoull(r.at("dp"));
    req.workload.requested = true;
    req.workload.context_tokens = input + output / 2;  // the mean length a decode step attends to
    req.workload.concurrency = std::stoull(r.at("concurrency"));
    req.latency.tpot_s = 3600;  // a target never binding: the bounds are what is checked
    req.latency.input_tokens = input;
    req.latency.output_tokens = output;
    req.perf.enabled = false;
    // As the command line loads a catalogue name (its files, the catalogue's --quantize for a base config).
    auto loaded = load_model_files(catalogue_files(catalogue_names().at(r.at("model"))).value_or_throw(), {});
    ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
    auto plan = build_plan(loaded->model, testing::catalogue_gpu(r.at("gpu")), req);
    ASSERT_TRUE(plan.ok()) << plan.error().to_string();
    ASSERT_TRUE(plan->latency.has_value());
    const auto& b = plan->latency->bounds;
    const auto& measured_tpot = r.at("tpot_ms").empty() ? r.at("itl_ms") : r.at("tpot_ms");
    if (!measured_tpot.empty()) {
      EXPECT_LE(b.decode_step_s * 1e3, std::stod(measured_tpot)) << "the TPOT lower bound is above a measurement";
      ++tpot_checked;
    }
    if (!r.at("ttft_ms").empty()) {
      EXPECT_LE(b.prefill_s * 1e3, std::stod(r.at("ttft_ms"))) << "the TTFT lower bound is above a measurement";
      ++ttft_checked;
    }
  }
  EXPECT_GE(tpot_checked, 15u);
  EXPECT_GE(ttft_checked, 10u);
}

}  // namespace
}  // namespace preflight
