// gpu_links: the link class the engines' all-reduce code sees, read from the
// embedded catalogue's entries.
#include "hardware/gpu_links.h"

#include <gtest/gtest.h>

#include "hardware/gpu_catalogue.h"

namespace preflight {
namespace {

TEST(GpuLinks, EachCatalogueClass) {
  const std::pair<const char*, GpuLinks> cases[] = {
      {"h100", GpuLinks::nvls},        {"b200", GpuLinks::nvls},     {"gb200", GpuLinks::nvls},
      {"a100-80gb", GpuLinks::nvlink}, {"mi300x", GpuLinks::nvlink}, {"mi308x", GpuLinks::nvlink},
      {"l40s", GpuLinks::pcie},        {"rtx-4090", GpuLinks::pcie}, {"h100-pcie", GpuLinks::pcie},
      {"rtx-3090", GpuLinks::pcie},    {"l4", GpuLinks::pcie},
  };
  for (const auto& [name, links] : cases) {
    SCOPED_TRACE(name);
    auto gpu = GpuCatalogue::embedded().find(name, "test");
    ASSERT_TRUE(gpu.ok()) << gpu.error().to_string();
    EXPECT_EQ(gpu_links(**gpu), links) << gpu_links_name(gpu_links(**gpu));
  }
}

}  // namespace
}  // namespace preflight
