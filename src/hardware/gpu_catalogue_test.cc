// Tests for GpuCatalogue: the embedded data (data/gpus.json) and its reader.
//
// The data tests pin the figures plans depend on (device totals and their
// evidence) and cross-check the catalogue against the research CSV it was built
// from (tests/data/reference/data/gpus.csv), so a hand edit that drifts from the sources fails.
// The reader tests pin every error message exactly: they are the user interface
// of `--catalogue FILE.json`.
#include "hardware/gpu_catalogue.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/bytes.h"
#include "reference_files.h"

namespace preflight {
namespace {

const GpuCatalogue& catalogue() { return GpuCatalogue::embedded(); }

const Accelerator& by_id(std::string_view id) {
  auto found = catalogue().find(id, "test");
  if (!found) throw std::runtime_error(found.error().to_string());
  return **found;
}

Bytes gib_bytes(double gib) { return static_cast<Bytes>(std::llround(gib * static_cast<double>(kGiB))); }

// ---------------------------------------------------------------- embedded data

TEST(GpuEmbeddedCatalogue, ParsesWithAllFortyEightEntries) { EXPECT_EQ(catalogue().all().size(), 48u); }

// A figure nobody publishes is null in data/gpus.json: it reads as 0 (nothing to
// plan with) and is named in `unknown`, so reports print it as unknown.
TEST(GpuEmbeddedCatalogue, NullFiguresAreUnknownNotZero) {
  auto h20 = catalogue().find("nvidia-h20-141gb", "test");
  ASSERT_TRUE(h20.ok());
  EXPECT_TRUE((*h20)->is_unknown("memory_bandwidth_tb_s"));
  EXPECT_EQ((*h20)->memory_bandwidth_tb_s, 0.0);
  auto a100 = catalogue().find("nvidia-a100-80gb-sxm", "test");
  ASSERT_TRUE(a100.ok());
  EXPECT_FALSE((*a100)->is_unknown("fp8_dense_tflops"));  // 0: Ampere has no FP8 tensor cores
  EXPECT_EQ((*a100)->fp8_dense_tflops, 0.0);
  auto bad = GpuCatalogue::parse(R"({"accelerators": [{"id": "x", "name": "X", "nominal_gb": null, "sources": "s"}]})",
                                 "t.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().to_string(), "t.json: /accelerators/0/nominal_gb: expected a positive number, got null");
}

// find_embedded reads one entry by its lines; the full parse reads them all. Every
// id, name and alias (and a variant typed with other case and separators) must
// give the full parse's accelerator, field for field.
TEST(GpuCatalogueQuick, EveryNameFindsTheEntryTheFullParseFinds) {
  std::size_t names = 0;
  for (const auto& a : catalogue().all()) {
    std::vector<std::string> typed = {a.id, a.name};
    typed.insert(typed.end(), a.aliases.begin(), a.aliases.end());
    std::string shouted = a.id;
    for (auto& c : shouted) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    typed.push_back(shouted);
    for (const auto& name : typed) {
      SCOPED_TRACE(name);
      auto quick = GpuCatalogue::find_embedded(name, "--gpus");
      ASSERT_TRUE(quick.ok()) << quick.error().to_string();
      EXPECT_TRUE(*quick == a);
      ++names;
    }
  }
  EXPECT_GT(names, 3 * catalogue().all().size());
  EXPECT_EQ(GpuCatalogue::embedded_quick_entries(), catalogue().all().size());  // the quick path is taken
}

TEST(GpuCatalogueQuick, AnUnknownNameGetsTheFullParsesError) {
  for (const char* name : {"H1OO", "b3000", "", "mi999x"}) {
    SCOPED_TRACE(name);
    auto quick = GpuCatalogue::find_embedded(name, "--gpus");
    auto full = catalogue().find(name, "--gpus");
    ASSERT_FALSE(quick.ok());
    ASSERT_FALSE(full.ok());
    EXPECT_EQ(quick.error().to_string(), full.error().to_string());
  }
}

TEST(GpuEmbeddedCatalogue, H100UsesTheVllmLoggedTotal) {
  const Accelerator& h100 = by_id("nvidia-h100-sxm-80gb");
  EXPECT_EQ(h100.device_total_bytes, gib_bytes(79.19));
  EXPECT_EQ(h100.device_total_bytes, 85'029'615'043u);
  EXPECT_EQ(h100.device_total_evidence, Evidence::official);
  EXPECT_NE(h100.device_total_source.find("total_gpu_memory=79.19GiB"), std::string::npos);
  EXPECT_EQ(h100.nominal_gb, 80);
  EXPECT_EQ(h100.smi_total_bytes, 81559u * kMiB);
  EXPECT_EQ(h100.vendor, "NVIDIA");
  EXPECT_EQ(h100.name, "NVIDIA H100 SXM5 80GB");
  EXPECT_EQ(h100.gpus_per_node, 8u);
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth_tb_s, 3.35);
  EXPECT_DOUBLE_EQ(h100.bf16_dense_tflops, 989.4);
  EXPECT_DOUBLE_EQ(h100.fp8_dense_tflops, 1978.9);
  EXPECT_FALSE(h100.fp4_native);
  EXPECT_EQ(h100.tdp_w, 700u);
  EXPECT_DOUBLE_EQ(h100.price_usd_per_gpu_hour, 3.78);
}

// How each device total is known: measured (official), or one of the two
// estimate rules (nvidia-smi - 0.5 GiB; nominal x 2^30).
struct TotalCase {
  const char* id;
  Bytes bytes;
  Evidence evidence;
};

TEST(GpuEmbeddedCatalogue, DeviceTotalsAndTheirEvidence) {
  const std::vector<TotalCase> cases = {
      {"nvidia-h200-sxm-141gb", gib_bytes(139.80), Evidence::official},
      {"nvidia-b200-hgx", gib_bytes(178.35), Evidence::official},
      {"nvidia-l4", gib_bytes(22.03), Evidence::official},
      {"nvidia-a100-40gb-sxm", 40441 * kMiB, Evidence::official},
      {"amd-mi300x", gib_bytes(191.98), Evidence::official},
      {"amd-mi355x", gib_bytes(287.98), Evidence::official},
      // Grace-Blackwell: PyTorch's out-of-memory message (the CUDA total), 1.05 and 0.72 GiB below nvidia-smi.
      {"nvidia-gb300", gib_bytes(276.50), Evidence::official},
      {"nvidia-gb200", gib_bytes(184.31), Evidence::official},
      // Measured on the A10 Modal serves for "A10G": an assumption, so an estimate.
      {"nvidia-a10g", gib_bytes(22.06), Evidence::estimate},
      // nvidia-smi / hl-smi total minus 0.5 GiB.
      {"nvidia-h100-pcie-80gb", 81559 * kMiB - kGiB / 2, Evidence::estimate},
      {"nvidia-a100-80gb-sxm", 81920 * kMiB - kGiB / 2, Evidence::estimate},
      {"intel-gaudi3", 131072 * kMiB - kGiB / 2, Evidence::estimate},
      // Nothing known: nominal x 2^30.
      {"google-tpu-v5p", 95 * kGiB, Evidence::estimate},
      {"aws-trainium2", 96 * kGiB, Evidence::estimate},
      {"apple-m3-ultra", 384 * kGiB, Evidence::estimate},  // 75% of 512 GiB: macOS's default GPU wired limit
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.id);
    const Accelerator& a = by_id(c.id);
    EXPECT_EQ(a.device_total_bytes, c.bytes);
    EXPECT_EQ(a.device_total_evidence, c.evidence);
  }
}

TEST(GpuEmbeddedCatalogue, EveryEntryHasSourcesAndAPlausibleDeviceTotal) {
  for (const Accelerator& a : catalogue().all()) {
    SCOPED_TRACE(a.id);
    EXPECT_FALSE(a.sources.empty());
    EXPECT_FALSE(a.device_total_source.empty());
    EXPECT_FALSE(a.name.empty());
    EXPECT_FALSE(a.vendor.empty());
    EXPECT_FALSE(a.aliases.empty());
    EXPECT_GT(a.device_total_bytes, 0u);
    EXPECT_GE(a.gpus_per_node, 1u);
    if (a.smi_total_bytes != 0) {
      EXPECT_LE(a.device_total_bytes, a.smi_total_bytes);
    }
    // Vendor "GB" is effectively GiB (gpus-notes section 3): the device total
    // never exceeds nominal x 2^30 and loses at most ~8% to reservations. A
    // catalogue that multiplied by 10^9 instead would fail the lower bound for
    // HBM parts, one that forgot a unit the upper.
    const double nominal_bytes = a.nominal_gb * static_cast<double>(kGiB);
    EXPECT_LE(static_cast<double>(a.device_total_bytes), nominal_bytes);
    // Unified memory (Apple) is shared with the CPU: the GPU gets macOS's default
    // wired limit, about 75% of RAM, not the whole nominal size.
    const double floor = a.architecture == "apple" ? 0.7 : 0.9;
    EXPECT_GE(static_cast<double>(a.device_total_bytes), floor * nominal_bytes);
    if (a.architecture == "apple") {
      EXPECT_LT(static_cast<double>(a.device_total_bytes), 0.8 * nominal_bytes);
    }
  }
}

TEST(GpuEmbeddedCatalogue, RackScalePartsCountATrayAsANode) {
  for (const char* id : {"nvidia-gb200", "nvidia-gb300"}) {
    SCOPED_TRACE(id);
    const Accelerator& a = by_id(id);
    EXPECT_EQ(a.gpus_per_node, 4u);
    EXPECT_NE(a.node_note.find("NVL72"), std::string::npos);
  }
  EXPECT_EQ(by_id("apple-m4-max").gpus_per_node, 1u);
  EXPECT_EQ(by_id("google-tpu-v5p").gpus_per_node, 4u);
  EXPECT_EQ(by_id("google-tpu-v6e").gpus_per_node, 8u);
  EXPECT_EQ(by_id("nvidia-l40s").gpus_per_node, 8u);
}

TEST(GpuEmbeddedCatalogue, EveryIdNameAndAliasResolvesToItsOwnEntry) {
  for (const Accelerator& a : catalogue().all()) {
    std::vector<std::string> names = a.aliases;
    names.push_back(a.id);
    names.push_back(a.name);
    for (const auto& n : names) {
      SCOPED_TRACE(a.id + " <- " + n);
      auto found = catalogue().find(n, "test");
      ASSERT_TRUE(found.ok()) << found.error().to_string();
      EXPECT_EQ(*found, &a);
      // Aliases are what users type: lower case, no spaces.
      if (n != a.name) {
        EXPECT_EQ(n.find(' '), std::string::npos);
      }
    }
  }
}

// Splits CSV text into rows of fields, honouring double quotes ("" escapes a
// quote; quoted fields may hold commas and newlines).
std::vector<std::vector<std::string>> parse_csv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
    } else {
      field.push_back(c);
    }
  }
  if (!field.empty() || !row.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(GpuCatalogueCsv, EveryResearchRowIsCatalogued) {
  const std::string csv = testing::read_reference("data/gpus.csv");
  ASSERT_FALSE(csv.empty()) << "tests/data/reference/data/gpus.csv not found at " << PREFLIGHT_REFERENCE_DIR;
  const auto rows = parse_csv(csv);
  ASSERT_GT(rows.size(), 1u);
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < rows[0].size(); ++i) column[rows[0][i]] = i;
  for (const char* name : {"id", "mem_gb", "bw_tbs", "sources"}) ASSERT_TRUE(column.count(name)) << name;

  // The CSV holds the researched rows; rows added later carry their sources in data/gpus.json.
  EXPECT_LE(rows.size() - 1, catalogue().all().size());
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    ASSERT_EQ(row.size(), rows[0].size()) << "row " << r;
    const std::string& id = row[column["id"]];
    SCOPED_TRACE(id);
    auto found = catalogue().find(id, "test");
    ASSERT_TRUE(found.ok()) << found.error().to_string();
    const Accelerator& a = **found;
    EXPECT_EQ(a.id, id);
    EXPECT_DOUBLE_EQ(a.nominal_gb, std::stod(row[column["mem_gb"]]));
    const std::string& bw = row[column["bw_tbs"]];
    if (!a.is_unknown("memory_bandwidth_tb_s")) {
      EXPECT_DOUBLE_EQ(a.memory_bandwidth_tb_s, bw.empty() ? 0.0 : std::stod(bw));
    }
    // A later review may append to a row's sources, never drop what the research said.
    EXPECT_TRUE(a.sources.starts_with(row[column["sources"]])) << a.sources;
  }
}

// ---------------------------------------------------------------- lookups

struct LookupCase {
  const char* typed;
  const char* id;
};

TEST(GpuLookup, AliasesCaseAndPunctuation) {
  const std::vector<LookupCase> cases = {
      {"H100", "nvidia-h100-sxm-80gb"},
      {"h100-sxm", "nvidia-h100-sxm-80gb"},
      {"H100_SXM", "nvidia-h100-sxm-80gb"},
      {"h100 sxm5", "nvidia-h100-sxm-80gb"},
      {"nvidia-h100-sxm-80gb", "nvidia-h100-sxm-80gb"},
      {"NVIDIA H100 SXM5 80GB", "nvidia-h100-sxm-80gb"},
      {"h100-pcie", "nvidia-h100-pcie-80gb"},
      {"H100 NVL", "nvidia-h100-nvl-94gb"},
      {"h200", "nvidia-h200-sxm-141gb"},
      {"H20", "nvidia-h20-96gb"},
      {"h20-3e", "nvidia-h20-141gb"},
      {"GH200", "nvidia-gh200-96gb"},
      {"gh200-144gb", "nvidia-gh200-144gb"},
      {"B200", "nvidia-b200-hgx"},
      {"gb200", "nvidia-gb200"},
      {"B300", "nvidia-b300-hgx"},
      {"GB300", "nvidia-gb300"},
      {"a100", "nvidia-a100-80gb-sxm"},
      {"A100-40GB", "nvidia-a100-40gb-sxm"},
      {"L40S", "nvidia-l40s"},
      {"l4", "nvidia-l4"},
      {"A10G", "nvidia-a10g"},
      {"RTX4090", "nvidia-rtx-4090"},
      {"rtx-4090", "nvidia-rtx-4090"},
      {"4090", "nvidia-rtx-4090"},
      {"RTX 5090", "nvidia-rtx-5090"},
      {"rtx-pro-6000", "nvidia-rtx-pro-6000-blackwell"},
      {"MI250X", "amd-mi250x"},
      {"mi300x", "amd-mi300x"},
      {"MI325X", "amd-mi325x"},
      {"mi350x", "amd-mi350x"},
      {"MI355X", "amd-mi355x"},
      {"Gaudi3", "intel-gaudi3"},
      {"TPU v5e", "google-tpu-v5e"},
      {"v5p", "google-tpu-v5p"},
      {"v6e", "google-tpu-v6e"},
      {"tpu7x", "google-tpu7x-ironwood"},
      {"Trainium2", "aws-trainium2"},
      {"trn2", "aws-trainium2"},
      {"M3 Ultra", "apple-m3-ultra"},
      {"m4-max", "apple-m4-max"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.typed);
    auto found = catalogue().find(c.typed, "--gpus");
    ASSERT_TRUE(found.ok()) << found.error().to_string();
    EXPECT_EQ((*found)->id, c.id);
  }
}

TEST(GpuLookup, UnknownNameSuggestsTheClosestAlias) {
  auto found = catalogue().find("H1OO", "--gpus");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().origin, "--gpus");
  EXPECT_EQ(found.error().field, "");
  EXPECT_EQ(found.error().message, "unknown GPU 'H1OO'; did you mean 'h100'? (preflight gpus lists the catalogue)");
  EXPECT_EQ(found.error().to_string(),
            "--gpus: unknown GPU 'H1OO'; did you mean 'h100'? (preflight gpus lists the "
            "catalogue)");
}

TEST(GpuLookup, SuggestionsAndTheirAbsence) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"mi300",
       "--gpus: unknown GPU 'mi300'; did you mean 'mi300x'? (preflight gpus lists the "
       "catalogue)"},
      {"a1000",
       "--gpus: unknown GPU 'a1000'; did you mean 'a100-40'? (preflight gpus lists the "
       "catalogue)"},
      {"quantum-annealer",
       "--gpus: unknown GPU 'quantum-annealer' (preflight gpus lists the "
       "catalogue)"},
      {"", "--gpus: unknown GPU '' (preflight gpus lists the catalogue)"},
      {"---", "--gpus: unknown GPU '---' (preflight gpus lists the catalogue)"},
  };
  for (const auto& [typed, message] : cases) {
    SCOPED_TRACE(typed);
    auto found = catalogue().find(typed, "--gpus");
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.error().to_string(), message);
  }
}

TEST(GpuLookup, LookupKeyIgnoresCaseDashesUnderscoresAndSpaces) {
  EXPECT_EQ(GpuCatalogue::lookup_key("H100_SXM"), "h100sxm");
  EXPECT_EQ(GpuCatalogue::lookup_key("NVIDIA H100 SXM5-80GB"), "nvidiah100sxm580gb");
  EXPECT_EQ(GpuCatalogue::lookup_key("- _"), "");
}

// ---------------------------------------------------------------- the reader

// A catalogue text with the given entry objects (without braces).
std::string catalogue_of(std::initializer_list<std::string_view> entries) {
  std::string out = R"({"schema": "preflight.gpus/1", "accelerators": [)";
  bool first = true;
  for (auto e : entries) {
    if (!first) out += ", ";
    out += "{";
    out += e;
    out += "}";
    first = false;
  }
  return out + "]}";
}

constexpr std::string_view kMinimal = R"("id": "x1", "name": "X1", "nominal_gb": 80, "smi_total_mib": 81559)";

TEST(GpuCatalogueParse, MinimalEntryGetsTheSmiRuleAndDefaults) {
  auto parsed = GpuCatalogue::parse(catalogue_of({kMinimal}), "mine.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  ASSERT_EQ(parsed->all().size(), 1u);
  const Accelerator& a = parsed->all()[0];
  EXPECT_EQ(a.device_total_bytes, 81559 * kMiB - kGiB / 2);
  EXPECT_EQ(a.device_total_evidence, Evidence::estimate);
  EXPECT_NE(a.device_total_source.find("minus 0.5 GiB"), std::string::npos);
  EXPECT_EQ(a.sources, "mine.json (no sources given)");
  EXPECT_EQ(a.gpus_per_node, 1u);
  EXPECT_EQ(a.memory_bandwidth_tb_s, 0);
}

TEST(GpuCatalogueParse, FullEntryFieldsAndUnknownKeysIgnored) {
  const std::string text = catalogue_of({R"(
      "id": "acme-z9", "vendor": "Acme", "name": "Acme Z9", "aliases": ["z9", "Z-9 Pro"],
      "nominal_gb": 64, "smi_total_mib": 65536,
      "device_total": {"gib": 63.5, "evidence": "official", "source": "probe log"},
      "memory_type": "HBM3", "memory_bandwidth_tb_s": 4.5, "bf16_dense_tflops": 500,
      "fp8_dense_tflops": 1000, "fp4_native": true, "fp4_dense_tflops": 2000.0,
      "interconnect": "AcmeLink", "interconnect_gb_s": 400, "gpus_per_node": 8.0,
      "node_note": "8 per box", "tdp_w": 600, "price_usd_per_gpu_hour": 1.25,
      "price_note": "list", "sources": "datasheet", "future_field": {"anything": [1, 2]})"});
  auto parsed = GpuCatalogue::parse(text, "mine.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  const Accelerator& a = parsed->all()[0];
  EXPECT_EQ(a.vendor, "Acme");
  EXPECT_EQ(a.aliases, (std::vector<std::string>{"z9", "Z-9 Pro"}));
  EXPECT_EQ(a.device_total_bytes, gib_bytes(63.5));
  EXPECT_EQ(a.device_total_evidence, Evidence::official);
  EXPECT_EQ(a.device_total_source, "probe log");
  EXPECT_TRUE(a.fp4_native);
  EXPECT_EQ(a.gpus_per_node, 8u);
  EXPECT_EQ(a.tdp_w, 600u);
  EXPECT_DOUBLE_EQ(a.price_usd_per_gpu_hour, 1.25);
  auto found = parsed->find("z9pro", "test");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->id, "acme-z9");
}

struct BadCase {
  const char* what;
  std::string text;
  const char* error;
};

TEST(GpuCatalogueParse, MalformedCataloguesGiveOneExactLine) {
  const std::string ok_entry = std::string(kMinimal);
  const std::vector<BadCase> cases = {
      {"truncated JSON", R"({"accelerators": [)",
       "bad.json: invalid JSON: parse error at line 1, column 19: syntax error while parsing "
       "value - unexpected end of input; expected '[', '{', or a literal"},
      {"trailing garbage", R"({"accelerators": []} x)",
       "bad.json: invalid JSON: parse error at line 1, column 22: syntax error while parsing "
       "value - invalid literal; last read: '\"accelerators\": []} x'; expected end of input"},
      {"trailing garbage after a long document",
       R"({"accelerators": [], "note": "a long note that pushes the quote past forty characters"} x)",
       "bad.json: invalid JSON: parse error at line 1, column 89: syntax error while parsing "
       "value - invalid literal; last read: '...s the quote past forty characters\"} x'; "
       "expected end of input"},
      {"not an object", "[1, 2]", "bad.json: expected a JSON object with an \"accelerators\" array, got [1,2]"},
      {"missing accelerators", R"({"schema": "preflight.gpus/1"})",
       "bad.json: /accelerators: missing; expected an array of accelerator objects"},
      {"accelerators not an array", R"({"accelerators": {"id": "x"}})",
       "bad.json: /accelerators: expected an array of accelerator objects, got {\"id\":\"x\"}"},
      {"wrong schema", R"({"schema": "preflight.gpus/2", "accelerators": []})",
       "bad.json: /schema: expected \"preflight.gpus/1\", got \"preflight.gpus/2\""},
      {"entry not an object", R"({"accelerators": [5]})",
       "bad.json: /accelerators/0: expected an accelerator object, got 5"},
      {"nominal_gb string", catalogue_of({R"("id": "x1", "name": "X1", "nominal_gb": "abc", "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/nominal_gb: expected a positive number, got \"abc\""},
      {"nominal_gb zero", catalogue_of({R"("id": "x1", "name": "X1", "nominal_gb": 0, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/nominal_gb: expected a positive number, got 0"},
      {"nominal_gb absurd", catalogue_of({R"("id": "x1", "name": "X1", "nominal_gb": 1e300, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/nominal_gb: expected at most 10000000, got 1e+300"},
      {"negative bandwidth", catalogue_of({ok_entry + R"(, "memory_bandwidth_tb_s": -3.35)"}),
       "bad.json: /accelerators/0/memory_bandwidth_tb_s: expected a non-negative number, got "
       "-3.35"},
      {"denormal bandwidth", catalogue_of({ok_entry + R"(, "memory_bandwidth_tb_s": 5e-324)"}),
       "bad.json: /accelerators/0/memory_bandwidth_tb_s: expected 0 or at least 1e-06, got 5e-324"},
      {"newline in a name",
       catalogue_of({R"("id": "x1", "name": "X1\nVerdict: GREEN", "nominal_gb": 1, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/name: expected text without control characters, got \"X1\\nVerdict: GREEN\""},
      {"duplicate id",
       catalogue_of({ok_entry, R"("id": "x1", "name": "Other", "nominal_gb": 1, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/1/id: duplicate id 'x1' (first at /accelerators/0)"},
      {"alias clash",
       catalogue_of(
           {ok_entry + R"(, "aliases": ["h100"])",
            R"("id": "x2", "name": "X2", "nominal_gb": 1, "smi_total_mib": 1024, "aliases": ["x-two", "H-100"])"}),
       "bad.json: /accelerators/1/aliases/1: alias 'H-100' already names 'x1'"},
      {"alias equals another id",
       catalogue_of(
           {ok_entry, R"("id": "x2", "name": "X2", "nominal_gb": 1, "smi_total_mib": 1024, "aliases": ["X_1"])"}),
       "bad.json: /accelerators/1/aliases/0: alias 'X_1' already names 'x1'"},
      {"name clash", catalogue_of({ok_entry, R"("id": "x2", "name": "x-1", "nominal_gb": 1, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/1/name: name 'x-1' already names 'x1'"},
      {"empty id", catalogue_of({R"("id": "", "name": "X1", "nominal_gb": 80, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/id: expected a non-empty string, got \"\""},
      {"missing id", catalogue_of({R"("name": "X1", "nominal_gb": 80, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/id: missing (required)"},
      {"upper-case id", catalogue_of({R"("id": "H100", "name": "X1", "nominal_gb": 80, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/id: expected a lower-case id of letters, digits, '-', '.' and "
       "'_', got \"H100\""},
      {"missing name", catalogue_of({R"("id": "x1", "nominal_gb": 80, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/name: missing (required)"},
      {"no capacity", catalogue_of({R"("id": "x1", "name": "X1", "nominal_gb": 80)"}),
       "bad.json: /accelerators/0: needs smi_total_mib or device_total (the device-reported "
       "total memory)"},
      {"evidence unknown word",
       catalogue_of({ok_entry + R"(, "device_total": {"gib": 79, "evidence": "measured", "source": "x"})"}),
       "bad.json: /accelerators/0/device_total/evidence: expected one of official, derived, "
       "estimate, hypothesis, got \"measured\""},
      {"device_total without source",
       catalogue_of({ok_entry + R"(, "device_total": {"gib": 79, "evidence": "official"})"}),
       "bad.json: /accelerators/0/device_total/source: missing; every figure needs a source"},
      {"device_total not an object", catalogue_of({ok_entry + R"(, "device_total": 79.19)"}),
       "bad.json: /accelerators/0/device_total: expected an object with gib, evidence and "
       "source, got 79.19"},
      {"device_total above nvidia-smi",
       catalogue_of({ok_entry + R"(, "device_total": {"gib": 90, "evidence": "official", "source": "x"})"}),
       "bad.json: /accelerators/0/device_total/gib: expected at most smi_total_mib (81559 MiB = "
       "79.65 GiB), got 90"},
      {"device_total rule without smi",
       catalogue_of(
           {R"("id": "x1", "name": "X1", "nominal_gb": 80, "device_total": {"evidence": "estimate", "source": "rule"})"}),
       "bad.json: /accelerators/0/device_total/gib: missing; without smi_total_mib the device "
       "total must be given in GiB"},
      {"smi too small for the rule",
       catalogue_of({R"("id": "x1", "name": "X1", "nominal_gb": 80, "smi_total_mib": 512)"}),
       "bad.json: /accelerators/0/smi_total_mib: expected more than 512 (the device-total "
       "estimate subtracts 0.5 GiB), got 512"},
      {"smi negative", catalogue_of({R"("id": "x1", "name": "X1", "nominal_gb": 80, "smi_total_mib": -1)"}),
       "bad.json: /accelerators/0/smi_total_mib: expected a positive integer, got -1"},
      {"fractional gpus_per_node", catalogue_of({ok_entry + R"(, "gpus_per_node": 8.5)"}),
       "bad.json: /accelerators/0/gpus_per_node: expected a positive integer, got 8.5"},
      {"zero gpus_per_node", catalogue_of({ok_entry + R"(, "gpus_per_node": 0)"}),
       "bad.json: /accelerators/0/gpus_per_node: expected a positive integer, got 0"},
      {"tdp as string", catalogue_of({ok_entry + R"(, "tdp_w": "700")"}),
       "bad.json: /accelerators/0/tdp_w: expected a non-negative integer, got \"700\""},
      {"fp4_native as word", catalogue_of({ok_entry + R"(, "fp4_native": "yes")"}),
       "bad.json: /accelerators/0/fp4_native: expected true or false, got \"yes\""},
      {"aliases as string", catalogue_of({ok_entry + R"(, "aliases": "x")"}),
       "bad.json: /accelerators/0/aliases: expected an array of strings, got \"x\""},
      {"empty alias", catalogue_of({ok_entry + R"(, "aliases": ["ok", "-"])"}),
       "bad.json: /accelerators/0/aliases/1: expected a name with a letter or digit, got \"-\""},
      {"blank name", catalogue_of({R"("id": "x1", "name": "  ", "nominal_gb": 80, "smi_total_mib": 1024)"}),
       "bad.json: /accelerators/0/name: expected a non-empty string, got \"  \""},
      {"vendor as number", catalogue_of({ok_entry + R"(, "vendor": 7)"}),
       "bad.json: /accelerators/0/vendor: expected a string, got 7"},
      {"long value shortened",
       catalogue_of(
           {ok_entry +
            R"(, "price_usd_per_gpu_hour": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")"}),
       "bad.json: /accelerators/0/price_usd_per_gpu_hour: expected a non-negative number, got "
       "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    auto parsed = GpuCatalogue::parse(c.text, "bad.json");
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error().to_string(), c.error);
    EXPECT_EQ(parsed.error().to_string().find('\n'), std::string::npos);
  }
}

TEST(GpuCatalogueParse, ParseErrorsNeverThrowOnArbitraryBytes) {
  const std::vector<std::string> junk = {"",
                                         std::string("\0\0\0", 3),
                                         "\xff\xfe{",
                                         "{\"accelerators\": [\"\xc3\x28\"]}",
                                         std::string(10000, '['),
                                         "nul",
                                         "{\"accelerators\": [{\"id\": \"x\n\"}]}"};
  for (const auto& text : junk) {
    auto parsed = GpuCatalogue::parse(text, "junk");
    EXPECT_FALSE(parsed.ok());
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.error().to_string().find('\n'), std::string::npos);
    }
  }
}

// ---------------------------------------------------------------- merged_with

TEST(GpuCatalogueMerge, OverridesOneFieldOfAnExistingEntry) {
  auto merged = catalogue().merged_with(
      R"({"accelerators": [{"id": "nvidia-h100-sxm-80gb", "price_usd_per_gpu_hour": 2.5}]})", "prices.json");
  ASSERT_TRUE(merged.ok()) << merged.error().to_string();
  EXPECT_EQ(merged->all().size(), catalogue().all().size());
  auto h100 = merged->find("h100", "test");
  ASSERT_TRUE(h100.ok());
  EXPECT_DOUBLE_EQ((*h100)->price_usd_per_gpu_hour, 2.5);
  // Everything else is the embedded entry's.
  const Accelerator& original = by_id("nvidia-h100-sxm-80gb");
  EXPECT_EQ((*h100)->device_total_bytes, original.device_total_bytes);
  EXPECT_EQ((*h100)->device_total_evidence, Evidence::official);
  EXPECT_EQ((*h100)->aliases, original.aliases);
  EXPECT_EQ((*h100)->sources, original.sources);
  // The embedded catalogue itself is untouched.
  EXPECT_DOUBLE_EQ(original.price_usd_per_gpu_hour, 3.78);
}

TEST(GpuCatalogueMerge, OverridingSmiRecomputesARuleBasedTotal) {
  auto merged = catalogue().merged_with(
      R"({"accelerators": [{"id": "nvidia-h100-pcie-80gb", "smi_total_mib": 81000}]})", "o.json");
  ASSERT_TRUE(merged.ok()) << merged.error().to_string();
  auto pcie = merged->find("h100-pcie", "test");
  ASSERT_TRUE(pcie.ok());
  EXPECT_EQ((*pcie)->device_total_bytes, 81000 * kMiB - kGiB / 2);
}

TEST(GpuCatalogueMerge, ReplacingAliasesFreesTheOldOnes) {
  auto merged = catalogue().merged_with(
      R"({"accelerators": [{"id": "nvidia-h100-sxm-80gb", "aliases": ["hopper"]},
                           {"id": "my-h100", "name": "My H100", "aliases": ["h100"],
                            "nominal_gb": 80, "smi_total_mib": 81559}]})",
      "o.json");
  ASSERT_TRUE(merged.ok()) << merged.error().to_string();
  EXPECT_EQ((*merged->find("hopper", "t"))->id, "nvidia-h100-sxm-80gb");
  EXPECT_EQ((*merged->find("h100", "t"))->id, "my-h100");
}

TEST(GpuCatalogueMerge, AddsANewEntry) {
  auto merged = catalogue().merged_with(R"({"schema": "preflight.gpus/1", "accelerators": [{
        "id": "acme-x1", "vendor": "Acme", "name": "Acme X1 64GB", "aliases": ["x1"],
        "nominal_gb": 64,
        "device_total": {"gib": 63.2, "evidence": "official", "source": "torch on our box"},
        "memory_bandwidth_tb_s": 3.0, "gpus_per_node": 4, "sources": "our lab"}]})",
                                        "lab.json");
  ASSERT_TRUE(merged.ok()) << merged.error().to_string();
  EXPECT_EQ(merged->all().size(), catalogue().all().size() + 1);
  auto x1 = merged->find("X-1", "--gpus");
  ASSERT_TRUE(x1.ok()) << x1.error().to_string();
  EXPECT_EQ((*x1)->id, "acme-x1");
  EXPECT_EQ((*x1)->device_total_bytes, gib_bytes(63.2));
  EXPECT_EQ((*x1)->gpus_per_node, 4u);
  // The embedded entries are still there and still found.
  EXPECT_TRUE(merged->find("h100", "t").ok());
  // And merging again on top of the merged catalogue works (raw entries kept).
  auto again = merged->merged_with(R"({"accelerators": [{"id": "acme-x1", "tdp_w": 500}]})", "lab2.json");
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ((*again->find("x1", "t"))->tdp_w, 500u);
  EXPECT_EQ((*again->find("x1", "t"))->device_total_bytes, gib_bytes(63.2));
}

TEST(GpuCatalogueMerge, OverrideErrorsPointIntoTheOverrideFile) {
  const std::vector<std::pair<std::string, const char*>> cases = {
      {R"({"accelerators": [{"id": "my-gpu", "nominal_gb": 24}]})",
       "extra.json: /accelerators/0/name: missing; 'my-gpu' is not in the catalogue, so a new "
       "entry needs name, nominal_gb and smi_total_mib or device_total"},
      {R"({"accelerators": [{"id": "nvidia-h100-sxm-80gb", "tdp_w": "700"}]})",
       "extra.json: /accelerators/0/tdp_w: expected a non-negative integer, got \"700\""},
      {R"({"accelerators": [{"nominal_gb": 24}]})", "extra.json: /accelerators/0/id: missing (required)"},
      {R"({"accelerators": [{"id": "my-gpu", "name": "Mine", "nominal_gb": 24, "smi_total_mib": 24000, "aliases": ["H100"]}]})",
       "extra.json: /accelerators/0/aliases/0: alias 'H100' already names "
       "'nvidia-h100-sxm-80gb'"},
      {R"({"accelerators": [{"id": "nvidia-l4", "tdp_w": 70}, {"id": "nvidia-l4", "tdp_w": 72}]})",
       "extra.json: /accelerators/1/id: duplicate id 'nvidia-l4' (first at /accelerators/0)"},
      {R"({"accelerators": [{"id": "nvidia-l4", "device_total": {"gib": 30, "evidence": "official", "source": "x"}}]})",
       "extra.json: /accelerators/0/device_total/gib: expected at most smi_total_mib (23034 MiB "
       "= 22.49 GiB), got 30"},
      {R"({"accelerators": [{"id": "google-tpu-v5e", "device_total": {"evidence": "estimate", "source": "x"}}]})",
       "extra.json: /accelerators/0/device_total/gib: missing; without smi_total_mib the device "
       "total must be given in GiB"},
      {"{\"accelerators\": ",
       "extra.json: invalid JSON: parse error at line 1, column 18: syntax "
       "error while parsing value - unexpected end of input; expected '[', "
       "'{', or a literal"},
  };
  for (const auto& [text, error] : cases) {
    SCOPED_TRACE(text);
    auto merged = catalogue().merged_with(text, "extra.json");
    ASSERT_FALSE(merged.ok());
    EXPECT_EQ(merged.error().to_string(), error);
  }
}

}  // namespace
}  // namespace preflight
