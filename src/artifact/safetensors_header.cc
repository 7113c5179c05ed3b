// Reading a safetensors shard header; the format and its rules are in
// safetensors_header.h. Checks run in a fixed order (length prefix, header
// bytes, JSON, each entry in key order, then the byte layout over all tensors,
// then the file size) so the first problem reported is deterministic.
#include "artifact/safetensors_header.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>

#include "artifact/artifact_json.h"
#include "artifact/plain_header_scan.h"
#include "core/json_read.h"

namespace preflight {

namespace {

using nlohmann::json;

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::string_view kLengthField = "header length";

// Every dtype name the safetensors format defines (safetensors/src/tensor.rs,
// enum Dtype). Those that dtype_from_safetensors does not know are reported as
// "not supported yet" rather than "unknown": the file is valid, preflight is behind.
constexpr std::array<std::string_view, 22> kSafetensorsDtypeNames{
    "BOOL", "F4",  "F6_E2M3", "F6_E3M2", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ",
    "I16",  "U16", "F16",     "BF16",    "I32", "U32", "F32",     "C64",     "F64",     "I64",         "U64"};

std::string supported_dtype_names() {
  std::string out;
  for (std::string_view name : kSafetensorsDtypeNames) {
    if (!dtype_from_safetensors(name)) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// A byte for a message: 'x' (0x78) when printable, else 0x00.
std::string byte_text(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return fmt::format("'{}' (0x{:02X})", c, u);
  return fmt::format("0x{:02X}", u);
}

std::optional<Error> check_length_value(std::uint64_t n, std::string_view first_bytes, std::string_view origin) {
  if (n == 0)
    return Error{std::string(origin), std::string(kLengthField),
                 "0; the header is a JSON object, at least 2 bytes (\"{}\")"};
  if (n <= kSafetensorsMaxHeaderBytes) return std::nullopt;
  // A huge N usually means the file is not a shard at all. Eight printable bytes
  // are text: most often a Git LFS pointer ("version https://git-lfs...") left
  // by a clone without `git lfs pull`.
  std::string hint;
  const bool text = first_bytes.size() >= 8 && std::all_of(first_bytes.begin(), first_bytes.begin() + 8, [](char c) {
                      const auto u = static_cast<unsigned char>(c);
                      return u >= 0x20 && u < 0x7F;
                    });
  if (text) {
    hint = fmt::format(
        "; the file starts with the text {}: a Git LFS pointer or another text "
        "file, not a safetensors shard",
        quote(first_bytes.substr(0, 8)));
  } else if (first_bytes.size() >= 8) {
    std::string hex;
    for (std::size_t i = 0; i < 8; ++i)
      hex += fmt::format("{}{:02x}", i == 0 ? "" : " ", static_cast<unsigned char>(first_bytes[i]));
    hint = fmt::format("; first 8 bytes {}: not a safetensors shard?", hex);
  }
  return Error{
      std::string(origin), std::string(kLengthField),
      fmt::format("{} exceeds the {}-byte limit of the safetensors format{}", n, kSafetensorsMaxHeaderBytes, hint)};
}

std::optional<Error> check_fits_file(std::uint64_t n, std::uint64_t file_size, std::string_view origin) {
  // n <= 10^8 here, so 8 + n cannot overflow.
  if (file_size == 0 || 8 + n <= file_size) return std::nullopt;
  return Error{std::string(origin), std::string(kLengthField),
               fmt::format("{} bytes after the 8-byte prefix run past the end of the {}-byte file", n, file_size)};
}

// The JSON pointer of a tensor's entry, or of one of its keys. Built only for an
// error: a shard header has thousands of tensors, and building each one's pointers
// up front was a tenth of reading them.
std::string tensor_field(const std::string& tensor, std::string_view key = {}) {
  std::string out = "/" + pointer_token(tensor);
  if (!key.empty()) out += fmt::format("/{}", key);
  return out;
}

// Reads "shape" or "data_offsets": an array of non-negative integers.
std::optional<Error> read_counts(const json& entry, std::string_view key, const std::string& tensor,
                                 std::string_view expected, std::vector<std::uint64_t>& out, std::string_view origin) {
  auto it = entry.find(key);
  if (it == entry.end()) return Error{std::string(origin), tensor_field(tensor, key), "missing"};
  if (!it->is_array())
    return Error{std::string(origin), tensor_field(tensor, key),
                 fmt::format("expected {}, got {}", expected, show(*it))};
  out.clear();
  out.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& item = (*it)[i];
    const auto n = artifact::as_count(item);
    if (!n)
      return Error{std::string(origin), fmt::format("{}/{}", tensor_field(tensor, key), i),
                   fmt::format("expected a non-negative integer, got {}", show(item))};
    out.push_back(*n);
  }
  return std::nullopt;
}

std::optional<Error> read_metadata(const json& value, const std::string& where, std::map<std::string, std::string>& out,
                                   std::string_view origin) {
  if (!value.is_object())
    return Error{std::string(origin), where, fmt::format("expected an object of string values, got {}", show(value))};
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string())
      return Error{std::string(origin), where + "/" + pointer_token(key),
                   fmt::format("expected a string (metadata values are strings), got {}", show(item))};
    out.emplace(key, item.get<std::string>());
  }
  return std::nullopt;
}

std::optional<Error> read_dtype(const json& entry, const std::string& tensor, Dtype& out, std::string_view origin) {
  auto it = entry.find("dtype");
  if (it == entry.end()) return Error{std::string(origin), tensor_field(tensor, "dtype"), "missing"};
  if (!it->is_string())
    return Error{std::string(origin), tensor_field(tensor, "dtype"),
                 fmt::format("expected a dtype name such as \"BF16\", got {}", show(*it))};
  const auto& name = it->get_ref<const std::string&>();
  if (auto d = dtype_from_safetensors(name)) {
    out = *d;
    return std::nullopt;
  }
  const bool in_format =
      std::find(kSafetensorsDtypeNames.begin(), kSafetensorsDtypeNames.end(), name) != kSafetensorsDtypeNames.end();
  return Error{
      std::string(origin), tensor_field(tensor, "dtype"),
      fmt::format("{} {} (preflight reads {})", quote(name),
                  in_format ? "is a safetensors dtype preflight does not support yet" : "is not a safetensors dtype",
                  supported_dtype_names())};
}

// What data_offsets must say of a tensor whose dtype, shape and offsets are read:
// BEGIN <= END, and END - BEGIN exactly the tensor's size. Both readers run it.
std::optional<Error> check_offsets(const HeaderTensor& out, std::string_view origin) {
  const std::string& name = out.name;
  const auto offsets_field = [&name] { return tensor_field(name, "data_offsets"); };
  if (out.begin > out.end)
    return Error{std::string(origin), offsets_field(), fmt::format("BEGIN {} is after END {}", out.begin, out.end)};

  // END - BEGIN must be exactly the tensor's size: product(shape) x dtype bits / 8.
  std::uint64_t elements = 1;
  for (std::uint64_t dim : out.shape) {
    if (dim != 0 && elements > kU64Max / dim)
      return Error{std::string(origin), tensor_field(name, "shape"),
                   fmt::format("{} has more than 2^64 elements", shape_text(out.shape))};
    elements *= dim;
  }
  // Whole-byte dtypes multiply by the element size; a sub-byte dtype (none is
  // supported yet, the format has F4 and F6) would go through the bit count.
  const std::uint64_t bits = dtype_bits(out.dtype);
  const std::uint64_t unit = bits % 8 == 0 ? bits / 8 : bits;
  if (unit != 0 && elements > kU64Max / unit)
    return Error{std::string(origin), tensor_field(name, "shape"),
                 fmt::format("{} of {} is more than 2^64 {}", shape_text(out.shape), dtype_name(out.dtype),
                             bits % 8 == 0 ? "bytes" : "bits")};
  if (bits % 8 != 0 && elements * bits % 8 != 0)
    return Error{std::string(origin), tensor_field(name, "shape"),
                 fmt::format("{} of {} is {} bits, not a whole number of bytes", shape_text(out.shape),
                             dtype_name(out.dtype), elements * bits)};
  const std::uint64_t expected = bits % 8 == 0 ? elements * unit : elements * bits / 8;
  if (out.bytes() != expected) {
    const std::string per_element = bits == 8       ? std::string("1 byte")
                                    : bits % 8 == 0 ? fmt::format("{} bytes", bits / 8)
                                                    : fmt::format("{} bits", bits);
    return Error{
        std::string(origin), offsets_field(),
        fmt::format("[{}, {}] is {} bytes, but shape {} of {} needs {} ({} elements x {})", out.begin, out.end,
                    out.bytes(), shape_text(out.shape), dtype_name(out.dtype), expected, elements, per_element)};
  }
  return std::nullopt;
}

// One tensor entry: {"dtype": ..., "shape": [...], "data_offsets": [BEGIN, END]}.
// Unknown keys are ignored, as the reference reader does.
std::optional<Error> read_tensor(const std::string& name, const json& entry, HeaderTensor& out,
                                 std::string_view origin) {
  if (!entry.is_object())
    return Error{std::string(origin), tensor_field(name),
                 fmt::format("expected an object with dtype, shape and data_offsets, got {}", show(entry))};
  out.name = name;
  if (auto e = read_dtype(entry, name, out.dtype, origin)) return e;
  if (auto e = read_counts(entry, "shape", name, "an array of non-negative integers", out.shape, origin)) return e;
  std::vector<std::uint64_t> offsets;
  if (auto e = read_counts(entry, "data_offsets", name, "[BEGIN, END]", offsets, origin)) return e;
  const auto offsets_field = [&name] { return tensor_field(name, "data_offsets"); };
  if (offsets.size() != 2)
    return Error{std::string(origin), offsets_field(),
                 fmt::format("expected [BEGIN, END], got {}", show(entry["data_offsets"]))};
  out.begin = offsets[0];
  out.end = offsets[1];
  return check_offsets(out, origin);
}

// The byte buffer must be covered exactly: sorted by offsets, each tensor
// begins where the previous one ends, the first at 0. Returns where the last ends.
Result<std::uint64_t> check_layout(const std::vector<HeaderTensor>& tensors, std::string_view origin) {
  std::uint64_t covered = 0;
  const HeaderTensor* previous = nullptr;
  for (const HeaderTensor& t : tensors) {
    const auto field = [&t] { return tensor_field(t.name, "data_offsets"); };
    if (t.begin > covered) {
      const std::string before = previous == nullptr
                                     ? std::string("the byte buffer starts at 0")
                                     : fmt::format("{} ends at {}", quote(previous->name), previous->end);
      return Error{std::string(origin), field(),
                   fmt::format("begins at {}, but {}, leaving {} bytes unindexed (safetensors "
                               "requires the byte buffer to be fully indexed)",
                               t.begin, before, t.begin - covered)};
    }
    if (t.begin < covered)  // previous != nullptr: covered > 0 only after a tensor
      return Error{std::string(origin), field(),
                   fmt::format("[{}, {}] overlaps {} [{}, {}]", t.begin, t.end, quote(previous->name), previous->begin,
                               previous->end)};
    covered = t.end;
    previous = &t;
  }
  return covered;
}

// The header from the plain scan (plain_header_scan.h), or nullopt for anything
// the full reader must judge: every check read_tensor and read_metadata make
// holds here too, and a failed one declines rather than words an error.
std::optional<SafetensorsHeader> from_plain_scan(std::string_view header_json, std::string_view origin) {
  auto scan = scan_plain_header(header_json);
  if (!scan) return std::nullopt;
  SafetensorsHeader header;
  for (const auto& [key, value] : scan->metadata)
    if (!header.metadata.emplace(key, value).second) return std::nullopt;  // a duplicate key
  std::vector<std::string_view> names;
  names.reserve(scan->tensors.size());
  for (const auto& e : scan->tensors) names.push_back(e.name);
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) return std::nullopt;
  header.tensors.reserve(scan->tensors.size());
  for (auto& e : scan->tensors) {
    const auto dtype = dtype_from_safetensors(e.dtype);
    if (!dtype || e.offsets.size() != 2) return std::nullopt;
    HeaderTensor t{std::string(e.name), *dtype, std::move(e.shape), e.offsets[0], e.offsets[1]};
    if (check_offsets(t, origin)) return std::nullopt;
    header.tensors.push_back(std::move(t));
  }
  return header;
}

Result<SafetensorsHeader> parse_header_checked(std::string_view header_json, std::uint64_t header_length,
                                               std::uint64_t file_size, std::string_view origin, bool fast_path) {
  if (auto e = check_length_value(header_length, {}, origin)) return *e;
  if (header_json.size() != header_length)
    return Error{std::string(origin), "header",
                 fmt::format("got {} bytes, but the length prefix says {} (truncated file?)", header_json.size(),
                             header_length)};
  if (auto e = check_fits_file(header_length, file_size, origin)) return *e;
  if (header_json.front() != '{')
    return Error{std::string(origin), "header",
                 fmt::format("must begin with '{{' (0x7B), got {}", byte_text(header_json.front()))};

  SafetensorsHeader header;
  if (auto plain = fast_path ? from_plain_scan(header_json, origin) : std::nullopt) {
    header = std::move(plain).value();
  } else {
    auto doc = parse_json(header_json, origin, "header");
    if (!doc) return doc.error();
    if (!doc->is_object())  // unreachable after '{', kept so the reader never assumes
      return Error{std::string(origin), "header", fmt::format("expected a JSON object, got {}", show(*doc))};
    header.tensors.reserve(doc->size());
    for (const auto& [name, entry] : doc->items()) {
      if (name == "__metadata__") {
        if (auto e = read_metadata(entry, "/__metadata__", header.metadata, origin)) return *e;
        continue;
      }
      HeaderTensor tensor;
      if (auto e = read_tensor(name, entry, tensor, origin)) return *e;
      header.tensors.push_back(std::move(tensor));
    }
  }
  header.header_length = header_length;
  // Offset order; ties (zero-size tensors) by name so the order is deterministic.
  std::sort(header.tensors.begin(), header.tensors.end(), [](const HeaderTensor& a, const HeaderTensor& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });

  auto payload = check_layout(header.tensors, origin);
  if (!payload) return payload.error();
  const std::uint64_t prefix = 8 + header_length;  // <= 10^8 + 8
  if (*payload > kU64Max - prefix)
    return Error{std::string(origin), "payload",
                 fmt::format("the tensors end at byte {} of the byte buffer; with the 8 + {} "
                             "header bytes the file would exceed 2^64 bytes",
                             *payload, header_length)};
  const std::uint64_t total = prefix + *payload;
  if (file_size != 0 && total != file_size) {
    const std::string hint =
        file_size < total ? std::string(" (truncated download?)")
                          : fmt::format(" ({} bytes at the end are not indexed by any tensor)", file_size - total);
    return Error{std::string(origin), "payload",
                 fmt::format("the file should be 8 + {} + {} = {} bytes, but it is {}{}", header_length, *payload,
                             total, file_size, hint)};
  }
  return header;
}

}  // namespace

std::uint64_t SafetensorsHeader::payload_bytes() const {
  std::uint64_t end = 0;
  for (const auto& t : tensors) end = std::max(end, t.end);
  return end;
}

Result<std::uint64_t> parse_safetensors_header_length(std::string_view first_bytes, std::string_view origin) {
  if (first_bytes.size() < 8)
    return Error{std::string(origin), std::string(kLengthField),
                 fmt::format("expected 8 bytes (a little-endian u64), got {}", first_bytes.size())};
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i)
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(first_bytes[i])) << (8 * i);
  if (auto e = check_length_value(n, first_bytes, origin)) return *e;
  return n;
}

Result<SafetensorsHeader> parse_safetensors_header(std::string_view header_json, std::uint64_t header_length,
                                                   std::uint64_t file_size, std::string_view origin) {
  try {
    return parse_header_checked(header_json, header_length, file_size, origin, true);
  } catch (const json::exception& e) {
    // Not expected (every access is type-checked first); no exception escapes.
    return Error{std::string(origin), "header", fmt::format("invalid header: {}", e.what())};
  }
}

Result<SafetensorsHeader> parse_safetensors_header_full(std::string_view header_json, std::uint64_t header_length,
                                                        std::uint64_t file_size, std::string_view origin) {
  try {
    return parse_header_checked(header_json, header_length, file_size, origin, false);
  } catch (const json::exception& e) {
    return Error{std::string(origin), "header", fmt::format("invalid header: {}", e.what())};
  }
}

Result<SafetensorsHeader> parse_safetensors_prefix(std::string_view bytes, std::uint64_t file_size,
                                                   std::string_view origin) {
  auto n = parse_safetensors_header_length(bytes, origin);
  if (!n) return n.error();
  if (auto e = check_fits_file(*n, file_size, origin)) return *e;
  const std::uint64_t available = bytes.size() - 8;
  if (available < *n)
    return Error{std::string(origin), "header",
                 fmt::format("the length prefix says {} bytes, but only {} follow it", *n, available)};
  return parse_safetensors_header(bytes.substr(8, *n), *n, file_size, origin);
}

}  // namespace preflight
