#include "launch/recipe_catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "core/json_read.h"
#include "embedded_files.h"
#include "model/json_fields.h"

namespace preflight {

int Recipe::specificity() const {
  if (!gpus.empty()) return gpu_count > 0 ? 3 : 2;
  return archs.empty() ? 0 : 1;
}

namespace {

Result<RecipeFlag> parse_flag(const nlohmann::json& node, const std::string& origin, const std::string& pointer) {
  if (!node.is_object()) return Error{origin, pointer, "expected an object"};
  JsonFields f(node, origin, pointer);
  RecipeFlag flag;
  auto name = f.string("flag");
  if (!name) return name.error();
  if (name->size() < 3 || name->rfind("--", 0) != 0 || name->find(' ') != std::string::npos)
    return f.error("flag", fmt::format("expected an engine flag such as --max-model-len, got '{}'", *name));
  flag.flag = *name;
  if (f.has("value")) {
    auto value = f.string("value");
    if (!value) return value.error();
    if (value->empty()) return f.error("value", "expected a non-empty string (leave 'value' out for a switch)");
    flag.value = *value;
  }
  auto source = f.string_or("source", "");
  if (!source) return source.error();
  flag.source = *source;
  return flag;
}

Result<Recipe> parse_recipe(const nlohmann::json& node, const std::string& origin, const std::string& pointer) {
  if (!node.is_object()) return Error{origin, pointer, "expected an object"};
  JsonFields f(node, origin, pointer);
  Recipe r;
  for (auto [key, target, required] : {std::tuple<std::string_view, std::string*, bool>{"id", &r.id, true},
                                       {"label", &r.label, true},
                                       {"source", &r.source, true}}) {
    auto v = required ? f.string(key) : f.string_or(key, "");
    if (!v) return v.error();
    if (required && v->empty()) return f.error(key, "expected a non-empty string");
    *target = *v;
  }
  auto min_version = f.string_or("min_version", "");
  if (!min_version) return min_version.error();
  if (!min_version->empty()) {
    auto v = parse_engine_version(*min_version, origin);
    if (!v) return f.error("min_version", v.error().message);
    r.min_version = std::move(v).value();
  }
  auto engine = f.string("engine");
  if (!engine) return engine.error();
  if (*engine == "vllm")
    r.engine = EngineKind::vllm;
  else if (*engine == "sglang")
    r.engine = EngineKind::sglang;
  else
    return f.error("engine", fmt::format("expected vllm or sglang, got '{}'", *engine));
  for (auto [key, target] : {std::pair<std::string_view, std::vector<std::string>*>{"models", &r.models},
                             {"families", &r.families},
                             {"arch", &r.archs},
                             {"gpus", &r.gpus},
                             {"kv_cache_dtype", &r.kv_dtypes}}) {
    auto v = f.string_list(key);
    if (!v) return v.error();
    *target = *v;
  }
  if (r.models.empty() && r.families.empty()) return f.error("models", "a recipe names at least one model or family");
  if (f.has("gpu_count")) {
    auto count = f.positive_integer("gpu_count");
    if (!count) return count.error();
    if (r.gpus.empty()) return f.error("gpu_count", "a GPU count needs the accelerators it counts ('gpus')");
    r.gpu_count = *count;
  }
  if (!node.contains("flags") || !node["flags"].is_array() || node["flags"].empty())
    return f.error("flags", "expected a non-empty list of flags");
  for (std::size_t i = 0; i < node["flags"].size(); ++i) {
    auto flag = parse_flag(node["flags"][i], origin, fmt::format("{}/flags/{}", pointer, i));
    if (!flag) return flag.error();
    for (const auto& seen : r.flags)
      if (seen.flag == flag->flag)
        return Error{origin, fmt::format("{}/flags/{}", pointer, i), fmt::format("{} is given twice", flag->flag)};
    r.flags.push_back(std::move(flag).value());
  }
  if (node.contains("env")) {
    if (!node["env"].is_object()) return f.error("env", "expected an object of strings");
    for (const auto& [key, value] : node["env"].items()) {
      if (!value.is_string()) return f.error("env", fmt::format("{}: expected a string, got {}", key, show(value)));
      r.env.emplace_back(key, value.get<std::string>());
    }
  }
  return r;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

Result<std::vector<Recipe>> parse_recipes(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  const auto parsed = parse_json(json_text, origin);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object()) return Error{where, "", "not a JSON object"};
  if (!doc.contains("recipes") || !doc["recipes"].is_array()) return Error{where, "/recipes", "missing list"};
  std::vector<Recipe> out;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < doc["recipes"].size(); ++i) {
    const auto pointer = fmt::format("/recipes/{}", i);
    auto recipe = parse_recipe(doc["recipes"][i], where, pointer);
    if (!recipe) return recipe.error();
    if (!ids.insert(recipe->id).second)
      return Error{where, pointer + "/id", fmt::format("recipe id '{}' is used twice", recipe->id)};
    out.push_back(std::move(recipe).value());
  }
  return out;
}

const std::vector<Recipe>& embedded_recipes() {
  static const std::vector<Recipe> kRecipes = [] {
    auto parsed =
        parse_recipes(embedded::embedded_file("data/launch/recipes.json"), "data/launch/recipes.json (embedded)");
    if (!parsed) throw std::logic_error("embedded launch recipes are invalid: " + parsed.error().to_string());
    return std::move(parsed).value();
  }();
  return kRecipes;
}

std::vector<Recipe> select_recipes(const std::vector<Recipe>& recipes, const RecipeTarget& t) {
  std::vector<Recipe> out;
  for (const auto& r : recipes) {
    if (r.engine != t.engine) continue;
    const bool model = (!t.model_name.empty() && contains(r.models, t.model_name)) ||
                       (!t.family.empty() && contains(r.families, t.family));
    if (!model) continue;
    if (!r.archs.empty() && (t.arch.empty() || !contains(r.archs, t.arch))) continue;
    if (!r.gpus.empty() && !contains(r.gpus, t.gpu_id)) continue;
    if (r.gpu_count > 0 && r.gpu_count != t.gpu_count) continue;
    if (!r.kv_dtypes.empty() && !contains(r.kv_dtypes, t.kv_dtype)) continue;
    out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Recipe& a, const Recipe& b) { return a.specificity() < b.specificity(); });
  return out;
}

std::optional<RequiredVersion> required_version(const std::vector<Recipe>& selected) {
  std::optional<RequiredVersion> out;
  for (const auto& r : selected) {
    if (!r.min_version) continue;
    if (!out || out->version < *r.min_version) out = RequiredVersion{*r.min_version, r.label};
  }
  return out;
}

}  // namespace preflight
