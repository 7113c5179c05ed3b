// Hub model listings: a hand-written fixture shaped like
// GET https://huggingface.co/api/models/ORG/NAME?blobs=true (the names, digests
// and sizes are made up), a listing saved without ?blobs=true, and a table of
// bad inputs each with its exact one-line error.
#include "artifact/hub_listing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight {
namespace {

constexpr const char* kListing = R"({
  "_id": "66a0c1d2e3f4a5b6c7d8e9f0",
  "id": "example-org/example-8b-instruct",
  "modelId": "example-org/example-8b-instruct",
  "author": "example-org",
  "sha": "0123456789abcdef0123456789abcdef01234567",
  "lastModified": "2024-09-25T17:00:57.000Z",
  "private": false,
  "gated": "manual",
  "disabled": false,
  "downloads": 1234567,
  "likes": 4321,
  "library_name": "transformers",
  "tags": ["transformers", "safetensors", "llama", "text-generation", "conversational",
           "en", "license:other", "region:us"],
  "pipeline_tag": "text-generation",
  "createdAt": "2024-07-18T08:56:00.000Z",
  "cardData": {"language": ["en"], "license": "llama3.1", "pipeline_tag": "text-generation",
               "tags": ["llama-3"]},
  "config": {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
             "tokenizer_config": {"bos_token": "<|begin_of_text|>"}},
  "transformersInfo": {"auto_model": "AutoModelForCausalLM", "pipeline_tag": "text-generation",
                       "processor": "AutoTokenizer"},
  "siblings": [
    {"rfilename": ".gitattributes", "blobId": "a6344aac8c09253b3b630fb776ae94478aa0275b", "size": 1519},
    {"rfilename": "README.md", "blobId": "0d4b3b1b2c5f6e7a8b9c0d1e2f3a4b5c6d7e8f90", "size": 44040},
    {"rfilename": "config.json", "blobId": "1e2d3c4b5a69788796a5b4c3d2e1f00112233445", "size": 855},
    {"rfilename": "generation_config.json", "blobId": "2f3e4d5c6b7a8998a7b6c5d4e3f2011223344556", "size": 184},
    {"rfilename": "model-00001-of-00004.safetensors", "blobId": "3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b",
     "size": 4976698672,
     "lfs": {"sha256": "2b1879f356aed350030bb40eb45ad362c89d9891096f79a3ab323d3ba5607668",
             "size": 4976698672, "pointerSize": 135}},
    {"rfilename": "model-00002-of-00004.safetensors", "blobId": "4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c",
     "size": 4999802720,
     "lfs": {"sha256": "09d433f650646834a83c580877bd60c6d1f88f7755305c12576b5c7058f9af15",
             "size": 4999802720, "pointerSize": 135}},
    {"rfilename": "model-00003-of-00004.safetensors", "blobId": "5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d",
     "size": 4915916176,
     "lfs": {"sha256": "fc1cdddd6bfa91128d6e94ee73d0ce62bfcdb7af29e978ddcab30c66ae9ea7fa",
             "size": 4915916176, "pointerSize": 135}},
    {"rfilename": "model-00004-of-00004.safetensors", "blobId": "6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e",
     "size": 1168138808,
     "lfs": {"sha256": "92ecfe1a2414458b4821ac8c13cf8cb70aed66b5eea8dc5ad9eeb4ff309d6d7b",
             "size": 1168138808, "pointerSize": 135}},
    {"rfilename": "model.safetensors.index.json", "blobId": "7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f", "size": 23950}
  ],
  "spaces": ["example-org/chat"],
  "safetensors": {"parameters": {"BF16": 8030261248}, "total": 8030261248},
  "usedStorage": 32121201526
})";

TEST(HubListing, ShardCountAndBytesFromSiblings) {
  auto listing = parse_hub_listing(kListing, "listing.json");
  ASSERT_TRUE(listing.ok()) << listing.error().to_string();
  EXPECT_EQ(listing->id, "example-org/example-8b-instruct");
  EXPECT_EQ(listing->sha, "0123456789abcdef0123456789abcdef01234567");
  ASSERT_EQ(listing->siblings.size(), 9u);
  EXPECT_EQ(listing->shard_count(), 4u);
  // 4,976,698,672 + 4,999,802,720 + 4,915,916,176 + 1,168,138,808
  EXPECT_EQ(listing->shard_bytes(), 16'060'556'376u);
  // plus .gitattributes, README.md, config.json, generation_config.json and the index
  EXPECT_EQ(listing->file_bytes(), 16'060'556'376u + 1519 + 44040 + 855 + 184 + 23950);
  EXPECT_EQ(listing->parameters_by_dtype.at("BF16"), 8'030'261'248u);
  EXPECT_EQ(listing->parameters_total, 8'030'261'248u);
  EXPECT_EQ(listing->used_storage, std::optional<std::uint64_t>(32'121'201'526u));
  EXPECT_EQ(listing->license, "llama3.1");  // cardData wins over the tag
  const HubFile& shard = listing->siblings[4];
  EXPECT_EQ(shard.path, "model-00001-of-00004.safetensors");
  EXPECT_TRUE(shard.has_size);
  EXPECT_EQ(shard.lfs_sha256, "2b1879f356aed350030bb40eb45ad362c89d9891096f79a3ab323d3ba5607668");
  EXPECT_TRUE(listing->siblings[2].lfs_sha256.empty());
}

TEST(HubListing, WithoutBlobsSizesAreUnknownNotZero) {
  // GET /api/models/ORG/NAME without ?blobs=true: file names only.
  auto listing = parse_hub_listing(R"({
      "id": "example-org/tiny", "sha": null,
      "tags": ["safetensors", "license:apache-2.0"],
      "siblings": [{"rfilename": "config.json"},
                   {"rfilename": "model.safetensors", "size": null, "lfs": null}],
      "safetensors": null, "usedStorage": null})",
                                   "listing.json");
  ASSERT_TRUE(listing.ok()) << listing.error().to_string();
  EXPECT_TRUE(listing->sha.empty());
  EXPECT_EQ(listing->shard_count(), 1u);
  EXPECT_EQ(listing->shard_bytes(), 0u);
  EXPECT_FALSE(listing->siblings[1].has_size);
  EXPECT_EQ(listing->parameters_total, 0u);
  EXPECT_FALSE(listing->used_storage.has_value());
  EXPECT_EQ(listing->license, "apache-2.0");
}

TEST(HubListing, LfsSizeStandsInForAMissingSize) {
  auto listing = parse_hub_listing(
      R"({"id": "o/n", "siblings": [{"rfilename": "model.safetensors",
          "lfs": {"sha256": "2b1879f356aed350030bb40eb45ad362c89d9891096f79a3ab323d3ba5607668",
                  "size": 1000, "pointerSize": 132}}],
          "cardData": {"license": ["mit"]}})",
      "listing.json");
  ASSERT_TRUE(listing.ok()) << listing.error().to_string();
  EXPECT_TRUE(listing->siblings[0].has_size);
  EXPECT_EQ(listing->shard_bytes(), 1000u);
  EXPECT_EQ(listing->license, "");  // a non-string cardData.license is ignored, no tag either
}

struct BadListing {
  const char* label;
  std::string text;
  const char* error;
};

TEST(HubListingBadInput, EachProblemIsOneLocatedLine) {
  const std::string sha64 = "2b1879f356aed350030bb40eb45ad362c89d9891096f79a3ab323d3ba5607668";
  const std::vector<BadListing> cases = {
      {"not JSON", "<!DOCTYPE html><html>",
       "listing.json: invalid JSON: parse error at line 1, column 1: syntax error while parsing "
       "value - invalid literal; last read: '<'"},
      {"not an object", "[{\"id\": \"o/n\"}]",
       "listing.json: expected a JSON object (a saved "
       "https://huggingface.co/api/models/ORG/NAME?blobs=true), got [{\"id\":\"o/n\"}]"},
      {"error payload", R"({"error": "Repository not found"})",
       "listing.json: /id: missing; a listing names its repository (\"org/name\")"},
      {"id not a string", R"({"id": 5, "siblings": []})",
       "listing.json: /id: expected a repository id such as \"org/name\", got 5"},
      {"id empty", R"({"id": "", "siblings": []})",
       "listing.json: /id: expected a repository id such as \"org/name\", got \"\""},
      {"sha a branch name", R"({"id": "o/n", "sha": "main", "siblings": []})",
       "listing.json: /sha: expected a commit (40 lower-case hex digits), got \"main\""},
      {"sha upper case", R"({"id": "o/n", "sha": "0123456789ABCDEF0123456789ABCDEF01234567", "siblings": []})",
       "listing.json: /sha: expected a commit (40 lower-case hex digits), got "
       "\"0123456789ABCDEF0123456789ABCDEF01234567\""},
      {"siblings missing", R"({"id": "o/n"})",
       "listing.json: /siblings: missing; expected the repository's files (save the listing with "
       "?blobs=true to get their sizes)"},
      {"siblings not an array", R"({"id": "o/n", "siblings": {"rfilename": "x"}})",
       "listing.json: /siblings: expected an array of files, got {\"rfilename\":\"x\"}"},
      {"sibling not an object", R"({"id": "o/n", "siblings": ["config.json"]})",
       "listing.json: /siblings/0: expected an object with \"rfilename\", got \"config.json\""},
      {"sibling without rfilename", R"({"id": "o/n", "siblings": [{"size": 5}]})",
       "listing.json: /siblings/0/rfilename: missing"},
      {"rfilename not a string", R"({"id": "o/n", "siblings": [{"rfilename": ["a"]}]})",
       "listing.json: /siblings/0/rfilename: expected a file path, got [\"a\"]"},
      {"rfilename leaves the repository",
       R"({"id": "o/n", "siblings": [{"rfilename": "a"}, {"rfilename": "x/../../etc/passwd"}]})",
       "listing.json: /siblings/1/rfilename: file path \"x/../../etc/passwd\" has a \"..\" "
       "component; expected a path inside the repository"},
      {"rfilename with a control character", R"({"id": "o/n", "siblings": [{"rfilename": "a\tb"}]})",
       "listing.json: /siblings/0/rfilename: file path \"a\\tb\" contains a control character; "
       "expected a path inside the repository"},
      {"size negative", R"({"id": "o/n", "siblings": [{"rfilename": "a", "size": -1}]})",
       "listing.json: /siblings/0/size: expected a size in bytes (a non-negative integer), got -1"},
      {"size a string", R"({"id": "o/n", "siblings": [{"rfilename": "a", "size": "4.98 GB"}]})",
       "listing.json: /siblings/0/size: expected a size in bytes (a non-negative integer), got "
       "\"4.98 GB\""},
      {"size fractional", R"({"id": "o/n", "siblings": [{"rfilename": "a", "size": 12.5}]})",
       "listing.json: /siblings/0/size: expected a size in bytes (a non-negative integer), got 12.5"},
      {"duplicate file", R"({"id": "o/n", "siblings": [{"rfilename": "a"}, {"rfilename": "b"}, {"rfilename": "a"}]})",
       "listing.json: /siblings/2/rfilename: \"a\" is listed twice (first at /siblings/0)"},
      {"duplicate key in a sibling", R"({"id": "o/n", "siblings": [{"rfilename": "a", "size": 1, "size": 2}]})",
       "listing.json: /siblings/0/size: duplicate key (a second value would silently replace the first)"},
      {"duplicate key deep in lfs",
       R"({"id": "o/n", "siblings": [{"rfilename": "a"}, {"rfilename": "b", "lfs": {"size": 1, "size": 1}}]})",
       "listing.json: /siblings/1/lfs/size: duplicate key (a second value would silently replace the first)"},
      {"lfs not an object", R"({"id": "o/n", "siblings": [{"rfilename": "a", "lfs": true}]})",
       "listing.json: /siblings/0/lfs: expected an object with sha256 and size, got true"},
      {"lfs without sha256", R"({"id": "o/n", "siblings": [{"rfilename": "a", "lfs": {"size": 3}}]})",
       "listing.json: /siblings/0/lfs/sha256: missing"},
      {"lfs sha256 too short", R"({"id": "o/n", "siblings": [{"rfilename": "a", "lfs": {"sha256": "abc"}}]})",
       "listing.json: /siblings/0/lfs/sha256: expected 64 lower-case hex digits, got \"abc\""},
      {"lfs size negative",
       R"({"id": "o/n", "siblings": [{"rfilename": "a", "lfs": {"sha256": ")" + sha64 + R"(", "size": -3}}]})",
       "listing.json: /siblings/0/lfs/size: expected a size in bytes (a non-negative integer), got -3"},
      {"lfs size disagrees",
       R"({"id": "o/n", "siblings": [{"rfilename": "a", "size": 10, "lfs": {"sha256": ")" + sha64 +
           R"(", "size": 11}}]})",
       "listing.json: /siblings/0/lfs/size: 11 disagrees with /siblings/0/size 10"},
      {"sizes add up past 2^64",
       R"({"id": "o/n", "siblings": [{"rfilename": "a", "size": 9223372036854775808},
                                     {"rfilename": "b", "size": 9223372036854775808}]})",
       "listing.json: /siblings/1/size: the file sizes add up to more than 2^64 bytes"},
      {"safetensors not an object", R"({"id": "o/n", "siblings": [], "safetensors": 8030261248})",
       "listing.json: /safetensors: expected an object with parameters and total, got 8030261248"},
      {"safetensors without parameters", R"({"id": "o/n", "siblings": [], "safetensors": {"total": 1}})",
       "listing.json: /safetensors/parameters: missing"},
      {"parameters not an object", R"({"id": "o/n", "siblings": [], "safetensors": {"parameters": [1], "total": 1}})",
       "listing.json: /safetensors/parameters: expected an object of dtype -> parameter count, got [1]"},
      {"parameter count negative",
       R"({"id": "o/n", "siblings": [], "safetensors": {"parameters": {"BF16": -1}, "total": 1}})",
       "listing.json: /safetensors/parameters/BF16: expected a parameter count (a non-negative "
       "integer), got -1"},
      {"safetensors without total", R"({"id": "o/n", "siblings": [], "safetensors": {"parameters": {"BF16": 1}}})",
       "listing.json: /safetensors/total: missing"},
      {"total a string", R"({"id": "o/n", "siblings": [], "safetensors": {"parameters": {"BF16": 1}, "total": "1"}})",
       "listing.json: /safetensors/total: expected a parameter count (a non-negative integer), got \"1\""},
      {"usedStorage negative", R"({"id": "o/n", "siblings": [], "usedStorage": -10})",
       "listing.json: /usedStorage: expected a size in bytes (a non-negative integer), got -10"},
  };
  ASSERT_GE(cases.size(), 30u);
  for (const auto& c : cases) {
    auto result = parse_hub_listing(c.text, "listing.json");
    ASSERT_FALSE(result.ok()) << c.label;
    EXPECT_EQ(result.error().to_string(), c.error) << c.label;
    EXPECT_EQ(result.error().to_string().find('\n'), std::string::npos) << c.label;
  }
}

}  // namespace
}  // namespace preflight
