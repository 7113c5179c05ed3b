// safetensors shard headers: real-format prefixes built here (8-byte
// little-endian length + JSON), the byte arithmetic, and a table of bad inputs
// each with its exact one-line error.
#include "artifact/safetensors_header.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace preflight {
namespace {

std::string le64(std::uint64_t n) {
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out;
}

// A shard prefix as a writer lays it out: N, then exactly N header bytes.
std::string shard(std::string_view header_json) { return le64(header_json.size()) + std::string(header_json); }

// A one-tensor header {"w": ENTRY}.
std::string one(std::string_view entry) { return shard("{\"w\":" + std::string(entry) + "}"); }

TEST(SafetensorsHeader, ReadsTensorsInOffsetOrderWithMetadata) {
  // Key order is alphabetical in most writers; offset order is what the layout checks.
  const std::string json = R"({"__metadata__":{"format":"pt"},)"
                           R"("a.weight":{"dtype":"BF16","shape":[4],"data_offsets":[16,24]},)"
                           R"("b.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
  const std::string bytes = shard(json);
  const std::uint64_t file_size = 8 + json.size() + 24;
  auto header = parse_safetensors_prefix(bytes, file_size, "s.safetensors");
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  EXPECT_EQ(header->header_length, json.size());
  ASSERT_EQ(header->tensors.size(), 2u);
  EXPECT_EQ(header->tensors[0].name, "b.weight");
  EXPECT_EQ(header->tensors[0].dtype, Dtype::F32);
  EXPECT_EQ(header->tensors[0].shape, (std::vector<std::uint64_t>{2, 2}));
  EXPECT_EQ(header->tensors[0].bytes(), 16u);
  EXPECT_EQ(header->tensors[1].name, "a.weight");
  EXPECT_EQ(header->tensors[1].dtype, Dtype::BF16);
  EXPECT_EQ(header->tensors[1].begin, 16u);
  EXPECT_EQ(header->tensors[1].end, 24u);
  EXPECT_EQ(header->metadata.at("format"), "pt");
  EXPECT_EQ(header->payload_bytes(), 24u);
  EXPECT_EQ(header->file_bytes(), file_size);
}

TEST(SafetensorsHeader, ByteArithmeticOfARealisticShard) {
  // A Llama-3-8B-like first shard: embedding [128256, 4096] BF16, a norm, one
  // projection. Offsets are computed as a writer would, back to back from 0.
  struct T {
    const char* name;
    const char* dtype;
    std::uint64_t rows, cols, bytes_per;
  };
  const T tensors[] = {{"model.embed_tokens.weight", "BF16", 128256, 4096, 2},
                       {"model.layers.0.input_layernorm.weight", "BF16", 1, 4096, 2},
                       {"model.layers.0.mlp.down_proj.weight", "BF16", 4096, 14336, 2}};
  std::string json = R"({"__metadata__":{"format":"pt"})";
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    const std::uint64_t size = t.rows * t.cols * t.bytes_per;
    json += std::string(",\"") + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[" + std::to_string(t.rows) +
            "," + std::to_string(t.cols) + "],\"data_offsets\":[" + std::to_string(offset) + "," +
            std::to_string(offset + size) + "]}";
    offset += size;
  }
  json += "}";
  // Writers pad the header with spaces so the byte buffer starts 8-aligned.
  while ((8 + json.size()) % 8 != 0) json += ' ';
  const std::uint64_t payload = 1'050'673'152ULL + 8'192 + 117'440'512;  // 128256*4096*2 + ...
  ASSERT_EQ(offset, payload);
  const std::uint64_t file_size = 8 + json.size() + payload;

  auto header = parse_safetensors_prefix(shard(json), file_size, "model-00001-of-00004.safetensors");
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  EXPECT_EQ(header->header_length, json.size());
  EXPECT_EQ(header->header_length % 8, 0u);
  EXPECT_EQ(header->tensors.front().name, "model.embed_tokens.weight");
  EXPECT_EQ(header->tensors.front().bytes(), 1'050'673'152u);
  EXPECT_EQ(header->payload_bytes(), payload);
  EXPECT_EQ(header->file_bytes(), file_size);
  // Unknown file size: same header, only the internal consistency is checked.
  auto unsized = parse_safetensors_prefix(shard(json), 0, "x");
  ASSERT_TRUE(unsized.ok()) << unsized.error().to_string();
  EXPECT_EQ(unsized->file_bytes(), file_size);
}

TEST(SafetensorsHeader, EveryDtypeHasItsElementSize) {
  const struct {
    const char* name;
    Dtype dtype;
    std::uint64_t bytes;
  } rows[] = {{"BOOL", Dtype::BOOL, 1},       {"U8", Dtype::U8, 1},           {"I8", Dtype::I8, 1},
              {"F8_E4M3", Dtype::F8_E4M3, 1}, {"F8_E5M2", Dtype::F8_E5M2, 1}, {"I16", Dtype::I16, 2},
              {"F16", Dtype::F16, 2},         {"BF16", Dtype::BF16, 2},       {"I32", Dtype::I32, 4},
              {"F32", Dtype::F32, 4},         {"F64", Dtype::F64, 8},         {"I64", Dtype::I64, 8}};
  for (const auto& row : rows) {
    const std::uint64_t size = 3 * row.bytes;
    const std::string bytes = one(std::string(R"({"dtype":")") + row.name + R"(","shape":[3],"data_offsets":[0,)" +
                                  std::to_string(size) + "]}");
    auto header = parse_safetensors_prefix(bytes, bytes.size() + size, "s");
    ASSERT_TRUE(header.ok()) << row.name << ": " << header.error().to_string();
    EXPECT_EQ(header->tensors[0].dtype, row.dtype) << row.name;
    EXPECT_EQ(header->payload_bytes(), size) << row.name;
  }
}

TEST(SafetensorsHeader, ScalarsEmptyTensorsAndEmptyHeaders) {
  // The README allows 0-rank tensors (a scalar) and tensors with a 0 dimension
  // (no bytes, still in the header).
  const std::string json = R"({"empty":{"dtype":"F32","shape":[0,4],"data_offsets":[4,4]},)"
                           R"("scalar":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})";
  auto header = parse_safetensors_prefix(shard(json), 8 + json.size() + 4, "s");
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  ASSERT_EQ(header->tensors.size(), 2u);
  EXPECT_EQ(header->tensors[0].name, "scalar");
  EXPECT_EQ(header->tensors[1].name, "empty");
  EXPECT_EQ(header->tensors[1].bytes(), 0u);

  auto nothing = parse_safetensors_prefix(shard("{}"), 10, "s");
  ASSERT_TRUE(nothing.ok()) << nothing.error().to_string();
  EXPECT_TRUE(nothing->tensors.empty());
  EXPECT_EQ(nothing->payload_bytes(), 0u);
  EXPECT_EQ(nothing->file_bytes(), 10u);
}

TEST(SafetensorsHeader, LengthPrefixAndSplitReads) {
  auto n = parse_safetensors_header_length(le64(1234) + "ignored", "s");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1234u);
  auto limit = parse_safetensors_header_length(le64(100'000'000), "s");
  ASSERT_TRUE(limit.ok());
  EXPECT_EQ(*limit, kSafetensorsMaxHeaderBytes);

  // The CLI reads 8 bytes, then N: the two-step API gives the same header.
  const std::string json = R"({"w":{"dtype":"U8","shape":[5],"data_offsets":[0,5]}}  )";
  auto header = parse_safetensors_header(json, json.size(), 8 + json.size() + 5, "s");
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  EXPECT_EQ(header->file_bytes(), 8 + json.size() + 5);

  // A prefix may run on into the payload; those bytes are not looked at.
  auto prefix = parse_safetensors_prefix(shard(json) + "\x01\x02\x03\x04\x05", 0, "s");
  ASSERT_TRUE(prefix.ok()) << prefix.error().to_string();
  EXPECT_EQ(prefix->tensors[0].bytes(), 5u);
}

struct BadShard {
  std::string label;
  std::string bytes;
  std::uint64_t file_size;
  std::string error;
};

TEST(SafetensorsBadInput, EachProblemIsOneLocatedLine) {
  const std::string f32_2x2 = R"({"dtype":"F32","shape":[2,2],"data_offsets":[0,16]})";
  const std::string two_gap = R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                              R"("b":{"dtype":"F32","shape":[4],"data_offsets":[20,36]}})";
  const std::string two_overlap = R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                                  R"("b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})";
  const std::string inside = R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                             R"("z":{"dtype":"F32","shape":[0],"data_offsets":[8,8]}})";
  const std::string sized = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
  const std::string n = std::to_string(sized.size());
  const std::uint64_t sized_file = 8 + sized.size() + 16;
  const std::string supported = "BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64";

  const std::vector<BadShard> cases = {
      {"empty file", "", 0, "s.safetensors: header length: expected 8 bytes (a little-endian u64), got 0"},
      {"truncated length prefix", std::string("\x10\x00\x00", 3), 0,
       "s.safetensors: header length: expected 8 bytes (a little-endian u64), got 3"},
      {"N = 0", le64(0) + "{}", 0,
       "s.safetensors: header length: 0; the header is a JSON object, at least 2 bytes (\"{}\")"},
      {"huge N", le64(100'000'001) + "{}", 0,
       "s.safetensors: header length: 100000001 exceeds the 100000000-byte limit of the safetensors "
       "format; first 8 bytes 01 e1 f5 05 00 00 00 00: not a safetensors shard?"},
      {"Git LFS pointer", "version https://git-lfs.github.com/spec/v1\noid sha256:abc\n", 0,
       "s.safetensors: header length: 2336927755350992246 exceeds the 100000000-byte limit of the "
       "safetensors format; the file starts with the text \"version \": a Git LFS pointer or another "
       "text file, not a safetensors shard"},
      {"N past the end of the file", le64(100) + "{}", 50,
       "s.safetensors: header length: 100 bytes after the 8-byte prefix run past the end of the "
       "50-byte file"},
      {"prefix shorter than N", le64(100) + "{}", 0,
       "s.safetensors: header: the length prefix says 100 bytes, but only 2 follow it"},
      {"header starts with a space", shard(" {}"), 0,
       "s.safetensors: header: must begin with '{' (0x7B), got ' ' (0x20)"},
      {"header is an array", shard("[]"), 0, "s.safetensors: header: must begin with '{' (0x7B), got '[' (0x5B)"},
      {"header starts with a NUL", shard(std::string("\0{}", 3)), 0,
       "s.safetensors: header: must begin with '{' (0x7B), got 0x00"},
      {"header not JSON", shard("{not json}"), 0,
       "s.safetensors: header: invalid JSON: parse error at line 1, column 3: syntax error while "
       "parsing object key - invalid literal; last read: '{no'; expected string literal"},
      {"header cut short", shard(R"({"w":)"), 0,
       "s.safetensors: header: invalid JSON: parse error at line 1, column 6: syntax error while "
       "parsing value - unexpected end of input; expected '[', '{', or a literal"},
      {"NUL padding", shard(std::string("{}\0\0", 4)), 0, "s.safetensors: header: invalid JSON: NUL byte at offset 2"},
      {"trailing garbage", shard("{} x"), 0,
       "s.safetensors: header: invalid JSON: parse error at line 1, column 4: syntax error while "
       "parsing value - invalid literal; last read: '{} x'; expected end of input"},
      {"ill-formed UTF-8", shard("{\"w\xff\":1}"), 0,
       "s.safetensors: header: invalid JSON: parse error at line 1, column 4: syntax error while "
       "parsing object key - invalid string: ill-formed UTF-8 byte; last read: '\"w\\xff'; expected "
       "string literal"},
      {"nested too deep", shard("{\"w\":" + std::string(600, '[')), 0,
       "s.safetensors: header: invalid JSON: nested deeper than 512 levels"},
      {"duplicate tensor", shard("{\"w\":" + f32_2x2 + ",\"w\":" + f32_2x2 + "}"), 0,
       "s.safetensors: /w: duplicate key (a second value would silently replace the first)"},
      {"duplicate field in an entry", one(R"({"dtype":"F32","dtype":"BF16"})"), 0,
       "s.safetensors: /w/dtype: duplicate key (a second value would silently replace the first)"},
      {"entry not an object", one("5"), 0,
       "s.safetensors: /w: expected an object with dtype, shape and data_offsets, got 5"},
      {"tensor without dtype", one(R"({"shape":[1],"data_offsets":[0,4]})"), 0, "s.safetensors: /w/dtype: missing"},
      {"dtype not a string", one(R"({"dtype":16,"shape":[1],"data_offsets":[0,2]})"), 0,
       "s.safetensors: /w/dtype: expected a dtype name such as \"BF16\", got 16"},
      {"unknown dtype", one(R"({"dtype":"FP16","shape":[1],"data_offsets":[0,2]})"), 0,
       "s.safetensors: /w/dtype: \"FP16\" is not a safetensors dtype (preflight reads " + supported + ")"},
      {"lower-case dtype", one(R"({"dtype":"bf16","shape":[1],"data_offsets":[0,2]})"), 0,
       "s.safetensors: /w/dtype: \"bf16\" is not a safetensors dtype (preflight reads " + supported + ")"},
      {"format dtype preflight lacks", one(R"({"dtype":"C64","shape":[1],"data_offsets":[0,8]})"), 0,
       "s.safetensors: /w/dtype: \"C64\" is a safetensors dtype preflight does not support yet "
       "(preflight reads " +
           supported + ")"},
      {"tensor name needing escapes", shard(R"({"a/b~c":{"dtype":"X","shape":[1],"data_offsets":[0,1]}})"), 0,
       "s.safetensors: /a~1b~0c/dtype: \"X\" is not a safetensors dtype (preflight reads " + supported + ")"},
      {"tensor name with a newline", shard(R"({"a\nb":{"shape":[1],"data_offsets":[0,1]}})"), 0,
       "s.safetensors: /a\\u000ab/dtype: missing"},
      {"missing shape", one(R"({"dtype":"F32","data_offsets":[0,4]})"), 0, "s.safetensors: /w/shape: missing"},
      {"shape not an array", one(R"({"dtype":"F32","shape":4,"data_offsets":[0,16]})"), 0,
       "s.safetensors: /w/shape: expected an array of non-negative integers, got 4"},
      {"negative dimension", one(R"({"dtype":"F32","shape":[2,-3],"data_offsets":[0,24]})"), 0,
       "s.safetensors: /w/shape/1: expected a non-negative integer, got -3"},
      {"fractional dimension", one(R"({"dtype":"F32","shape":[2.5],"data_offsets":[0,10]})"), 0,
       "s.safetensors: /w/shape/0: expected a non-negative integer, got 2.5"},
      {"integral float dimension", one(R"({"dtype":"F32","shape":[4.0],"data_offsets":[0,16]})"), 0,
       "s.safetensors: /w/shape/0: expected a non-negative integer, got 4.0"},
      {"dimension as a string", one(R"({"dtype":"F32","shape":["4"],"data_offsets":[0,16]})"), 0,
       "s.safetensors: /w/shape/0: expected a non-negative integer, got \"4\""},
      {"dimension past 2^64", one(R"({"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]})"), 0,
       "s.safetensors: /w/shape/0: expected a non-negative integer, got 1.8446744073709552e+19"},
      {"missing data_offsets", one(R"({"dtype":"F32","shape":[1]})"), 0, "s.safetensors: /w/data_offsets: missing"},
      {"data_offsets not an array", one(R"({"dtype":"F32","shape":[1],"data_offsets":"0-4"})"), 0,
       "s.safetensors: /w/data_offsets: expected [BEGIN, END], got \"0-4\""},
      {"data_offsets with one number", one(R"({"dtype":"F32","shape":[1],"data_offsets":[4]})"), 0,
       "s.safetensors: /w/data_offsets: expected [BEGIN, END], got [4]"},
      {"data_offsets with three numbers", one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4,8]})"), 0,
       "s.safetensors: /w/data_offsets: expected [BEGIN, END], got [0,4,8]"},
      {"negative offset", one(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,0]})"), 0,
       "s.safetensors: /w/data_offsets/0: expected a non-negative integer, got -4"},
      {"BEGIN after END", one(R"({"dtype":"F32","shape":[1],"data_offsets":[8,4]})"), 0,
       "s.safetensors: /w/data_offsets: BEGIN 8 is after END 4"},
      {"size does not match the shape",
       shard(R"({"model.embed_tokens.weight":{"dtype":"BF16","shape":[128,4096],"data_offsets":[0,1048575]}})"), 0,
       "s.safetensors: /model.embed_tokens.weight/data_offsets: [0, 1048575] is 1048575 bytes, but "
       "shape [128, 4096] of BF16 needs 1048576 (524288 elements x 2 bytes)"},
      {"element count past 2^64", one(R"({"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]})"), 0,
       "s.safetensors: /w/shape: [4294967296, 4294967296] has more than 2^64 elements"},
      {"byte count past 2^64", one(R"({"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,0]})"), 0,
       "s.safetensors: /w/shape: [4611686018427387904] of F32 is more than 2^64 bytes"},
      {"hole before the first tensor", one(R"({"dtype":"F32","shape":[1],"data_offsets":[8,12]})"), 0,
       "s.safetensors: /w/data_offsets: begins at 8, but the byte buffer starts at 0, leaving 8 "
       "bytes unindexed (safetensors requires the byte buffer to be fully indexed)"},
      {"hole between tensors", shard(two_gap), 0,
       "s.safetensors: /b/data_offsets: begins at 20, but \"a\" ends at 16, leaving 4 bytes "
       "unindexed (safetensors requires the byte buffer to be fully indexed)"},
      {"overlapping tensors", shard(two_overlap), 0, "s.safetensors: /b/data_offsets: [8, 24] overlaps \"a\" [0, 16]"},
      {"empty tensor inside another", shard(inside), 0,
       "s.safetensors: /z/data_offsets: [8, 8] overlaps \"a\" [0, 16]"},
      {"file longer than the header says", shard(sized), sized_file + 100,
       "s.safetensors: payload: the file should be 8 + " + n + " + 16 = " + std::to_string(sized_file) +
           " bytes, but it is " + std::to_string(sized_file + 100) +
           " (100 bytes at the end are not indexed by any tensor)"},
      {"file shorter than the header says", shard(sized), sized_file - 1,
       "s.safetensors: payload: the file should be 8 + " + n + " + 16 = " + std::to_string(sized_file) +
           " bytes, but it is " + std::to_string(sized_file - 1) + " (truncated download?)"},
      {"payload past 2^64",
       one(R"({"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,18446744073709551615]})"), 0,
       "s.safetensors: payload: the tensors end at byte 18446744073709551615 of the byte buffer; "
       "with the 8 + 91 header bytes the file would exceed 2^64 bytes"},
      {"metadata not an object", shard(R"({"__metadata__":["pt"]})"), 0,
       "s.safetensors: /__metadata__: expected an object of string values, got [\"pt\"]"},
      {"metadata value not a string", shard(R"({"__metadata__":{"format":"pt","step":100}})"), 0,
       "s.safetensors: /__metadata__/step: expected a string (metadata values are strings), got 100"},
  };
  ASSERT_GE(cases.size(), 45u);
  for (const auto& c : cases) {
    auto result = parse_safetensors_prefix(c.bytes, c.file_size, "s.safetensors");
    ASSERT_FALSE(result.ok()) << c.label;
    EXPECT_EQ(result.error().to_string(), c.error) << c.label;
    EXPECT_EQ(result.error().to_string().find('\n'), std::string::npos) << c.label;
  }
}

TEST(SafetensorsBadInput, TwoStepReadErrors) {
  EXPECT_EQ(parse_safetensors_header("{}", 4, 0, "s").error().to_string(),
            "s: header: got 2 bytes, but the length prefix says 4 (truncated file?)");
  EXPECT_EQ(parse_safetensors_header("{}", 0, 0, "s").error().to_string(),
            "s: header length: 0; the header is a JSON object, at least 2 bytes (\"{}\")");
  EXPECT_EQ(parse_safetensors_header("{}", 200'000'000, 0, "s").error().to_string(),
            "s: header length: 200000000 exceeds the 100000000-byte limit of the safetensors format");
  EXPECT_EQ(parse_safetensors_header("{}", 2, 9, "s").error().to_string(),
            "s: header length: 2 bytes after the 8-byte prefix run past the end of the 9-byte file");
}

}  // namespace
}  // namespace preflight
