// GpuCatalogue: the accelerator catalogue (data/gpus.json) and its reader.
//
// The catalogue is data, not code: every accelerator, its capacities and the
// sources behind each figure live in data/gpus.json, which the build embeds in
// the binary (the tool never reads data/ at run time). Users extend
// or correct it with `--catalogue FILE.json` in the same schema (merged_with).
//
// The reader is a pure function over text: it validates every field's type and
// range and reports the first problem as one actionable line, naming the file
// and the JSON pointer of the offending field:
//   my-gpus.json: /accelerators/3/nominal_gb: expected a positive number, got "abc"
//
// Lookup is forgiving about how people type GPU names: case, '-', '_' and spaces
// are ignored, and ids, names and aliases all match ("H100", "h100-sxm",
// "H100_SXM", "nvidia-h100-sxm-80gb"). An unknown name gets a did-you-mean.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "hardware/accelerator.h"

namespace preflight {

class GpuCatalogue {
 public:
  // The schema string every catalogue file may carry ("schema": "preflight.gpus/1").
  static constexpr std::string_view kSchema = "preflight.gpus/1";

  // Parses a complete catalogue. `origin` names the text in error messages (a
  // file name, "catalogue", ...). Never throws: malformed JSON, a field of the
  // wrong type or range, a duplicate id or an alias claimed by two entries all
  // come back as an Error. Unknown keys are ignored (forward compatibility).
  static Result<GpuCatalogue> parse(std::string_view json_text, std::string_view origin);

  // The catalogue built into the binary (data/gpus.json). It is validated by the
  // unit tests, so a failure here is a programming error: throws std::logic_error.
  static const GpuCatalogue& embedded();

  // This catalogue plus an override/addition file in the same schema: an entry
  // whose id is already known replaces only the fields it gives; any other entry
  // is added and must be complete (id, name, nominal_gb, and smi_total_mib or
  // device_total). Errors point into the override text.
  Result<GpuCatalogue> merged_with(std::string_view override_json, std::string_view origin) const;

  const std::vector<Accelerator>& all() const { return accelerators_; }

  // Finds an accelerator by id, name or alias, ignoring case, '-', '_' and
  // spaces. The pointer stays valid while this catalogue lives. Unknown names
  // give Error{origin, "", "unknown GPU 'H1OO'; did you mean 'h100'? (...)"}.
  Result<const Accelerator*> find(std::string_view name, std::string_view origin) const;

  // embedded().find(name), without reading the 32 entries not asked for: the
  // entry is found by its id, name and alias lines and only it is parsed and
  // validated (this is on a plan's start-up path). An unknown name gets find's error.
  static Result<Accelerator> find_embedded(std::string_view name, std::string_view origin);
  // How many entries find_embedded indexes (0 when data/gpus.json's layout defeats
  // it), so a test can tell its quick path from the full parse it falls back to.
  static std::size_t embedded_quick_entries();

  // The normalised form names are compared in: lower case, without '-', '_'
  // and spaces ("H100_SXM" -> "h100sxm").
  static std::string lookup_key(std::string_view name);

 private:
  std::vector<Accelerator> accelerators_;
  // The catalogue document as given (after merging: re-serialized), so a later
  // override can be applied field by field to each entry's JSON object and the
  // result validated as a whole. Only merged_with reads it again: a plan does
  // not pay for keeping 33 entries as text. The embedded catalogue's view points
  // at the binary's data; a parsed or merged one owns its text.
  std::shared_ptr<const std::string> source_owned_;
  std::string_view source_;
  // lookup_key(id | name | alias) -> index into accelerators_.
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace preflight
