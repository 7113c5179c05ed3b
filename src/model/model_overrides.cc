#include "model/model_overrides.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/bytes.h"
#include "core/json_read.h"
#include "model/family_registry.h"
#include "model/pooling_runner.h"

namespace preflight {

namespace {

// Routers the descriptions mark as nn.Linear (data/architectures/mixtral.json, qwen2_moe.json): Mixtral's
// block_sparse_moe.gate, Qwen2/3-MoE's mlp.gate and the shared expert's
// one-output gate. End-anchored so that mlp.gate_proj is not matched.
constexpr std::array<std::string_view, 3> kRouterRegexes{R"(.*mlp\.gate$)", R"(.*block_sparse_moe\.gate$)",
                                                         R"(.*shared_expert_gate$)"};

nlohmann::json ct_ignore() {
  nlohmann::json ignore = nlohmann::json::array({"lm_head"});
  for (auto re : kRouterRegexes) ignore.push_back("re:" + std::string(re));
  return ignore;
}

// compressed-tensors config with one group targeting every Linear, as
// llm-compressor writes it for its presets (quantization/quant_scheme.py).
nlohmann::json ct_config(std::string_view format, nlohmann::json weights, nlohmann::json input_activations) {
  nlohmann::json group = {{"targets", {"Linear"}}, {"weights", std::move(weights)}};
  if (!input_activations.is_null()) group["input_activations"] = std::move(input_activations);
  return {{"quant_method", "compressed-tensors"},
          {"format", format},
          {"quantization_status", "compressed"},
          {"ignore", ct_ignore()},
          {"config_groups", {{"group_0", std::move(group)}}}};
}

nlohmann::json fp8_online() {
  // transformers' FineGrainedFP8 / AutoFP8 vocabulary for a per-tensor layout
  // (no weight_block_size): weight_scale F32 [] per Linear, the LM head kept.
  nlohmann::json keep = nlohmann::json::array();
  for (auto re : kRouterRegexes) keep.push_back(std::string(re));
  return {{"quant_method", "fp8"}, {"fmt", "e4m3"}, {"activation_scheme", "dynamic"}, {"modules_to_not_convert", keep}};
}

nlohmann::json fp8_dynamic() {
  return ct_config(
      "float-quantized",
      {{"num_bits", 8}, {"type", "float"}, {"strategy", "channel"}, {"symmetric", true}, {"dynamic", false}},
      {{"num_bits", 8}, {"type", "float"}, {"strategy", "token"}, {"symmetric", true}, {"dynamic", true}});
}

nlohmann::json w8a8() {
  return ct_config("int-quantized",
                   {{"num_bits", 8}, {"type", "int"}, {"strategy", "channel"}, {"symmetric", true}, {"dynamic", false}},
                   {{"num_bits", 8}, {"type", "int"}, {"strategy", "token"}, {"symmetric", true}, {"dynamic", true}});
}

nlohmann::json w4a16() {
  return ct_config("pack-quantized",
                   {{"num_bits", 4},
                    {"type", "int"},
                    {"strategy", "group"},
                    {"group_size", 128},
                    {"symmetric", true},
                    {"dynamic", false}},
                   nullptr);
}

struct Scheme {
  std::string_view flag;   // --quantize value
  std::string_view label;  // in the model name: "llama-3.1-8b-instruct (+fp8 online)"
  nlohmann::json (*config)();
  std::string_view note;  // what the plan assumes, for ModelSpec::notes
};

constexpr std::array<Scheme, 4> kSchemes{{
    {"fp8", "fp8 online", fp8_online,
     "--quantize fp8: vLLM's online FP8 (--quantization fp8 on the unquantized files): every Linear weight but the "
     "LM head and the MoE routers is cast to F8_E4M3 at load with one F32 scale per tensor (quantization_config "
     "quant_method fp8, per-tensor, dynamic activations); embeddings, norms and the LM head keep the model dtype; "
     "the engine still downloads the unquantized files"},
    {"fp8-dynamic", "fp8-dynamic", fp8_dynamic,
     "--quantize fp8-dynamic: planned as a compressed-tensors FP8_DYNAMIC checkpoint (RedHatAI *-FP8-dynamic): "
     "Linear weights F8_E4M3 [out, in] + weight_scale [out, 1] in the weight dtype, per-token dynamic FP8 "
     "activations (no input_scale stored), lm_head and MoE routers ignored; vLLM holds the channel scales as F32 "
     "(2 more bytes per output row than stored)"},
    {"w8a8", "w8a8", w8a8,
     "--quantize w8a8: planned as a compressed-tensors INT8 W8A8 checkpoint (RedHatAI *-quantized.w8a8): Linear "
     "weights I8 [out, in] + weight_scale [out, 1] in the weight dtype, per-token dynamic INT8 activations (no "
     "input_scale stored), lm_head and MoE routers ignored"},
    {"w4a16", "w4a16", w4a16,
     "--quantize w4a16: planned as a compressed-tensors W4A16 checkpoint (pack-quantized, RedHatAI "
     "*-quantized.w4a16 recipes): INT4 symmetric in groups of 128, weight_packed I32 [out, in/8] + weight_shape "
     "I64 [2] + weight_scale [out, in/128] in the weight dtype, lm_head and MoE routers ignored; an AutoGPTQ-format "
     "checkpoint of the same recipe also stores qzeros I32 [in/128, out/8] and g_idx I32 [in]"},
}};

const Scheme* find_scheme(std::string_view flag) {
  for (const auto& s : kSchemes)
    if (s.flag == flag) return &s;
  return nullptr;
}

bool quantize_requested(std::string_view q) { return !q.empty() && q != "none"; }

// --dtype values as vLLM's CLI accepts them (EngineArgs --dtype choices).
struct DtypeChoice {
  std::string_view flag;
  Dtype dtype;
  std::string_view label;  // canonical torch name, shown in the model name
};
constexpr std::array<DtypeChoice, 5> kDtypes{{
    {"bfloat16", Dtype::BF16, "bfloat16"},
    {"float16", Dtype::F16, "float16"},
    {"half", Dtype::F16, "float16"},
    {"float32", Dtype::F32, "float32"},
    {"float", Dtype::F32, "float32"},
}};

const DtypeChoice* find_dtype(std::string_view flag) {
  for (const auto& d : kDtypes)
    if (d.flag == flag) return &d;
  return nullptr;
}

bool dtype_requested(std::string_view d) { return !d.empty() && d != "auto"; }

// Where the config already holds a quantization_config (its JSON pointer, ""
// when none) and the method it names: "compressed-tensors (int-quantized)".
std::string existing_quantization(const nlohmann::json& config, std::string* method) {
  auto holds = [&](const nlohmann::json& node) {
    if (!node.is_object() || !node.contains("quantization_config") || node["quantization_config"].is_null())
      return false;
    const auto& q = node["quantization_config"];
    *method = q.is_object() && q.contains("quant_method") && q["quant_method"].is_string()
                  ? q["quant_method"].get<std::string>()
                  : std::string("an unnamed method");
    if (q.is_object() && q.contains("format") && q["format"].is_string())
      *method += " (" + q["format"].get<std::string>() + ")";
    return true;
  };
  if (holds(config)) return "/quantization_config";
  for (const char* key : {"text_config", "llm_config", "language_config"})
    if (config.contains(key) && holds(config[key])) return fmt::format("/{}/quantization_config", key);
  return "";
}

// --dtype on the built manifest: plain tensors in the model dtype take the new
// dtype; everything else keeps its stored dtype. Returns the entries it changed.
std::uint64_t recast(ModelSpec& m, Dtype to) {
  std::uint64_t changed = 0;
  for (auto& t : m.manifest.tensors) {
    if (t.format != StorageFormat::plain || t.dtype != m.dtype || t.dtype == to) continue;
    t.dtype = to;
    t.bytes_each = checked_mul(element_count(t.shape), dtype_bits(to) / 8, t.name);
    ++changed;
  }
  m.dtype = to;
  return changed;
}

}  // namespace

std::optional<Error> validate_model_overrides(const ModelOverrides& o) {
  if (!o.quantize.empty() && o.quantize != "none" && find_scheme(o.quantize) == nullptr)
    return Error{"--quantize", "",
                 fmt::format("unknown scheme '{}' (expected fp8, fp8-dynamic, w8a8, w4a16 or none)", o.quantize)};
  if (!o.dtype.empty() && o.dtype != "auto" && find_dtype(o.dtype) == nullptr)
    return Error{"--dtype", "",
                 fmt::format("unknown dtype '{}' (expected auto, bfloat16, float16 or float32)", o.dtype)};
  if (auto r = parse_runner(o.runner); !r) return r.error();
  return std::nullopt;
}

bool overrides_requested(const ModelOverrides& o) { return quantize_requested(o.quantize) || dtype_requested(o.dtype); }

Result<nlohmann::json> quantization_config_for(std::string_view scheme) {
  if (!quantize_requested(scheme)) return nlohmann::json();
  const auto* s = find_scheme(scheme);
  if (s == nullptr) return *validate_model_overrides({std::string(scheme), "", ""});
  return s->config();
}

std::optional<Error> inject_quantization(nlohmann::json& config, std::string_view scheme, std::string_view origin) {
  if (!quantize_requested(scheme)) return std::nullopt;
  auto q = quantization_config_for(scheme);
  if (!q) return q.error();
  if (!config.is_object()) return Error{std::string(origin), "", "expected a JSON object at the top level"};
  std::string method;
  const auto where = existing_quantization(config, &method);
  if (!where.empty())
    return Error{"--quantize", "",
                 fmt::format("cannot apply '{}': the model is already quantized with {}, per {} of {}; plan it as "
                             "it is, or pass --quantize none",
                             scheme, method, where, origin)};
  // finish_model reads the root unless the text config holds one; neither does here.
  config["quantization_config"] = std::move(q).value();
  return std::nullopt;
}

Result<ModelSpec> apply_model_overrides(ModelSpec files, std::string_view config_json, std::string_view origin,
                                        const ModelOverrides& o) {
  if (auto e = validate_model_overrides(o)) return *e;
  if (!overrides_requested(o)) return files;

  // The name and artifact facts belong to the files; a rebuilt model has neither.
  const std::string name = files.name;
  const std::optional<ArtifactFacts> artifact = files.artifact;
  std::vector<std::string> labels;
  std::vector<std::string> notes;
  const bool quantize = quantize_requested(o.quantize);
  ModelSpec m;
  if (quantize) {
    auto parsed = parse_json(config_json, origin, "", DuplicateKeys::last_wins);
    if (!parsed) return parsed.error();
    nlohmann::json& doc = parsed.value();
    if (auto e = inject_quantization(doc, o.quantize, origin)) return *e;
    auto built = build_model_from_config(doc.dump(), origin);
    if (!built) return built.error();
    m = std::move(built).value();
    const auto* s = find_scheme(o.quantize);
    labels.emplace_back(s->label);
    notes.emplace_back(s->note);
  } else {
    m = std::move(files);
  }
  bool manifest_changed = quantize;

  if (dtype_requested(o.dtype)) {
    const auto* d = find_dtype(o.dtype);
    const auto from = m.dtype;
    if (from == d->dtype) {
      notes.push_back(
          fmt::format("--dtype {}: already the model dtype ({}), nothing changed", o.dtype, dtype_name(from)));
    } else {
      const auto changed = recast(m, d->dtype);
      manifest_changed = manifest_changed || changed > 0;
      labels.emplace_back(d->label);
      notes.push_back(fmt::format(
          "--dtype {}: {} stored {} tensor entries held as {} (vLLM casts what it loads into --dtype); quantized "
          "payloads, their scales and tensors stored in another dtype (deliberate F32) keep their stored dtype",
          o.dtype, changed, dtype_name(from), dtype_name(d->dtype)));
    }
  }

  m.name = name;
  if (!labels.empty()) {
    std::string suffix;
    for (const auto& l : labels) suffix += (suffix.empty() ? "" : ", ") + l;
    m.name += fmt::format(" (+{})", suffix);
  }
  m.artifact = artifact;
  if (manifest_changed && artifact) {
    notes.push_back(
        fmt::format("artifact facts of {} left out of this plan: they describe the files as released "
                    "(shards, bytes, the hub's parameter count), not the weights after the overrides",
                    artifact->hub_id.empty() ? std::string("the release") : artifact->hub_id));
    m.artifact.reset();
  }
  for (auto& n : notes) m.notes.push_back(std::move(n));
  return m;
}

}  // namespace preflight
