// The shard-header fast path: which headers it scans and which it leaves to the
// full reader, and that parse_safetensors_header (fast path first) gives exactly
// what the full reader gives: on a table of edge cases, on every fuzz seed, and
// on a header of every DeepSeek-V3 tensor as a writer lays it out
// (fuzz/safetensors_header_fuzz.cc checks the same on any bytes).
#include "artifact/plain_header_scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "artifact/safetensors_header.h"
#include "model/model_catalogue.h"
#include "reference_files.h"

namespace preflight {
namespace {

void expect_same_as_full(const std::string& json, const std::string& what) {
  const auto fast = parse_safetensors_header(json, json.size(), 0, "s.safetensors");
  const auto full = parse_safetensors_header_full(json, json.size(), 0, "s.safetensors");
  ASSERT_EQ(fast.ok(), full.ok()) << what;
  if (!fast.ok()) {
    EXPECT_EQ(fast.error().to_string(), full.error().to_string()) << what;
    return;
  }
  EXPECT_EQ(fast->metadata, full->metadata) << what;
  ASSERT_EQ(fast->tensors.size(), full->tensors.size()) << what;
  for (std::size_t i = 0; i < fast->tensors.size(); ++i) {
    const auto& a = fast->tensors[i];
    const auto& b = full->tensors[i];
    EXPECT_EQ(a.name, b.name) << what;
    EXPECT_EQ(a.dtype, b.dtype) << what;
    EXPECT_EQ(a.shape, b.shape) << what;
    EXPECT_EQ(a.begin, b.begin) << what;
    EXPECT_EQ(a.end, b.end) << what;
  }
}

TEST(PlainHeaderScan, ScansThePlainShapeAndDeclinesTheRest) {
  struct Case {
    const char* what;
    std::string json;
    bool scanned;
  };
  const std::vector<Case> cases = {
      {"writer's shape, padded",
       R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
       R"("a":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}}    )",
       true},
      {"keys in another order", R"({"w":{"data_offsets":[0,4],"shape":[],"dtype":"F32"}})", true},
      {"empty header", "{}", true},
      {"empty metadata", R"({"__metadata__":{}})", true},
      {"an unknown key in an entry", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", false},
      {"a repeated key in an entry", R"({"w":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}})", false},
      {"a missing key", R"({"w":{"dtype":"F32","shape":[1]}})", false},
      {"a leading zero", R"({"w":{"dtype":"F32","shape":[01],"data_offsets":[0,4]}})", false},
      {"a fraction", R"({"w":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", false},
      {"an exponent", R"({"w":{"dtype":"F32","shape":[1e0],"data_offsets":[0,4]}})", false},
      {"a negative", R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", false},
      {"past 2^64", R"({"w":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,4]}})", false},
      {"an escape in a name", R"({"\u0077":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", false},
      {"metadata value not a string", R"({"__metadata__":{"step":1}})", false},
      {"two metadata objects", R"({"__metadata__":{},"__metadata__":{}})", false},
      {"text after the object", R"({} x)", false},
      // Scanned, then refused by the same checks as the full reader (and so worded by it):
      {"a repeated tensor",
       R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
       true},
      {"an unknown dtype", R"({"w":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}})", true},
      {"offsets not two", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}})", true},
      {"size mismatch", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", true},
      {"a hole",
       R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
       true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(scan_plain_header(c.json).has_value(), c.scanned) << c.what;
    expect_same_as_full(c.json, c.what);
  }
}

// Every seed of the header fuzz target, read as the CLI reads a shard: 8 bytes, then N.
TEST(PlainHeaderScan, EveryFuzzSeedReadsAsTheFullReaderReadsIt) {
  namespace fs = std::filesystem;
  std::size_t seeds = 0;
  for (const auto& entry :
       fs::directory_iterator(fs::path(PREFLIGHT_SOURCE_DIR) / "fuzz" / "corpus" / "safetensors_header")) {
    const std::string bytes = testing::read_file(entry.path().string());
    ++seeds;
    auto n = parse_safetensors_header_length(bytes, "s.safetensors");
    if (!n || bytes.size() - 8 < *n) continue;
    const std::string json = bytes.substr(8, *n);
    expect_same_as_full(json, entry.path().string());
  }
  EXPECT_GE(seeds, 8u);
}

// The safetensors name of a dtype (the inverse of dtype_from_safetensors).
std::string safetensors_name(Dtype d) {
  for (const char* name : {"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16", "I32", "U32", "F32",
                           "F64", "I64", "U64"})
    if (dtype_from_safetensors(name) == d) return name;
  return "?";
}

// Every DeepSeek-V3 tensor (its 91,991 stored names) in one header, as a writer lays it out.
TEST(PlainHeaderScan, AWholeModelsTensorsInOneHeader) {
  const auto model = load_catalogue_model("deepseek-v3", "test").value_or_throw();
  std::string json = R"({"__metadata__":{"format":"pt"})";
  std::uint64_t offset = 0;
  std::size_t count = 0;
  for (const auto& t : model.manifest.tensors) {
    const std::uint32_t instances = t.name.find("{E}") == std::string::npos ? 1 : t.instances;
    for (std::uint32_t k = 0; k < instances; ++k) {
      std::string name = t.name;
      if (const auto at = name.find("{E}"); at != std::string::npos)
        name.replace(at, 3, std::to_string(t.first_instance + k));
      std::string shape;
      std::uint64_t elements = 1;
      for (const auto d : t.shape) {
        shape += (shape.empty() ? "" : ",") + std::to_string(d);
        elements *= d;
      }
      const std::uint64_t bytes = elements * dtype_bits(t.dtype) / 8;
      json += ",\"" + name + "\":{\"dtype\":\"" + safetensors_name(t.dtype) + "\",\"shape\":[" + shape +
              "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
      offset += bytes;
      ++count;
    }
  }
  json += "}";
  ASSERT_GT(count, 90000u);
  ASSERT_TRUE(scan_plain_header(json).has_value());
  expect_same_as_full(json, "deepseek-v3");
  EXPECT_EQ(parse_safetensors_header(json, json.size(), 0, "s")->payload_bytes(), offset);
}

}  // namespace
}  // namespace preflight
