// Reading data/architectures/*.json into Descriptions (architecture.h):
// `extends` is resolved at the JSON level, then every expression is parsed once.
#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

#include "architecture_claims.h"
#include "core/json_read.h"
#include "core/plain_json.h"
#include "embedded_files.h"
#include "model/arch/architecture.h"

namespace preflight::arch {

namespace {

class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  Error error(const std::string& where, std::string message) const { return Error{origin_, where, std::move(message)}; }

  Result<Expression> expression(const nlohmann::json& v, const std::string& where) const {
    if (v.is_number() || v.is_boolean()) return Expression::parse(v.dump(), origin_, where);
    if (!v.is_string()) return error(where, fmt::format("expected an expression string, got {}", show(v)));
    return Expression::parse(v.get<std::string>(), origin_, where);
  }

  Result<std::string> text(const nlohmann::json& node, const char* key, const std::string& where) const {
    if (!node.contains(key)) return std::string();
    if (!node[key].is_string()) return error(where + "/" + key, "expected a string");
    return node[key].get<std::string>();
  }

  Result<std::optional<ModuleClass>> module(const nlohmann::json& node, const char* key,
                                            const std::string& where) const {
    auto t = text(node, key, where);
    if (!t) return t.error();
    if (t->empty()) return std::optional<ModuleClass>{};
    auto m = module_from_key(*t);
    if (!m) return error(where + "/" + key, fmt::format("unknown module \"{}\"", *t));
    return m;
  }

  Result<TensorRule> rule(const nlohmann::json& node, const std::string& where) const {
    if (!node.is_object()) return error(where, "expected an object");
    TensorRule r;
    if (node.contains("when")) {
      auto w = expression(node["when"], where + "/when");
      if (!w) return w.error();
      r.when = *w;
    }
    if (node.contains("tensors")) {
      r.group = true;
      auto var = text(node, "for", where);
      if (!var) return var.error();
      r.loop_var = *var;
      if (!r.loop_var.empty()) {
        for (const char* k : {"from", "to"}) {
          auto e = expression(node.value(k, nlohmann::json(k[0] == 'f' ? "0" : "")), where + "/" + k);
          if (!e) return e.error();
          (k[0] == 'f' ? r.from : r.to) = *e;
        }
        r.layer_loop = node.value("layer", r.loop_var == "i");
        if (node.contains("mtp_from")) {
          // Multi-token-prediction layers appended to the decoder stack (GLM-4.5, DeepSeek-V3).
          auto e = expression(node["mtp_from"], where + "/mtp_from");
          if (!e) return e.error();
          r.mtp_from = *e;
        }
      }
      auto prefix = text(node, "prefix", where);
      if (!prefix) return prefix.error();
      r.prefix = *prefix;
      auto m = module(node, "module", where);
      if (!m) return m.error();
      r.force_module = *m;
      if (!node["tensors"].is_array()) return error(where + "/tensors", "expected a list");
      for (std::size_t i = 0; i < node["tensors"].size(); ++i) {
        auto c = rule(node["tensors"][i], where + "/tensors/" + std::to_string(i));
        if (!c) return c.error();
        r.children.push_back(std::move(c).value());
      }
      return r;
    }
    auto name = text(node, "name", where);
    if (!name) return name.error();
    if (name->empty()) return error(where, "a tensor needs a name (or a group its tensors)");
    r.name = *name;
    if (!node.contains("shape") || !node["shape"].is_array()) return error(where + "/shape", "expected a list");
    for (std::size_t i = 0; i < node["shape"].size(); ++i) {
      auto e = expression(node["shape"][i], where + "/shape/" + std::to_string(i));
      if (!e) return e.error();
      r.shape.push_back(*e);
    }
    auto m = module(node, "module", where);
    if (!m) return m.error();
    r.module = *m;
    auto role = text(node, "role", where);
    if (!role) return role.error();
    if (!role->empty()) {
      r.role = parallel_role_from_key(*role);
      if (!r.role) return error(where + "/role", fmt::format("unknown role \"{}\"", *role));
    }
    if (node.contains("linear")) {
      if (node["linear"].is_string()) {
        auto e = expression(node["linear"], where + "/linear");
        if (!e) return e.error();
        r.linear_when = *e;
      } else if (!node["linear"].is_boolean()) {
        return error(where + "/linear", "expected true, false or an expression");
      } else {
        r.linear = node["linear"].get<bool>();
      }
    }
    for (const char* k : {"dtype", "experts"}) {
      if (!node.contains(k)) continue;
      auto e = expression(node[k], where + "/" + k);
      if (!e) return e.error();
      (k[0] == 'd' ? r.dtype : r.experts) = *e;
    }
    return r;
  }

  Result<Description> description(const nlohmann::json& doc) const {
    Description d;
    // Shapes first, so the readers below index only what they expect.
    for (const char* k : {"model_types", "architectures", "fields", "tensors", "parts", "checks", "notes"})
      if (doc.contains(k) && !doc[k].is_array()) return error(std::string("/") + k, "expected a list");
    for (const char* k : {"name", "summary", "source", "text_default"})
      if (doc.contains(k) && !doc[k].is_string()) return error(std::string("/") + k, "expected a string");
    if (doc.contains("component") && !doc["component"].is_boolean())
      return error("/component", "expected true or false");
    if (doc.contains("parts"))
      for (std::size_t i = 0; i < doc["parts"].size(); ++i) {
        const auto& p = doc["parts"][i];
        const std::string where = fmt::format("/parts/{}", i);
        if (!p.is_object()) return error(where, "expected an object");
        for (const char* k : {"use", "config", "prefix"})
          if (p.contains(k) && !p[k].is_string()) return error(where + "/" + k, "expected a string");
        if (p.contains("rename") && !p["rename"].is_array())
          return error(where + "/rename", "expected [from, to] pairs");
      }
    d.name = doc.value("name", "");
    d.summary = doc.value("summary", "");
    d.source = doc.value("source", "");
    d.component = doc.value("component", false);
    d.text_default = doc.value("text_default", "");
    if (doc.contains("class_defaults")) {
      // {"class": "Gemma3TextConfig", "values": [[key, value], [key, value, unless_key], ...]}
      const auto& cd = doc["class_defaults"];
      if (!cd.is_object() || !cd.contains("class") || !cd["class"].is_string() || !cd.contains("values") ||
          !cd["values"].is_array())
        return error("/class_defaults", "expected {\"class\": name, \"values\": [[key, value], ...]}");
      d.defaults_class = cd["class"].get<std::string>();
      for (std::size_t i = 0; i < cd["values"].size(); ++i) {
        const auto& v = cd["values"][i];
        if (!v.is_array() || v.size() < 2 || v.size() > 3 || !v[0].is_string() || (v.size() == 3 && !v[2].is_string()))
          return error(fmt::format("/class_defaults/values/{}", i),
                       "expected [key, value] or [key, value, unless_key]");
        d.class_defaults.push_back({v[0].get<std::string>(), v[1], v.size() == 3 ? v[2].get<std::string>() : ""});
      }
    }
    for (const char* k : {"model_types", "architectures"})
      if (doc.contains(k))
        for (const auto& v : doc[k]) {
          if (!v.is_string()) return error(std::string("/") + k, "expected strings");
          (k[0] == 'm' ? d.model_types : d.architectures).push_back(v.get<std::string>());
        }
    if (doc.contains("fields")) {
      static const std::set<std::string> kKinds = {"positive", "positive?", "positives", "count?",
                                                   "counts?",  "flag?",     "layers",    "layer_numbers",
                                                   "list?",    "object",    "object?"};
      for (std::size_t i = 0; i < doc["fields"].size(); ++i) {
        const auto& f = doc["fields"][i];
        if (!f.is_array() || f.size() != 2 || !f[0].is_string() || !f[1].is_string() ||
            !kKinds.count(f[1].get<std::string>()))
          return error(fmt::format("/fields/{}", i), "expected [key, kind] with a known kind");
        d.fields.emplace_back(f[0].get<std::string>(), f[1].get<std::string>());
      }
    }
    for (const char* k : {"let", "spec"}) {
      if (!doc.contains(k)) continue;
      if (!doc[k].is_object()) return error(std::string("/") + k, "expected an object");
      for (const auto& [key, v] : doc[k].items()) {
        auto e = expression(v, std::string("/") + k + "/" + key);
        if (!e) return e.error();
        (k[0] == 'l' ? d.let : d.spec).emplace(key, *e);
      }
    }
    if (doc.contains("tensors")) {
      for (std::size_t i = 0; i < doc["tensors"].size(); ++i) {
        auto r = rule(doc["tensors"][i], "/tensors/" + std::to_string(i));
        if (!r) return r.error();
        d.tensors.push_back(std::move(r).value());
      }
    }
    if (doc.contains("parts")) {
      for (std::size_t i = 0; i < doc["parts"].size(); ++i) {
        const auto& p = doc["parts"][i];
        const std::string where = fmt::format("/parts/{}", i);
        PartRule part;
        part.use = p.value("use", "");
        part.config = p.value("config", "");
        part.prefix = p.value("prefix", "");
        if (p.contains("config_or_root")) {
          if (!p["config_or_root"].is_boolean()) return error(where + "/config_or_root", "expected true or false");
          part.config_or_root = p["config_or_root"].get<bool>();
        }
        if (p.contains("text")) {
          if (!p["text"].is_boolean()) return error(where + "/text", "expected true or false");
          part.text = p["text"].get<bool>();
        }
        if (p.contains("overrides")) {
          if (!p["overrides"].is_object()) return error(where + "/overrides", "expected an object");
          part.overrides = p["overrides"];
        }
        if (p.contains("defaults")) {
          if (!p["defaults"].is_object()) return error(where + "/defaults", "expected an object");
          part.defaults = p["defaults"];
        }
        if (p.contains("rename"))
          for (const auto& pair : p["rename"]) {
            if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
              return error(where + "/rename", "expected [from, to] pairs");
            part.rename.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
          }
        auto m = module(p, "module", where);
        if (!m) return m.error();
        part.module = *m;
        if (p.contains("when")) {
          auto w = expression(p["when"], where + "/when");
          if (!w) return w.error();
          part.when = *w;
        }
        d.parts.push_back(std::move(part));
      }
    }
    if (doc.contains("checks"))
      for (std::size_t i = 0; i < doc["checks"].size(); ++i) {
        const auto& c = doc["checks"][i];
        const std::string where = fmt::format("/checks/{}", i);
        if (!c.is_array() || c.size() != 3 || !c[1].is_string() || !c[2].is_string())
          return error(where, "expected [condition, field, message]");
        auto e = expression(c[0], where);
        if (!e) return e.error();
        d.checks.push_back({*e, c[1].get<std::string>(), c[2].get<std::string>()});
      }
    if (doc.contains("notes"))
      for (std::size_t i = 0; i < doc["notes"].size(); ++i) {
        const auto& c = doc["notes"][i];
        const std::string where = fmt::format("/notes/{}", i);
        if (!c.is_array() || c.size() != 2 || !c[1].is_string()) return error(where, "expected [condition, text]");
        auto e = expression(c[0], where);
        if (!e) return e.error();
        d.notes.push_back({*e, c[1].get<std::string>()});
      }
    return d;
  }

 private:
  std::string origin_;
};

// The description documents, parsed when first needed: every one for a table
// built by parse(), only those a model reaches (its own, its extends chain, its
// parts and includes) for the embedded table, which a plan reads on every run.
struct Docs {
  std::function<const nlohmann::json*(const std::string& name)> find;  // nullptr when there is none
  std::function<std::string(const std::string& name)> origin;
};

// `extends`: the parent's document with the child's keys laid over it.
Result<nlohmann::json> resolve(const std::string& name, const Docs& docs, int depth) {
  const auto& doc = *docs.find(name);
  if (!doc.contains("extends")) return doc;
  if (depth > 8) return Error{docs.origin(name), "/extends", "extends chain is longer than 8 (a cycle?)"};
  const auto parent_name = doc["extends"].is_string() ? doc["extends"].get<std::string>() : "";
  if (!docs.find(parent_name))
    return Error{docs.origin(name), "/extends", fmt::format("no description named \"{}\"", parent_name)};
  auto parent = resolve(parent_name, docs, depth + 1);
  if (!parent) return parent;
  nlohmann::json out = *parent;
  out.erase("model_types");
  out.erase("architectures");
  out.erase("component");
  for (const auto& [key, v] : doc.items()) {
    if (key == "extends") continue;
    if ((key == "let" || key == "spec") && out.contains(key)) {
      for (const auto& [k, e] : v.items()) out[key][k] = e;
    } else if (key == "fields" && out.contains(key)) {
      // A field the child declares again takes the child's kind (it may relax "positive" to "positive?").
      for (const auto& f : v) {
        bool replaced = false;
        for (auto& mine : out[key])
          if (mine.is_array() && f.is_array() && !mine.empty() && !f.empty() && mine[0] == f[0]) {
            mine = f;
            replaced = true;
          }
        if (!replaced) out[key].push_back(f);
      }
    } else if ((key == "notes" || key == "checks") && out.contains(key)) {
      for (const auto& e : v) out[key].push_back(e);
    } else {
      out[key] = v;
    }
  }
  return out;
}

// `include`: a tensor rule {"include": "name", ...} becomes a group holding the
// named description's tensor rules (the Mamba-2 mixer shared by five hybrids);
// they are evaluated with the including description's `let`, so it defines
// the names they use.
std::optional<Error> splice_includes(nlohmann::json& rules, const Docs& docs, const std::string& origin,
                                     const std::string& where, int depth) {
  if (!rules.is_array()) return std::nullopt;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    auto& rule = rules[i];
    const std::string at = where + "/" + std::to_string(i);
    if (rule.is_object() && rule.contains("include")) {
      if (depth > 8) return Error{origin, at + "/include", "includes nest deeper than 8 (a cycle?)"};
      const auto name = rule["include"].is_string() ? rule["include"].get<std::string>() : "";
      const auto* included = docs.find(name);
      if (!included || !included->contains("tensors") || !(*included)["tensors"].is_array())
        return Error{origin, at + "/include", fmt::format("no description named \"{}\" with tensors", name)};
      rule.erase("include");
      rule["tensors"] = (*included)["tensors"];
      if (auto e = splice_includes(rule["tensors"], docs, origin, at + "/tensors", depth + 1)) return e;
    } else if (rule.is_object() && rule.contains("tensors")) {
      if (auto e = splice_includes(rule["tensors"], docs, origin, at + "/tensors", depth)) return e;
    }
  }
  return std::nullopt;
}

// Whether a rule list holds an "include" at any depth (splice_includes would change it).
bool has_include(const nlohmann::json& rules) {
  if (!rules.is_array()) return false;
  for (const auto& rule : rules)
    if (rule.is_object() && (rule.contains("include") || (rule.contains("tensors") && has_include(rule["tensors"]))))
      return true;
  return false;
}

// One description from its resolved document.
Result<Description> build_one(const std::string& name, const Docs& docs) {
  const auto origin = docs.origin(name);
  // The checks name the field of a malformed description; a shape they miss
  // still ends as a one-line error naming the file, never a crash.
  try {
    // Neither extended nor including: read in place (a copy of the document was a
    // third of building Kimi K3's three descriptions).
    const nlohmann::json& doc = *docs.find(name);
    if (doc.is_object() && !doc.contains("extends") && !(doc.contains("tensors") && has_include(doc["tensors"])))
      return Reader(origin).description(doc);
    auto resolved = resolve(name, docs, 0);
    if (!resolved) return resolved.error();
    nlohmann::json full = std::move(resolved).value();
    if (full.contains("tensors"))
      if (auto e = splice_includes(full["tensors"], docs, origin, "/tensors", 0)) return *e;
    return Reader(origin).description(full);
  } catch (const nlohmann::json::exception& e) {
    return Error{origin, "", fmt::format("malformed description: {}", e.what())};
  }
}

// A top-level value of a description in the house layout (tools/format_descriptions.py):
// the line `  "key": value,`. nullopt when the line is absent or not one JSON value
// (the caller then parses the whole document).
std::optional<nlohmann::json> top_level_line(std::string_view text, std::string_view key) {
  const std::string marker = "\n  \"" + std::string(key) + "\": ";
  // glibc's memmem (two-way, vectorized): a plain find stops at every line's '\n'
  // (129 files, ~380 KB, read at every start).
  const void* found = memmem(text.data(), text.size(), marker.data(), marker.size());
  if (found == nullptr) return nlohmann::json();  // absent: null
  const auto start = static_cast<std::size_t>(static_cast<const char*>(found) - text.data()) + marker.size();
  auto end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  auto line = text.substr(start, end - start);
  if (line.ends_with(',')) line.remove_suffix(1);
  if (auto plain = parse_plain_json(line)) return plain;  // the fast path; anything else to nlohmann
  auto v = nlohmann::json::parse(line, nullptr, false);
  if (v.is_discarded()) return std::nullopt;
  return v;
}

std::vector<std::string> strings_of(const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

}  // namespace

struct ArchitectureTable::State {
  struct Source {
    std::string origin;
    std::string_view text;  // the embedded file (lazy tables only)
    std::vector<std::string> model_types, architectures;
  };
  std::map<std::string, Source, std::less<>> sources;  // by name, in name order
  std::mutex mutex;                                    // guards the two caches below
  std::map<std::string, nlohmann::json, std::less<>> docs;
  std::map<std::string, std::unique_ptr<Description>, std::less<>> built;

  const nlohmann::json* doc(const std::string& name) {
    if (auto it = docs.find(name); it != docs.end()) return &it->second;
    auto src = sources.find(name);
    if (src == sources.end()) return nullptr;
    auto parsed = parse_json(src->second.text, src->second.origin, "", DuplicateKeys::reject);
    if (!parsed) throw std::logic_error("the embedded architecture table is invalid: " + parsed.error().to_string());
    return &docs.emplace(name, std::move(parsed).value()).first->second;
  }

  Docs lookup() {
    return Docs{[this](const std::string& name) { return doc(name); },
                [this](const std::string& name) {
                  auto it = sources.find(name);
                  return it == sources.end() ? name : it->second.origin;
                }};
  }

  const Description* description(std::string_view name) {
    std::lock_guard lock(mutex);
    if (auto it = built.find(name); it != built.end()) return it->second.get();
    if (!sources.count(name)) return nullptr;
    auto d = build_one(std::string(name), lookup());
    if (!d) throw std::logic_error("the embedded architecture table is invalid: " + d.error().to_string());
    return built.emplace(std::string(name), std::make_unique<Description>(std::move(d).value())).first->second.get();
  }
};

ArchitectureTable::ArchitectureTable() : state_(std::make_shared<State>()) {}

Result<ArchitectureTable> ArchitectureTable::parse(const std::vector<std::pair<std::string, std::string>>& files) {
  ArchitectureTable table;
  State& st = *table.state_;
  for (const auto& [origin, content] : files) {
    auto parsed = parse_json(content, origin, "", DuplicateKeys::reject);
    if (!parsed) return parsed.error();
    if (!parsed.value().is_object() || !parsed.value().contains("name") || !parsed.value()["name"].is_string())
      return Error{origin, "/name", "a description needs a name"};
    const auto name = parsed.value()["name"].get<std::string>();
    if (st.docs.count(name)) return Error{origin, "/name", fmt::format("\"{}\" is described twice", name)};
    st.sources[name].origin = origin;
    st.docs.emplace(name, std::move(parsed).value());
  }
  const Docs docs = st.lookup();
  for (auto& [name, source] : st.sources) {
    auto d = build_one(name, docs);
    if (!d) return d.error();
    source.model_types = d->model_types;
    source.architectures = d->architectures;
    st.built.emplace(name, std::make_unique<Description>(std::move(d).value()));
  }
  // Model types are claimed once.
  std::map<std::string, std::string> claimed;
  for (const auto& [name, source] : st.sources)
    for (const auto& t : source.model_types) {
      if (claimed.count(t))
        return Error{source.origin, "/model_types",
                     fmt::format("model_type \"{}\" is claimed by \"{}\" and \"{}\"", t, claimed[t], name)};
      claimed[t] = name;
    }
  return table;
}

const ArchitectureTable& ArchitectureTable::embedded() {
  // Only each file's name and claims are read here: from the table the build
  // made of them, else from their one line each in the house layout (a test
  // holds both equal to the full parse); a description is built when a model
  // first needs it, so a plan pays for the three or so it uses.
  static const ArchitectureTable table = [] {
    ArchitectureTable t;
    // The claims the build read from each description (cmake/architecture_claims.cmake).
    std::map<std::string_view, const embedded::ArchitectureClaim*> claimed;
    for (const auto& c : embedded::architecture_claims())
      if (c.read) claimed.emplace(c.path, &c);
    const auto lines = [](std::string_view list) {  // "a\nb\n": each item ends with a newline
      std::vector<std::string> out;
      for (std::size_t at = 0; at < list.size();) {
        const auto end = list.find('\n', at);
        if (end == std::string_view::npos) break;
        out.emplace_back(list.substr(at, end - at));
        at = end + 1;
      }
      return out;
    };
    for (auto path : preflight::embedded::embedded_paths()) {
      if (!path.starts_with("data/architectures/")) continue;
      const auto text = preflight::embedded::embedded_file(path);
      if (auto c = claimed.find(path); c != claimed.end()) {
        auto& source = t.state_->sources[std::string(c->second->name)];
        source.origin = std::string(path) + " (embedded)";
        source.text = text;
        source.model_types = lines(c->second->model_types);
        source.architectures = lines(c->second->architectures);
        continue;
      }
      auto name = top_level_line(text, "name");
      auto types = top_level_line(text, "model_types");
      auto archs = top_level_line(text, "architectures");
      if (!name || !name->is_string() || !types || !archs) {
        auto doc = nlohmann::json::parse(text);  // not in the house layout: read it whole
        name = doc.value("name", nlohmann::json());
        types = doc.value("model_types", nlohmann::json());
        archs = doc.value("architectures", nlohmann::json());
      }
      if (!name->is_string()) throw std::logic_error(fmt::format("the embedded description {} has no name", path));
      auto& source = t.state_->sources[name->get<std::string>()];
      source.origin = std::string(path) + " (embedded)";
      source.text = text;
      source.model_types = strings_of(*types);
      source.architectures = strings_of(*archs);
    }
    return t;
  }();
  return table;
}

const Description* ArchitectureTable::by_name(std::string_view name) const { return state_->description(name); }

const Description* ArchitectureTable::for_config(std::string_view model_type, std::string_view architecture) const {
  for (const auto& [name, source] : state_->sources)
    for (const auto& t : source.model_types)
      if (!model_type.empty() && t == model_type) return state_->description(name);
  for (const auto& [name, source] : state_->sources)
    for (const auto& a : source.architectures)
      if (!architecture.empty() && a == architecture) return state_->description(name);
  return nullptr;
}

std::vector<const Description*> ArchitectureTable::all() const {
  std::vector<const Description*> out;
  for (const auto& [name, source] : state_->sources) out.push_back(state_->description(name));
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> ArchitectureTable::claims() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& [name, source] : state_->sources) {
    auto both = source.model_types;
    for (const auto& a : source.architectures) both.push_back("architecture:" + a);
    out.emplace_back(name, std::move(both));
  }
  return out;
}

}  // namespace preflight::arch
