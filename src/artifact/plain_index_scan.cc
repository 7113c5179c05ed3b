#include "artifact/plain_index_scan.h"

#include "artifact/plain_json_scanner.h"

namespace preflight {

std::optional<PlainIndexScan> scan_plain_index(std::string_view text, const IndexMemberSink& take) {
  PlainJsonScanner s(text);
  PlainIndexScan out;
  if (!s.take('{')) return std::nullopt;
  if (!s.take('}')) {
    do {
      std::string_view key;
      if (!s.plain_string(key) || !s.take(':')) return std::nullopt;
      if (key == "weight_map") {
        if (out.has_weight_map) return std::nullopt;
        out.has_weight_map = true;
        if (!s.take('{')) return std::nullopt;
        if (s.take('}')) continue;
        do {
          std::string_view name, file;
          if (!s.plain_string(name) || !s.take(':') || !s.peek('"') || !s.plain_string(file)) return std::nullopt;
          if (!take(name, file)) return std::nullopt;
          ++out.weight_map_entries;
        } while (s.take(','));
        if (!s.take('}')) return std::nullopt;
      } else {
        for (const auto& [seen, ignored] : out.others)
          if (seen == key) return std::nullopt;
        std::string_view value;
        if (!s.value(value, 1)) return std::nullopt;
        out.others.emplace_back(key, value);
      }
    } while (s.take(','));
    if (!s.take('}')) return std::nullopt;
  }
  s.skip_space();
  if (!s.at_end()) return std::nullopt;
  return out;
}

}  // namespace preflight
