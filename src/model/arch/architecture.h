// Architectures as data (data/architectures/*.json): one engine builds a
// ModelSpec for every described architecture from its config.json.
//
// A description holds
//   model_types / architectures  what it reads (config `model_type`, or `architectures[0]`)
//   extends                      a description it refines (let, spec, defaults merged by key;
//                                tensors, parts replaced when given; notes, checks appended)
//   fields                       config fields type-checked first ([key, kind], in order; "a/b" is
//                                field b of object a; kinds: positive, positives, count, counts,
//                                flag, layers, layer_numbers (1-indexed, each once), list, object;
//                                a trailing ? makes the field optional)
//   let                          named expressions over the config (expression.h), evaluated lazily
//   spec                         the planner's numbers: hidden_size, vocab_size, max_context,
//                                layers, layer_kind (per layer i), gqa.*, moe.*, mla.*, mamba.*,
//                                gdn.*, kda.*, attn_res_block_size, mtp_layers, mm.* (the largest
//                                multimodal item: encoder width, patches and tokens, for the profile run)
//   tensors                      rules: a tensor {name, shape, module, role, linear?, dtype?,
//                                experts?, when?} or a group {for, from, to, prefix, tensors,
//                                when?, module?}; names substitute {var} ({E}: the expert index)
//   parts                        other descriptions composed in: {use, config, rename, prefix,
//                                module}: the language model of a wrapper (use "text": the
//                                description of text_config's model_type), a vision tower
//   checks, notes                [condition, field, message] refusals and [condition, text] notes
// Every architecture preflight reads is a description; no C++ family readers remain.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/arch/expression.h"
#include "model/model_spec.h"

namespace preflight::arch {

struct TensorRule {
  // A tensor (children empty) or a group (loop or condition over children).
  std::string name;  // template: "{prefix}q_proj.weight"; {E} stays for experts
  std::vector<Expression> shape;
  std::optional<ModuleClass> module;
  std::optional<ParallelRole> role;
  std::optional<bool> linear;             // default: a 2-D weight outside the embedding
  std::optional<Expression> linear_when;  // "linear": "expression" (DeepSeek's FP8 releases keep eh_proj BF16)
  std::optional<Expression> dtype;        // a torch dtype name; default (or null): the model dtype
  std::optional<Expression> experts;      // instances ({E} in the name)
  std::optional<Expression> when;
  bool group = false;
  std::string loop_var;                     // "" for a condition-only group
  std::optional<Expression> from, to;       // loop range [from, to)
  std::optional<Expression> mtp_from;       // iterations from this value on are MTP layers (module mtp)
  bool layer_loop = false;                  // loop_var numbers decoder layers (tensor.layer = value)
  std::string prefix;                       // prepended to children's names (templated)
  std::optional<ModuleClass> force_module;  // every child tensor's module (MTP, vision)
  std::vector<TensorRule> children;
};

struct PartRule {
  std::string use;     // a description name, or "text" (text_config's model_type)
  std::string config;  // the part's config object ("text_config", "vision_config", "" = root)
  bool config_or_root =
      false;  // the config object may be absent: its fields written at the root (mlx-lm's flat re-saves)
  std::vector<std::pair<std::string, std::string>> rename;  // name prefix replacements
  std::string prefix;                                       // prepended to every name after renaming
  std::optional<ModuleClass> module;                        // forced module (vision_tower)
  std::optional<bool> text;  // the part is the language model (its spec is the model's); default: not a component
  nlohmann::json defaults;   // class defaults for keys the part's config leaves out (LlamaConfig's, CLIPVisionConfig's)
  nlohmann::json overrides;  // values the wrapper imposes whatever the part's config says (remote code that
                             // builds the language model untied although its text_config says tied)
  std::optional<Expression> when;
};

struct Description {
  std::string name;
  std::string summary;
  std::string source;
  std::vector<std::string> model_types;
  std::vector<std::string> architectures;
  bool component = false;    // only used as a part (vision towers)
  std::string text_default;  // description for "use": "text" when text_config has no model_type
  // Config fields checked before anything is built, in order: [key, kind] with kind
  // positive | positive? | count? | flag? | layers (positive, at most 4,096) | list? | object?
  // ("?": may be absent or null), so a bad value gets the reader's usual one-line error.
  std::vector<std::pair<std::string, std::string>> fields;
  std::map<std::string, Expression, std::less<>> let;
  std::map<std::string, Expression, std::less<>> spec;
  std::vector<TensorRule> tensors;
  std::vector<PartRule> parts;
  struct Check {
    Expression ok;
    std::string field;
    std::string message;
  };
  struct Note {
    Expression when;
    std::string text;
  };
  std::vector<Check> checks;
  std::vector<Note> notes;
  // The config class's defaults (transformers' Gemma3TextConfig...): each fills a key
  // the config leaves out, and the model's notes list the ones used. A default
  // with an `unless` key is not needed (nor noted) when that key is present.
  struct ClassDefault {
    std::string key;
    nlohmann::json value;
    std::string unless;
  };
  std::string defaults_class;
  std::vector<ClassDefault> class_defaults;
};

// Every description, resolved (extends applied), by name. Lookups are safe from
// several threads (the HTTP server's).
class ArchitectureTable {
 public:
  // Parses and builds every description now (name -> JSON text); errors name the file.
  static Result<ArchitectureTable> parse(const std::vector<std::pair<std::string, std::string>>& files);
  // The embedded data/architectures/*.json: claims read at start, each description
  // built when first looked up (an invalid embedded file throws std::logic_error;
  // the ArchTable tests build every one).
  static const ArchitectureTable& embedded();

  const Description* by_name(std::string_view name) const;
  // The description for a config: its model_type, else architectures[0].
  const Description* for_config(std::string_view model_type, std::string_view architecture) const;
  // Every description, in name order (builds those not built yet).
  std::vector<const Description*> all() const;
  // Each description's name with the model types (and "architecture:" names) it claims,
  // as the table read them; for the test that holds the embedded quick read to the full parse.
  std::vector<std::pair<std::string, std::vector<std::string>>> claims() const;

 private:
  ArchitectureTable();
  struct State;
  std::shared_ptr<State> state_;
};

// Builds the model a description describes from a parsed config.json (the
// manifest with the config's quantization applied, via finish_model).
Result<ModelSpec> build_described(const ArchitectureTable& table, const Description& d, const nlohmann::json& root,
                                  std::string_view origin);

}  // namespace preflight::arch
