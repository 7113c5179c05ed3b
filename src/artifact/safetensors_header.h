// The header of one safetensors shard: what tensors it holds, their dtypes and
// shapes, and where each one's bytes lie.
//
// Format (huggingface/safetensors README, "Format"):
//   - 8 bytes: N, an unsigned little-endian 64-bit integer, the size of the header;
//   - N bytes: a UTF-8 JSON object that MUST begin with '{' and MAY be padded at
//     the end with spaces: {"NAME": {"dtype": "F16", "shape": [1, 16, 256],
//     "data_offsets": [BEGIN, END]}, ..., "__metadata__": {"k": "v"}};
//     offsets are relative to the start of the byte buffer, END is one past;
//     __metadata__ is a string-to-string map; duplicate keys are disallowed;
//   - the rest of the file: the byte buffer, which must be entirely indexed
//     (no holes, no overlaps), so 8 + N + last END == the file size.
// The reference reader (safetensors/src/tensor.rs) also caps N at 100,000,000
// and checks END - BEGIN == product(shape) x dtype size; so does this one.
//
// Pure functions over bytes: the caller reads the first 8 bytes, then N more,
// and passes the file size when it knows it. Every problem is one Error naming
// the tensor and field ("/model.embed_tokens.weight/data_offsets").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/dtype.h"

namespace preflight {

// safetensors' MAX_HEADER_SIZE: a larger N is refused before anything is read.
inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

struct HeaderTensor {
  std::string name;
  Dtype dtype{};
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0, end = 0;  // data_offsets, relative to the byte buffer
  std::uint64_t bytes() const { return end - begin; }
};

struct SafetensorsHeader {
  std::uint64_t header_length = 0;              // N from the first 8 bytes (little-endian u64)
  std::vector<HeaderTensor> tensors;            // in offset order
  std::map<std::string, std::string> metadata;  // "__metadata__"

  // The byte buffer's size: where the last tensor ends (offsets are contiguous from 0).
  std::uint64_t payload_bytes() const;
  // 8 + N + payload; the parser refuses headers for which this overflows.
  std::uint64_t file_bytes() const { return 8 + header_length + payload_bytes(); }
};

// The first 8 bytes of a shard -> N. Errors: fewer than 8 bytes; N == 0;
// N > 100,000,000 (with a hint when the bytes look like text, e.g. a Git LFS pointer).
Result<std::uint64_t> parse_safetensors_header_length(std::string_view first_bytes, std::string_view origin);

// The JSON header (exactly N bytes, possibly space-padded). file_size: the
// shard's size when known, else 0 (then only the internal consistency is checked).
Result<SafetensorsHeader> parse_safetensors_header(std::string_view header_json, std::uint64_t header_length,
                                                   std::uint64_t file_size, std::string_view origin);
// The full JSON reader alone, without the fast path for the plain shape
// (plain_header_scan.h) that parse_safetensors_header tries first: what the
// fast path must agree with (tests, the differential fuzz target).
Result<SafetensorsHeader> parse_safetensors_header_full(std::string_view header_json, std::uint64_t header_length,
                                                        std::uint64_t file_size, std::string_view origin);

// Convenience: a whole in-memory prefix (8 bytes + header, possibly followed by
// payload bytes, which are ignored) -> header.
Result<SafetensorsHeader> parse_safetensors_prefix(std::string_view bytes, std::uint64_t file_size,
                                                   std::string_view origin);

}  // namespace preflight
