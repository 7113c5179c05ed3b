// The engine behind data/architectures/*.json: a description and a config.json
// become a ModelSpec (spec numbers, layer kinds, logical tensors), then
// finish_model applies the config's quantization by tensor name.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <set>
#include <unordered_map>
#include <utility>

#include "core/bytes.h"
#include "core/json_read.h"
#include "core/text.h"
#include "model/arch/architecture.h"
#include "model/arch/config_preparation.h"
#include "model/family_common.h"

namespace preflight::arch {

namespace {

constexpr std::uint64_t kMaxLoop = 65'536;      // no real stack has more layers, experts or blocks
constexpr std::size_t kMaxTensors = 2'000'000;  // logical tensors of one model (K3 has ~500k)
constexpr int kMaxPartDepth = 4;

// A read inside a loop body whose result depended on the loop variable.
struct LoopRead {
  enum class Kind : std::uint8_t { truth, dimension, dtype } kind;
  const Expression* e;
  std::uint64_t value;  // the bool, the dimension, or the dtype (kModelDtype: the model's)
};
constexpr std::uint64_t kModelDtype = ~std::uint64_t{0};

// What one description (or part) contributes.
struct Built {
  ModelSpec spec;
  std::vector<LogicalTensor> tensors;
};

class Builder {
 public:
  Builder(const ArchitectureTable& table, const Description& d, const nlohmann::json& root, const nlohmann::json& node,
          std::string node_pointer, std::string origin, Dtype dtype, int depth, std::vector<std::string>* guessed,
          std::size_t name_slack = 0)
      : table_(table),
        d_(d),
        root_(root),
        node_(node),
        node_pointer_(std::move(node_pointer)),
        origin_(std::move(origin)),
        dtype_(dtype),
        depth_(depth),
        name_slack_(name_slack),
        guessed_(guessed) {
    scope_.text = &node_;
    scope_.root = &root_;
    scope_.text_pointer = node_pointer_;
    scope_.config_origin = origin_;
    scope_.variable = [this](std::string_view name) { return variable(name); };
    scope_.stored = [this](std::string_view name) { return stored(name); };
  }

  Result<Built> build() {
    Built out;
    out.spec.dtype = dtype_;
    if (auto e = check_fields()) return *e;
    for (const auto& part : d_.parts) {
      if (part.when) {
        auto w = truth(*part.when);
        if (!w) return w.error();
        if (!*w) continue;
      }
      bool text = false;
      auto built = build_part(part, text);
      if (!built) return built.error();
      // Taken out of the Result (its -> is const: std::move through it would copy).
      Built p = std::move(built).value();
      if (text) out.spec = std::move(p.spec);
      // Moved whole when first (no second copy of K3's language model to grow into).
      if (out.tensors.empty()) {
        out.tensors = std::move(p.tensors);
      } else {
        out.tensors.reserve(out.tensors.size() + p.tensors.size());
        for (auto& t : p.tensors) out.tensors.push_back(std::move(t));
      }
    }
    for (const auto& c : d_.checks) {
      auto ok = truth(c.ok);
      if (!ok) return ok.error();
      if (!*ok) {
        auto message = fill(c.message, true);
        if (!message) return message.error();
        return Error{origin_, node_pointer_ + "/" + c.field, *message};
      }
    }
    if (!d_.spec.empty()) {
      if (auto e = apply_spec(out.spec)) return *e;
    }
    for (const auto& n : d_.notes) {
      auto w = truth(n.when);
      if (!w) return w.error();
      if (!*w) continue;
      auto text = fill(n.text, true);
      if (!text) return text.error();
      out.spec.notes.push_back(*text);
    }
    for (const auto& r : d_.tensors)
      if (auto e = emit(r, "", kNoLayer, std::nullopt, out.tensors)) return *e;
    return out;
  }

 private:
  // --- declared fields -----------------------------------------------------
  std::optional<Error> check_fields() {
    const JsonFields config(node_, origin_, node_pointer_);
    // The decoder's layer count, for 1-indexed layer lists ("layer_numbers").
    std::optional<std::uint64_t> layers;
    for (const auto& [field, kind] : d_.fields) {
      const bool optional = kind.ends_with("?");
      // "a/b": field b of the object a (K3's linear_attn_config/kda_layers).
      const auto slash = field.rfind('/');
      const std::string key = slash == std::string::npos ? field : field.substr(slash + 1);
      std::optional<JsonFields> nested;
      if (slash != std::string::npos) {
        const std::string parent = field.substr(0, slash);
        if (optional && !(config.has(parent) && config.node()[parent].is_object())) continue;
        auto o = config.object(parent);
        if (!o) return o.error();
        nested = *o;
      }
      const JsonFields& node = nested ? *nested : config;
      if (optional && !node.has(key)) continue;
      if (kind == "positive" || kind == "positive?") {
        if (auto v = node.positive_integer(key); !v) return v.error();
      } else if (kind == "positives") {  // one positive integer, or one per layer (Gemma 3n's intermediate_size)
        if (node.node()[key].is_array()) {
          auto v = node.integer_list(key);
          if (!v) return v.error();
          for (std::size_t i = 0; i < v->size(); ++i)
            if ((*v)[i] == 0)
              return Error{origin_, fmt::format("{}/{}", node.pointer_to(key), i),
                           fmt::format("expected a positive integer, got {}", (*v)[i])};
        } else if (auto v = node.positive_integer(key); !v) {
          return v.error();
        }
      } else if (kind == "layers") {
        auto v = node.positive_integer(key);
        if (!v) return v.error();
        if (*v > 4096) return node.error(key, fmt::format("{} layers is implausible", *v));
        layers = *v;
      } else if (kind == "layer_numbers") {  // 1-indexed layers, each once (Kimi's kda_layers / full_attn_layers)
        auto v = node.integer_list(key);
        if (!v) return v.error();
        std::set<std::uint64_t> seen;
        for (std::size_t i = 0; i < v->size(); ++i) {
          const auto n = (*v)[i];
          const auto at = fmt::format("{}/{}", node.pointer_to(key), i);
          if (n < 1 || (layers && n > *layers))
            return Error{origin_, at,
                         fmt::format("layer {} is outside 1..{} (these lists are 1-indexed)", n,
                                     layers ? fmt::format("{}", *layers) : std::string("the layer count"))};
          if (!seen.insert(n).second) return Error{origin_, at, fmt::format("layer {} is listed twice", n)};
        }
      } else if (kind == "count?") {
        if (auto v = node.non_negative_integer(key); !v) return v.error();
      } else if (kind == "flag?") {
        if (auto v = read_flag(node, key); !v) return v.error();
      } else if (kind == "counts?") {  // a list of layer indices (mlp_only_layers)
        if (auto v = node.integer_list(key); !v) return v.error();
      } else if (kind == "list?") {
        if (!node.node()[key].is_array())
          return node.error(key, fmt::format("expected a list, got {}", show(node.node()[key])));
      } else if (kind == "object?" || kind == "object") {
        if (auto v = node.object(key); !v) return v.error();
      }
    }
    return std::nullopt;
  }

  // --- variables -----------------------------------------------------------
  std::optional<Result<Value>> variable(std::string_view name) {
    const std::string_view key = name;
    if (auto it = loop_.find(key); it != loop_.end()) {
      ++loop_reads_;
      return Result<Value>(it->second);
    }
    if (auto it = cache_.find(key); it != cache_.end()) return Result<Value>(it->second);
    if (const Value* v = loop_cached(key)) return Result<Value>(*v);
    auto def = d_.let.find(key);
    if (def == d_.let.end()) {
      if (key == "dtype_bytes") return Result<Value>(Value::of(static_cast<double>(dtype_bits(dtype_)) / 8));
      return std::nullopt;
    }
    if (std::find(evaluating_.begin(), evaluating_.end(), key) != evaluating_.end())
      return Result<Value>(
          Error{origin_, "", fmt::format("architecture {}: '{}' is defined in terms of itself", d_.name, key)});
    evaluating_.push_back(def->first);
    const auto reads_before = loop_reads_;
    auto v = Evaluator::evaluate(def->second, scope_);
    evaluating_.pop_back();
    // A value that read a loop variable changes with it: kept for these loop values only.
    if (v && loop_reads_ == reads_before) {
      cache_.emplace(std::string(key), *v);
    } else if (v) {
      auto at = loop_cache_.find(key);
      if (at == loop_cache_.end()) at = loop_cache_.emplace(std::string(key), LoopValues{}).first;
      at->second.insert_or_assign(loop_state(), *v);
    }
    return v;
  }

  // A let value that read a loop variable, computed before for the loop values now
  // set (K3's is_kda and sparse: once per layer for the spec's layer kinds, then
  // read again by the layer's tensor rules). Reading it is a loop read.
  const Value* loop_cached(std::string_view key) {
    auto it = loop_cache_.find(key);
    if (it == loop_cache_.end()) return nullptr;
    auto v = it->second.find(loop_state());
    if (v == it->second.end()) return nullptr;
    ++loop_reads_;  // it read a loop variable: so does whatever reads it
    return &v->second;
  }

  // The loop variables' values as one key ("i=5;"), rebuilt when one changes.
  const std::string& loop_state() {
    if (state_generation_ != loop_generation_) {
      loop_state_.clear();
      for (const auto& [name, v] : loop_) {
        loop_state_ += name;
        loop_state_ += '=';
        if (v.json.is_number()) {  // every loop value is (set_loop); to_chars, not the JSON serializer
          char digits[32];
          const auto end = std::to_chars(digits, digits + sizeof digits, v.json.get<double>()).ptr;
          loop_state_.append(digits, end);
        } else {
          loop_state_ += v.json.dump();
        }
        loop_state_ += ';';
      }
      state_generation_ = loop_generation_;
    }
    return loop_state_;
  }

  // Every change of a loop variable starts a new generation (loop_state is rebuilt).
  void set_loop(const std::string& name, Value v) {
    loop_[name] = std::move(v);
    ++loop_generation_;
  }
  void erase_loop(const std::string& name) {
    loop_.erase(name);
    ++loop_generation_;
  }

  Result<Value> eval(const Expression& e) { return Evaluator::evaluate(e, scope_); }

  // Most shapes and conditions are one name ("H", "is_kda") already known: read in
  // place, not copied out through the evaluator (a third of K3's build time).
  // Looked up in variable()'s order; nullptr when the evaluator must run.
  const Value* known_name(const Expression& e) { return stored(e.text()); }

  // A variable's value when already known (variable()'s order), in place.
  const Value* stored(std::string_view name) {
    if (auto it = loop_.find(name); it != loop_.end()) {
      ++loop_reads_;
      return &it->second;
    }
    if (auto it = cache_.find(name); it != cache_.end()) return &it->second;
    return loop_cached(name);
  }
  Result<bool> truth(const Expression& e) {
    const auto before = loop_reads_;
    auto b = truth_now(e);
    if (b) note_read(LoopRead::Kind::truth, e, before, *b);
    return b;
  }
  Result<std::uint64_t> dimension(const Expression& e) {
    const auto before = loop_reads_;
    auto d = dimension_now(e);
    if (d) note_read(LoopRead::Kind::dimension, e, before, *d);
    return d;
  }
  Result<bool> truth_now(const Expression& e) {
    if (const Value* v = known_name(e)) return as_bool(*v, origin_, e.text());
    auto v = eval(e);
    if (!v) return v.error();
    return as_bool(*v, origin_, e.text());
  }
  Result<std::uint64_t> dimension_now(const Expression& e) {
    if (const Value* v = known_name(e)) return as_dimension(*v, origin_, e.text());
    auto v = eval(e);
    if (!v) return v.error();
    return as_dimension(*v, origin_, e.text());
  }
  // A tensor's "dtype" expression: its dtype, or nullopt for the model dtype (null).
  Result<std::optional<Dtype>> tensor_dtype(const Expression& e) {
    const auto before = loop_reads_;
    auto v = eval(e);
    if (!v) return v.error();
    std::optional<Dtype> out;
    if (!v->absent_or_null()) {  // null: the model dtype (DeepSeek-V3.2's norms are F32, V3's are not)
      auto s = as_string(*v, origin_, e.text());
      if (!s) return s.error();
      auto d = dtype_from_torch(*s);
      if (!d) return Error{origin_, v->pointer, fmt::format("unknown dtype \"{}\"", *s)};
      out = *d;
    }
    note_read(LoopRead::Kind::dtype, e, before, out ? static_cast<std::uint64_t>(*out) : kModelDtype);
    return out;
  }

  // "{name}" in a template becomes the variable's value; "{E}" stays (expert index).
  // In messages and notes (`human`), "{expression}" is evaluated and whole numbers
  // of five digits or more get thousands separators.
  Result<std::string> fill(const std::string& tmpl, bool human = false) {
    const auto before = loop_reads_;
    auto out = fill_now(tmpl, human);
    if (recording_ && loop_reads_ != before) recording_->names_vary = true;
    return out;
  }
  Result<std::string> fill_now(const std::string& tmpl, bool human) {
    std::string out;
    std::size_t pos = 0;
    while (pos < tmpl.size()) {
      const auto open = tmpl.find('{', pos);
      if (open == std::string::npos) {
        out += tmpl.substr(pos);
        break;
      }
      const auto close = tmpl.find('}', open);
      if (close == std::string::npos) return Error{origin_, "", fmt::format("unclosed '{{' in \"{}\"", tmpl)};
      out += tmpl.substr(pos, open - pos);
      const auto key = tmpl.substr(open + 1, close - open - 1);
      if (key == "E" && !human) {
        out += "{E}";
      } else if (human) {
        auto e = Expression::parse(key, origin_, "");
        if (!e) return e.error();
        auto v = eval(*e);
        if (!v) return v.error();
        if (v->json.is_number() && v->json.get<double>() >= 10000 && v->json.get<double>() < 1e18)
          out += with_commas(static_cast<std::uint64_t>(v->json.get<double>()));
        else if (v->json.is_string() || v->json.is_number()) {
          auto s = as_string(*v, origin_, key);
          if (!s) return s.error();
          out += *s;
        } else {
          out += show(v->json);
        }
      } else {
        auto v = variable(key);
        if (!v)
          return Error{origin_, "", fmt::format("architecture {}: unknown name '{}' in \"{}\"", d_.name, key, tmpl)};
        if (!*v) return v->error();
        auto s = as_string(v->value(), origin_, key);
        if (!s) return s.error();
        out += *s;
      }
      pos = close + 1;
    }
    return out;
  }

  // --- spec ----------------------------------------------------------------
  std::optional<Error> apply_spec(ModelSpec& m) {
    using Field = std::pair<std::string_view, std::uint64_t*>;
    const Field fields[] = {
        {"hidden_size", &m.hidden_size},
        {"vocab_size", &m.vocab_size},
        {"max_context", &m.max_context},
        {"mtp_layers", &m.mtp_layers},
        {"gqa.heads", &m.gqa.heads},
        {"gqa.kv_heads", &m.gqa.kv_heads},
        {"gqa.head_dim", &m.gqa.head_dim},
        {"gqa.v_head_dim", &m.gqa.v_head_dim},
        {"gqa.sliding_window", &m.gqa.sliding_window},
        {"gqa.attention_chunk", &m.gqa.attention_chunk},
        {"gqa.full_kv_heads", &m.gqa.full_kv_heads},
        {"gqa.full_head_dim", &m.gqa.full_head_dim},
        {"moe.routed_experts", &m.moe.routed_experts},
        {"moe.experts_per_token", &m.moe.experts_per_token},
        {"moe.shared_experts", &m.moe.shared_experts},
        {"moe.moe_intermediate", &m.moe.moe_intermediate},
        {"moe.first_dense_layers", &m.moe.first_dense_layers},
        {"moe.dense_intermediate", &m.moe.dense_intermediate},
        {"moe.latent_dim", &m.moe.latent_dim},
        {"mla.heads", &m.mla.heads},
        {"mla.q_lora_rank", &m.mla.q_lora_rank},
        {"mla.kv_lora_rank", &m.mla.kv_lora_rank},
        {"mla.qk_nope_head_dim", &m.mla.qk_nope_head_dim},
        {"mla.qk_rope_head_dim", &m.mla.qk_rope_head_dim},
        {"mla.v_head_dim", &m.mla.v_head_dim},
        {"mla.index_head_dim", &m.mla.index_head_dim},
        {"mamba.heads", &m.mamba.heads},
        {"mamba.head_dim", &m.mamba.head_dim},
        {"mamba.state_size", &m.mamba.state_size},
        {"mamba.groups", &m.mamba.groups},
        {"mamba.conv_kernel", &m.mamba.conv_kernel},
        {"gdn.k_heads", &m.gdn.k_heads},
        {"gdn.v_heads", &m.gdn.v_heads},
        {"gdn.k_head_dim", &m.gdn.k_head_dim},
        {"gdn.v_head_dim", &m.gdn.v_head_dim},
        {"gdn.conv_kernel", &m.gdn.conv_kernel},
        {"short_conv.dim", &m.short_conv.dim},
        {"short_conv.kernel", &m.short_conv.kernel},
        {"lightning.heads", &m.lightning.heads},
        {"lightning.head_dim", &m.lightning.head_dim},
        {"kda.heads", &m.kda.heads},
        {"kda.head_dim", &m.kda.head_dim},
        {"kda.conv_kernel", &m.kda.conv_kernel},
        {"attn_res_block_size", &m.attn_res_block_size},
        {"mm.encoder_hidden", &m.mm.encoder_hidden},
        {"mm.encoder_intermediate", &m.mm.encoder_intermediate},
        {"mm.patches_per_item", &m.mm.patches_per_item},
        {"mm.tokens_per_item", &m.mm.tokens_per_item},
        {"local_rope_cache_positions", &m.local_rope_cache_positions},
    };
    for (const auto& [key, expr] : d_.spec) {
      if (key == "layers" || key == "layer_kind" || key == "moe_layer") continue;
      bool known = false;
      for (const auto& [name, out] : fields)
        if (name == key) {
          auto v = dimension(expr);
          if (!v) return v.error();
          *out = *v;
          known = true;
        }
      if (!known) return Error{origin_, "", fmt::format("architecture {}: unknown spec field \"{}\"", d_.name, key)};
    }
    if (auto it = d_.spec.find("layers"); it != d_.spec.end()) {
      auto n = dimension(it->second);
      if (!n) return n.error();
      if (*n > 4096) return Error{origin_, node_pointer_, fmt::format("{} layers is implausible", *n)};
      m.layers.assign(*n, LayerKind::full_attention);
      if (auto kind = d_.spec.find("layer_kind"); kind != d_.spec.end()) {
        for (std::uint64_t i = 0; i < *n; ++i) {
          set_loop("i", Value::of(static_cast<double>(i)));
          auto v = eval(kind->second);
          erase_loop("i");
          if (!v) return v.error();
          auto s = as_string(*v, origin_, kind->second.text());
          if (!s) return s.error();
          const auto* known = std::find_if(std::begin(kAllLayerKinds), std::end(kAllLayerKinds),
                                           [&](LayerKind k) { return layer_kind_key(k) == *s; });
          if (known == std::end(kAllLayerKinds)) {
            std::string expected;  // "full_attention, ..., lightning or stateless"
            for (std::size_t k = 0; k < std::size(kAllLayerKinds); ++k)
              expected += fmt::format("{}{}", k == 0 ? "" : (k + 1 == std::size(kAllLayerKinds) ? " or " : ", "),
                                      layer_kind_key(kAllLayerKinds[k]));
            return Error{origin_, v->pointer.empty() ? node_pointer_ : v->pointer,
                         fmt::format("unknown layer type \"{}\" (expected {})", *s, expected)};
          }
          m.layers[i] = *known;
        }
      }
      // moe_layer (per layer): the leading dense layers are the planner's
      // first_dense_layers; dense layers after a sparse one are said.
      if (auto moe = d_.spec.find("moe_layer"); moe != d_.spec.end()) {
        std::uint64_t leading = 0, sparse = 0;
        bool seen_sparse = false, dense_after = false;
        for (std::uint64_t i = 0; i < *n; ++i) {
          set_loop("i", Value::of(static_cast<double>(i)));
          auto v = truth(moe->second);
          erase_loop("i");
          if (!v) return v.error();
          if (*v) {
            seen_sparse = true;
            ++sparse;
          } else if (!seen_sparse) {
            ++leading;
          } else {
            dense_after = true;
          }
        }
        m.moe.first_dense_layers = leading;
        if (dense_after)
          m.notes.push_back(
              "some dense layers follow sparse ones: the manifest has them, first_dense_layers counts "
              "only the leading ones");
        if (sparse == 0) m.notes.push_back("no layer is sparse: every layer is a dense MLP");
      }
      // A window only matters where a layer slides; sliding layers need one.
      if (m.count_layers(LayerKind::sliding_attention) == 0)
        m.gqa.sliding_window = 0;
      else if (m.gqa.sliding_window == 0)
        return Error{origin_, node_pointer_ + "/sliding_window", "sliding layers need a positive sliding_window"};
    }
    return std::nullopt;
  }

  // --- tensors -------------------------------------------------------------
  std::optional<Error> emit(const TensorRule& r, const std::string& prefix, int layer,
                            std::optional<ModuleClass> forced, std::vector<LogicalTensor>& out) {
    if (r.when) {
      auto w = truth(*r.when);
      if (!w) return w.error();
      if (!*w) return std::nullopt;
    }
    if (r.group) {
      // Inside an MTP layer every tensor is MTP, whatever its group says.
      const auto module = forced == ModuleClass::mtp ? forced : (r.force_module ? r.force_module : forced);
      if (r.loop_var.empty()) {
        auto p = fill(r.prefix);
        if (!p) return p.error();
        for (const auto& c : r.children)
          if (auto e = emit(c, prefix + *p, layer, module, out)) return e;
        return std::nullopt;
      }
      auto from = dimension(*r.from);
      if (!from) return from.error();
      auto to = dimension(*r.to);
      if (!to) return to.error();
      if (*to > *from && *to - *from > kMaxLoop)
        return Error{origin_, node_pointer_,
                     fmt::format("a {}-long stack ({}) is implausible", *to - *from, r.to->text())};
      std::uint64_t mtp_from = *to;
      if (r.mtp_from) {
        auto v = dimension(*r.mtp_from);
        if (!v) return v.error();
        mtp_from = *v;
      }
      const auto saved = loop_.find(r.loop_var) != loop_.end() ? std::optional<Value>(loop_[r.loop_var]) : std::nullopt;
      // Most iterations (decoder layers, vision blocks) repeat an earlier one: the
      // same loop-dependent reads give the same tensors, so those are copied under
      // this iteration's prefix (see LoopTemplate). A body with a loop of its own
      // is evaluated every time.
      bool replay = !has_loop(r.children);
      std::vector<LoopTemplate> templates;
      for (std::uint64_t v = *from; v < *to; ++v) {
        set_loop(r.loop_var, Value::of(static_cast<double>(v)));
        auto named = fill(r.prefix);
        if (!named) return named.error();
        const int at = r.layer_loop ? static_cast<int>(v) : layer;
        const bool mtp = v >= mtp_from;
        const auto here = mtp ? std::optional<ModuleClass>(ModuleClass::mtp) : module;
        std::string head = prefix + *named;
        if (replay) {
          const LoopTemplate* same = nullptr;
          for (const auto& t : templates) {
            if (t.mtp != mtp) continue;
            auto matches = repeats(t);
            if (!matches) return matches.error();
            if (*matches) {
              same = &t;
              break;
            }
          }
          if (same) {
            if (out.size() + same->count > kMaxTensors)
              return Error{origin_, node_pointer_, "more than 2,000,000 tensors is implausible"};
            // Room for the rest of the loop at this size and as much again for
            // the parts and rules that follow (a vision tower, a projector), so the
            // vector is not regrown and copied through K3's layers (each regrowth
            // writes fresh pages; reserved pages never written cost nothing).
            if (out.capacity() - out.size() < same->count) {
              const auto rest = std::min<std::uint64_t>(*to - v, kMaxTensors);
              out.reserve(std::min<std::uint64_t>(2 * (out.size() + rest * same->count), kMaxTensors));
            }
            for (std::size_t k = same->first; k < same->first + same->count; ++k) {
              // Every field copied but the name, which is built once at its final size
              // (the template's name is set aside so the copy does not allocate it).
              std::string template_name = std::move(out[k].name);
              LogicalTensor t = out[k];
              out[k].name = std::move(template_name);
              t.name.clear();
              t.name.reserve(head.size() + out[k].name.size() - same->head_size + name_slack_);
              t.name.append(head).append(out[k].name, same->head_size);
              t.layer = at;
              out.push_back(std::move(t));
            }
            continue;
          }
          templates.push_back(LoopTemplate{mtp, {}, false, out.size(), 0, head.size()});
        }
        LoopTemplate* recording = replay ? &templates.back() : nullptr;
        auto* outer = std::exchange(recording_, recording);
        for (const auto& c : r.children)
          if (auto e = emit(c, head, at, here, out)) {
            recording_ = outer;
            return e;
          }
        recording_ = outer;
        if (recording) {
          recording->count = out.size() - recording->first;
          if (recording->names_vary) replay = false;  // names read the loop: each iteration builds its own
        }
      }
      if (saved)
        set_loop(r.loop_var, *saved);
      else
        erase_loop(r.loop_var);
      return std::nullopt;
    }
    if (out.size() >= kMaxTensors) return Error{origin_, node_pointer_, "more than 2,000,000 tensors is implausible"};
    auto name = fill(r.name);
    if (!name) return name.error();
    LogicalTensor t;
    t.name.reserve(prefix.size() + name->size() + name_slack_);
    t.name.append(prefix).append(*name);
    for (const auto& e : r.shape) {
      auto v = dimension(e);
      if (!v) return v.error();
      t.shape.push_back(*v);
    }
    t.module = forced ? *forced : r.module.value_or(ModuleClass::unclassified);
    if (!forced && !r.module)
      return Error{origin_, "", fmt::format("architecture {}: tensor \"{}\" has no module", d_.name, t.name)};
    t.linear_weight = r.linear.value_or(t.shape.size() == 2 && t.module != ModuleClass::embedding);
    // A vision encoder's linear layers are split over the attention TP ranks as the
    // language model's are: vLLM and SGLang build them from QKVParallelLinear /
    // ColumnParallelLinear / RowParallelLinear (mm_encoder_tp_mode "weights", the
    // default). Its patch and position embeddings, norms and biases stay whole.
    // Checked on Llama-4-Scout at TP 4 (vLLM 0.19: 53.12 GiB logged per rank; a
    // replicated 1.62 GB tower would put it at 54.3).
    const bool encoder_linear = t.module == ModuleClass::vision_tower && t.linear_weight && t.shape.size() == 2;
    t.role = r.role.value_or(encoder_linear ? ParallelRole::column : ParallelRole::replicated);
    if (r.linear_when) {
      auto w = truth(*r.linear_when);
      if (!w) return w.error();
      t.linear_weight = *w;
    }
    t.dtype = dtype_;
    if (r.dtype) {
      auto d = tensor_dtype(*r.dtype);
      if (!d) return d.error();
      if (*d) t.dtype = **d;
    }
    if (r.experts) {
      auto n = dimension(*r.experts);
      if (!n) return n.error();
      if (*n == 0) return std::nullopt;  // no experts: nothing stored
      if (*n > kMaxLoop) return Error{origin_, node_pointer_, fmt::format("{} experts is implausible", *n)};
      t.instances = static_cast<std::uint32_t>(*n);
    }
    t.layer = layer;
    t.text = t.module != ModuleClass::vision_tower && t.module != ModuleClass::audio_tower &&
             t.module != ModuleClass::projector;
    for (auto d : t.shape)
      if (d == 0) return std::nullopt;  // a zero-width tensor is not stored
    out.push_back(std::move(t));
    return std::nullopt;
  }

  // --- repeated iterations --------------------------------------------------
  // One iteration of a loop as evaluated: the reads that depended on a loop
  // variable (directly or through a let value that did), in order, with their
  // results, and the tensors it emitted (out[first, first + count), each name
  // starting with the iteration's head of head_size characters). Every other
  // read depended on nothing that changes between iterations. So an iteration
  // whose dependent reads, taken again in the same order, give the same results
  // takes the same path through the rules and emits the same tensors; only the
  // head of each name and the layer differ. A mismatch or an error at read k
  // happens where the full evaluation would meet it, as both paths agree up to k.
  struct LoopTemplate {
    bool mtp = false;
    std::vector<LoopRead> reads;
    bool names_vary = false;  // a name or prefix inside read the loop variable: not reusable
    std::size_t first = 0, count = 0, head_size = 0;
  };

  static bool has_loop(const std::vector<TensorRule>& rules) {
    return std::any_of(rules.begin(), rules.end(),
                       [](const TensorRule& c) { return c.group && (!c.loop_var.empty() || has_loop(c.children)); });
  }

  void note_read(LoopRead::Kind kind, const Expression& e, std::uint64_t reads_before, std::uint64_t value) {
    if (recording_ && loop_reads_ != reads_before) recording_->reads.push_back(LoopRead{kind, &e, value});
  }

  // Whether this iteration's dependent reads give the template's results.
  Result<bool> repeats(const LoopTemplate& t) {
    auto* outer = std::exchange(recording_, nullptr);
    Result<bool> same = true;
    for (const auto& read : t.reads) {
      std::uint64_t value = 0;
      if (read.kind == LoopRead::Kind::truth) {
        auto b = truth_now(*read.e);
        if (!b)
          same = b.error();
        else
          value = *b;
      } else if (read.kind == LoopRead::Kind::dimension) {
        auto d = dimension_now(*read.e);
        if (!d)
          same = d.error();
        else
          value = *d;
      } else {
        auto d = tensor_dtype(*read.e);
        if (!d)
          same = d.error();
        else
          value = *d ? static_cast<std::uint64_t>(**d) : kModelDtype;
      }
      if (!same) break;
      if (value != read.value) {
        same = false;
        break;
      }
    }
    recording_ = outer;
    return same;
  }

  // --- parts ---------------------------------------------------------------
  Result<Built> build_part(const PartRule& part, bool& text) {
    if (depth_ >= kMaxPartDepth) return Error{origin_, "", "architecture parts nest too deeply"};
    const nlohmann::json* node = &root_;
    std::string pointer;
    if (!part.config.empty()) {
      auto it = root_.find(part.config);
      if (it != root_.end() && it->is_object()) {
        node = &*it;
        pointer = "/" + part.config;
      } else if (!(part.config_or_root && it == root_.end())) {
        return Error{origin_, "/" + part.config,
                     fmt::format("missing object (the {} of a {} model)", part.use, d_.name)};
      }
    }
    // Class defaults fill what the part's config leaves out (a copy: the config is never changed).
    nlohmann::json with_defaults;
    const bool defaults = part.defaults.is_object() && !part.defaults.empty();
    const bool overrides = part.overrides.is_object() && !part.overrides.empty();
    if (defaults || overrides) {
      with_defaults = *node;
      if (defaults)
        for (const auto& [k, v] : part.defaults.items())
          if (!with_defaults.contains(k) || with_defaults[k].is_null()) with_defaults[k] = v;
      if (overrides)
        for (const auto& [k, v] : part.overrides.items()) with_defaults[k] = v;
      node = &with_defaults;
    }
    const Description* sub = nullptr;
    if (part.use == "text") {
      std::string type = d_.text_default;
      if (auto t = node->find("model_type"); t != node->end() && t->is_string()) type = t->get<std::string>();
      sub = table_.for_config(type, "");
      if (!sub) {
        // An unknown language model inside a known wrapper: the generic reading,
        // and the whole model's figures become planning estimates.
        sub = table_.by_name("llama");
        if (!sub) return Error{origin_, pointer + "/model_type", "no generic description to read the language model"};
        guessed_->push_back(type);
      }
    } else {
      sub = table_.by_name(part.use);
      if (!sub) return Error{origin_, "", fmt::format("architecture {}: no part named \"{}\"", d_.name, part.use)};
    }
    text = part.text.value_or(!sub->component);
    nlohmann::json with_class;
    std::string defaults_note;
    if (!sub->class_defaults.empty()) {
      with_class = with_class_defaults(*sub, *node, defaults_note);
      node = &with_class;
    }
    // The enclosing parts rename and prefix every name this part emits: emitted
    // names keep room for that, so the edits below do not reallocate each name
    // (otherwise each of K3's 2,730 text tensors moves to a new, doubled buffer).
    std::size_t growth = part.prefix.size();
    std::size_t widest = 0;
    for (const auto& [from, to] : part.rename)
      widest = std::max(widest, to.size() > from.size() ? to.size() - from.size() : 0);
    Builder inner(table_, *sub, root_, *node, pointer, origin_, dtype_, depth_ + 1, guessed_,
                  name_slack_ + growth + widest);
    auto built = inner.build();
    if (!built) return built;
    Built out = std::move(built).value();
    if (!defaults_note.empty()) out.spec.notes.insert(out.spec.notes.begin(), defaults_note);
    for (auto& t : out.tensors) {
      for (const auto& [from, to] : part.rename)
        if (t.name.starts_with(from)) {
          t.name.replace(0, from.size(), to);
          break;
        }
      if (!part.prefix.empty()) t.name.insert(0, part.prefix);
      if (part.module) t.module = *part.module;
      if (!text) {
        t.text = false;
        t.layer = kNoLayer;
      }
    }
    return out;
  }

  const ArchitectureTable& table_;
  const Description& d_;
  const nlohmann::json& root_;
  const nlohmann::json& node_;
  std::string node_pointer_;
  std::string origin_;
  Dtype dtype_;
  int depth_;
  std::size_t name_slack_;  // characters the enclosing parts' renames and prefixes add to a name
  Scope scope_;
  // Transparent comparisons: a variable read looks names up without building a string.
  // Let values that read no loop variable, by name: hashed, as every shape and
  // condition reads a few (a name looked up without building a string).
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Value, NameHash, std::equal_to<>> cache_;
  std::map<std::string, Value, std::less<>> loop_;
  // Values that read a loop variable, by the loop values they were computed for
  // (loop_state): every tensor of a layer reads is_kda or sparse, evaluated once
  // per layer, not per read, nor again when a second loop visits the layer.
  using LoopValues = std::map<std::string, Value, std::less<>>;
  std::map<std::string, LoopValues, std::less<>> loop_cache_;
  std::uint64_t loop_generation_ = 0;
  std::uint64_t state_generation_ = ~std::uint64_t{0};
  std::string loop_state_;
  std::vector<std::string_view> evaluating_;  // let names being evaluated (keys of d_.let), innermost last
  std::uint64_t loop_reads_ = 0;
  LoopTemplate* recording_ = nullptr;  // the iteration being recorded, if any
  std::vector<std::string>* guessed_;  // language models read generically (unknown model_type)
};

}  // namespace

Result<ModelSpec> build_described(const ArchitectureTable& table, const Description& d, const nlohmann::json& root,
                                  std::string_view origin) {
  JsonFields root_fields(root, std::string(origin));
  auto text = text_fields(root_fields);
  if (!text) return text.error();
  // A composite model is saved in the dtype its root config names; the sub-configs
  // keep the dtype their parts were trained in (InternVL: llm_config bfloat16, files F32).
  auto dtype = read_model_dtype(d.parts.empty() ? *text : root_fields, root_fields);
  if (!dtype) return dtype.error();
  auto architecture = read_architecture(root_fields);
  if (!architecture) return architecture.error();
  // The description's own expressions see the language-model config as $, unless
  // it composes parts (a wrapper), which read their own sub-configs.
  const bool wrapper = !d.parts.empty();
  const nlohmann::json& node = wrapper ? root : text->node();
  std::string pointer;
  if (!wrapper && &text->node() != &root)
    for (const char* key : {"text_config", "llm_config", "language_config"})
      if (root.contains(key) && &root[key] == &text->node()) pointer = std::string("/") + key;
  std::vector<std::string> guessed;
  nlohmann::json with_class;
  std::string defaults_note;
  const nlohmann::json* read_from = &node;
  if (!wrapper && !d.class_defaults.empty()) {
    with_class = with_class_defaults(d, node, defaults_note);
    read_from = &with_class;
  }
  if (auto bad = check_layer_types(d, node, pointer, std::string(origin))) return *bad;
  Builder builder(table, d, root, *read_from, pointer, std::string(origin), *dtype, 0, &guessed);
  auto built = builder.build();
  if (!built) return built.error();
  Built whole = std::move(built).value();  // out of the Result: its -> is const, so std::move through it would copy
  ModelSpec m = std::move(whole.spec);
  if (!defaults_note.empty()) m.notes.insert(m.notes.begin(), defaults_note);
  for (const auto& type : guessed) {
    m.family_reader = false;
    m.notes.push_back(
        fmt::format("the language model's model_type {} has no reader: it is read as a generic "
                    "decoder inside the {} wrapper; verify against the real files",
                    echo(type), d.name));
  }
  m.family = d.name;
  m.origin = std::string(origin);
  m.architecture = *architecture;
  m.dtype = *dtype;
  if (m.layers.empty())
    return Error{std::string(origin), pointer, fmt::format("architecture {}: no decoder layers", d.name)};
  return finish_model(std::move(m), std::move(whole.tensors), *text, root_fields);
}

}  // namespace preflight::arch
