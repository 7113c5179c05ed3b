// Tests for the GPU architecture table (data/launch/architectures.json): every
// accelerator of the embedded GPU catalogue has an architecture, custom
// entries are matched by name, and the reader's errors name the field.
#include "launch/gpu_arch.h"

#include <gtest/gtest.h>

#include <string>

#include "hardware/gpu_catalogue.h"

namespace preflight {
namespace {

TEST(GpuArchTable, EmbeddedTableParses) { EXPECT_GE(embedded_gpu_archs().size(), 10u); }

TEST(GpuArchTable, EveryCatalogueAcceleratorHasItsCatalogueArchitecture) {
  for (const auto& gpu : GpuCatalogue::embedded().all()) {
    const auto* arch = find_gpu_arch(embedded_gpu_archs(), gpu);
    ASSERT_NE(arch, nullptr) << gpu.id;
    EXPECT_EQ(arch->arch, gpu.architecture) << gpu.id;
  }
}

TEST(GpuArchTable, TheRecipesArchitectures) {
  struct Case {
    const char* gpu;
    const char* arch;
  };
  const Case cases[] = {
      {"h100", "hopper"},          {"h200", "hopper"},     {"h20", "hopper"},
      {"gh200", "hopper"},         {"b200", "blackwell"},  {"b300", "blackwell"},
      {"gb200", "blackwell"},      {"gb300", "blackwell"}, {"rtx-pro-6000", "blackwell-sm120"},
      {"5090", "blackwell-sm120"}, {"a100", "ampere"},     {"l40s", "ada"},
      {"mi300x", "cdna3"},         {"mi355x", "cdna4"},    {"mi250x", "cdna2"},
  };
  for (const auto& c : cases) {
    auto gpu = GpuCatalogue::embedded().find(c.gpu, "test");
    ASSERT_TRUE(gpu) << c.gpu;
    const auto* arch = find_gpu_arch(embedded_gpu_archs(), **gpu);
    ASSERT_NE(arch, nullptr) << c.gpu;
    EXPECT_EQ(arch->arch, c.arch) << c.gpu;
    EXPECT_FALSE(arch->source.empty());
  }
}

TEST(GpuArchTable, CustomEntriesMatchByName) {
  struct Case {
    const char* id;
    const char* name;
    const char* arch;  // "" = none
  };
  const Case cases[] = {
      {"my-h800", "NVIDIA H800 SXM5 80GB", "hopper"}, {"cloud-b200-custom", "Some cloud's GPU", "blackwell"},
      {"x", "NVIDIA GB300 tray", "blackwell"},        {"x", "AMD Instinct MI325X custom", "cdna3"},
      {"x", "Unknown Accelerator 9000", ""},
  };
  for (const auto& c : cases) {
    Accelerator gpu;
    gpu.id = c.id;
    gpu.name = c.name;
    const auto* arch = find_gpu_arch(embedded_gpu_archs(), gpu);
    if (std::string(c.arch).empty()) {
      EXPECT_EQ(arch, nullptr) << c.name;
    } else {
      ASSERT_NE(arch, nullptr) << c.name;
      EXPECT_EQ(arch->arch, c.arch) << c.name;
    }
  }
}

TEST(GpuArchTable, ReaderErrorsNameTheField) {
  struct Case {
    const char* json;
    const char* error;
  };
  const Case cases[] = {
      {"[]", "t: not a JSON object"},
      {"{}", "t: /architectures: missing list"},
      {R"({"architectures": [{"label": "x", "source": "s"}]})", "t: /architectures/0/arch: missing string"},
      {R"({"architectures": [{"arch": "a", "label": "x", "source": ""}]})",
       "t: /architectures/0/source: expected a non-empty string"},
      {R"({"architectures": [{"arch": "a", "label": "x", "source": "s", "ids": ["g"]},
                             {"arch": "b", "label": "y", "source": "s", "ids": ["g"]}]})",
       "t: /architectures/1/ids: accelerator 'g' is listed twice"},
      {R"({"architectures": [{"arch": "a", "label": "x", "source": "s", "name_patterns": ["-"]}]})",
       "t: /architectures/0/name_patterns: expected a non-empty pattern"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_gpu_archs(c.json, "t");
    ASSERT_FALSE(parsed) << c.json;
    EXPECT_EQ(parsed.error().to_string(), c.error);
  }
}

}  // namespace
}  // namespace preflight
