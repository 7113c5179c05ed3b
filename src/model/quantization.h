// Quantization schemes, applied by tensor name exactly as the real tooling does.
//
// A `quantization_config` decides, for every logical weight, how it is stored.
// compressed-tensors (the format K3 ships) lists config groups whose `targets`
// name module classes ("Linear") or regexes ("re:..."), and an `ignore` list of
// module names or regexes that stay unquantized. Regexes follow Python's
// `re.match` (anchored at the start, not the end), which is what
// compressed-tensors calls. A weight matched by a group and not ignored is
// stored in the group's format; everything else keeps the model's dtype.
//
// Supported formats today: mxfp4-pack-quantized (4-bit E2M1 codes packed two per
// byte in `weight_packed` U8 [out, in/2], plus `weight_scale` U8 [out, in/32]
// holding one E8M0 exponent per group of 32: 4 + 8/32 = 4.25 bits per weight).
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/json_fields.h"
#include "model/tensor_manifest.h"

namespace preflight {

// A module-name pattern: "re:<regex>" or an exact name / class name.
struct NamePattern {
  std::string text;         // as written in the config
  bool is_regex = false;
  std::regex regex;         // compiled when is_regex
  bool index_sensitive = false;  // could tell expert 0 from expert 7 (digits, classes, bare '.')

  bool matches(const std::string& module_name) const;
};

struct QuantGroup {
  std::string name;                  // "group_0"
  std::vector<NamePattern> targets;  // "Linear" or regexes
  std::string format;                // "mxfp4-pack-quantized"
  std::uint64_t num_bits = 0;
  std::string type;                  // "float" | "int"
  std::uint64_t group_size = 0;
  Dtype scale_dtype = Dtype::U8;
};

struct QuantizationScheme {
  std::string method = "none";       // "none" | "compressed-tensors"
  std::string format;                // top-level format
  std::vector<QuantGroup> groups;
  std::vector<NamePattern> ignore;
  std::string origin;                // file the scheme came from
};

// `container` is the object that holds `quantization_config` (for K3: text_config).
Result<QuantizationScheme> parse_quantization(const JsonFields& container);

// Turns logical weights into stored tensors. Errors name the tensor and the rule.
Result<TensorManifest> apply_quantization(const std::vector<LogicalTensor>& logical,
                                          const QuantizationScheme& scheme);

// Exposed for tests: true when a regex could match some index values and not others.
bool pattern_is_index_sensitive(const std::string& regex_text);

}  // namespace preflight
