#include "artifact/plain_index_scan.h"

#include "artifact/plain_json_scanner.h"

namespace preflight {

std::optional<PlainIndexScan> scan_plain_index(std::string_view text, const IndexMemberSink& take) {
  PlainJsonScanner s(text);
  PlainIndexScan out;
  const bool plain = s.object_document([&](std::string_view key) {
    if (key == "weight_map") {
      if (out.has_weight_map) return false;
      out.has_weight_map = true;
      return s.string_object([&](std::string_view name, std::string_view file) {
        ++out.weight_map_entries;
        return take(name, file);
      });
    }
    for (const auto& [seen, ignored] : out.others)
      if (seen == key) return false;
    std::string_view value;
    if (!s.value(value, 1)) return false;
    out.others.emplace_back(key, value);
    return true;
  });
  if (!plain) return std::nullopt;
  return out;
}

}  // namespace preflight
