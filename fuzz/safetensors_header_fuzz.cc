// libFuzzer target for the safetensors shard header reader
// (src/artifact/safetensors_header.h).
//
// The CLI feeds the first bytes of any file the user names into these
// functions, so they must never crash, hang or throw: every problem is one
// Error on one line. For every header that is accepted the target checks what
// the planners rely on: tensors in offset order covering the byte buffer from
// 0 with no hole or overlap, each tensor's bytes equal to its shape times its
// dtype size, and the file size adding up. A violation aborts (a crash report).
// Differential: the fast path for the plain shape (plain_header_scan.h) must
// give exactly what the full reader gives, the same header or the same error.
// Seed corpus: fuzz/corpus/safetensors_header/ (real-format prefixes).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "artifact/safetensors_header.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void check_error(const preflight::Error& error) {
  const std::string line = error.to_string();
  check(!error.message.empty());
  check(line.find('\n') == std::string::npos && line.find('\r') == std::string::npos);
}

void check_header(const preflight::SafetensorsHeader& header, std::uint64_t file_size) {
  check(header.header_length > 0 && header.header_length <= preflight::kSafetensorsMaxHeaderBytes);
  std::uint64_t covered = 0;
  for (const auto& t : header.tensors) {
    check(t.begin == covered && t.begin <= t.end);
    std::uint64_t elements = 1;
    for (std::uint64_t d : t.shape) elements *= d;  // cannot overflow: the reader checked
    check(t.bytes() == elements * (preflight::dtype_bits(t.dtype) / 8));
    covered = t.end;
  }
  check(header.payload_bytes() == covered);
  if (file_size != 0) check(header.file_bytes() == file_size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  // The input as the start of a file of unknown size, then as a whole file.
  for (std::uint64_t file_size : {std::uint64_t{0}, static_cast<std::uint64_t>(size)}) {
    auto header = preflight::parse_safetensors_prefix(bytes, file_size, "fuzz.safetensors");
    if (header.ok())
      check_header(*header, file_size);
    else
      check_error(header.error());
  }

  // The two-step read the CLI does: 8 bytes, then N bytes.
  auto n = preflight::parse_safetensors_header_length(bytes, "fuzz.safetensors");
  if (!n.ok()) {
    check_error(n.error());
    return 0;
  }
  const std::string_view rest = bytes.substr(8);
  const std::string_view json = rest.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(*n, rest.size())));
  auto header = preflight::parse_safetensors_header(json, *n, 0, "fuzz.safetensors");
  const auto full = preflight::parse_safetensors_header_full(json, *n, 0, "fuzz.safetensors");
  check(header.ok() == full.ok());
  if (header.ok()) {
    check(header->metadata == full->metadata && header->tensors.size() == full->tensors.size());
    for (std::size_t i = 0; i < header->tensors.size(); ++i) {
      const auto& a = header->tensors[i];
      const auto& b = full->tensors[i];
      check(a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.begin == b.begin && a.end == b.end);
    }
  } else {
    check(header.error().to_string() == full.error().to_string());
  }
  if (header.ok())
    check_header(*header, 0);
  else
    check_error(header.error());
  return 0;
}
