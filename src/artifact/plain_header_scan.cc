#include "artifact/plain_header_scan.h"

#include "artifact/plain_json_scanner.h"

namespace preflight {

namespace {

// [N, ...]: unsigned integers.
bool counts(PlainJsonScanner& s, std::vector<std::uint64_t>& out) {
  if (!s.take('[')) return false;
  if (s.take(']')) return true;
  do {
    std::uint64_t n = 0;
    if (!s.count(n)) return false;
    out.push_back(n);
  } while (s.take(','));
  return s.take(']');
}

bool tensor_entry(PlainJsonScanner& s, PlainHeaderEntry& out) {
  if (!s.take('{')) return false;
  bool dtype = false, shape = false, offsets = false;
  do {
    std::string_view key;
    if (!s.plain_string(key) || !s.take(':')) return false;
    if (key == "dtype" && !dtype) {
      dtype = true;
      if (!s.peek('"') || !s.plain_string(out.dtype)) return false;
    } else if (key == "shape" && !shape) {
      shape = true;
      if (!counts(s, out.shape)) return false;
    } else if (key == "data_offsets" && !offsets) {
      offsets = true;
      if (!counts(s, out.offsets)) return false;
    } else {
      return false;  // a repeated or unknown key: the full reader's to judge
    }
  } while (s.take(','));
  return s.take('}') && dtype && shape && offsets;
}

}  // namespace

std::optional<PlainHeaderScan> scan_plain_header(std::string_view text) {
  PlainJsonScanner s(text);
  PlainHeaderScan out;
  const bool plain = s.object_document([&](std::string_view name) {
    if (name == "__metadata__") {
      if (out.has_metadata) return false;
      out.has_metadata = true;
      return s.string_object([&](std::string_view key, std::string_view value) {
        out.metadata.emplace_back(key, value);
        return true;
      });
    }
    PlainHeaderEntry entry;
    entry.name = name;
    if (!tensor_entry(s, entry)) return false;
    out.tensors.push_back(std::move(entry));
    return true;
  });
  if (!plain) return std::nullopt;
  return out;
}

}  // namespace preflight
