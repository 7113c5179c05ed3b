#include "hub/hub_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace preflight {

bool env_is_true(std::optional<std::string> value) {
  if (!value) return false;
  std::string v = *value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return v == "1" || v == "ON" || v == "YES" || v == "TRUE";
}

HubSettings hub_settings(const EnvLookup& env) {
  HubSettings s;
  const auto nonempty = [&](std::string_view name) -> std::optional<std::string> {
    auto v = env(name);
    if (v && v->empty()) return std::nullopt;
    return v;
  };
  if (auto e = nonempty("HF_ENDPOINT")) {
    s.endpoint = *e;
    while (!s.endpoint.empty() && s.endpoint.back() == '/') s.endpoint.pop_back();
  }
  s.offline = env_is_true(env("HF_HUB_OFFLINE"));
  s.token = nonempty("HF_TOKEN");
  const auto home = nonempty("HOME").value_or("");
  const auto xdg_cache = nonempty("XDG_CACHE_HOME").value_or(home + "/.cache");
  const auto hf_home = nonempty("HF_HOME").value_or(xdg_cache + "/huggingface");
  s.token_file = nonempty("HF_TOKEN_PATH").value_or(hf_home + "/token");
  s.cache_root = xdg_cache + "/preflight/hub";
  return s;
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) out.push_back(static_cast<char>(c));
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string listing_url(const HubSettings& s, const HubReference& ref) {
  return fmt::format("{}/api/models/{}/revision/{}?blobs=true", s.endpoint, ref.repo_id, percent_encode(ref.revision, false));
}

std::string file_url(const HubSettings& s, std::string_view repo_id, std::string_view commit, std::string_view path) {
  return fmt::format("{}/{}/resolve/{}/{}", s.endpoint, repo_id, percent_encode(commit, false), percent_encode(path, true));
}

std::string commit_cache_dir(const HubSettings& s, std::string_view repo_id, std::string_view commit) {
  std::string folder = "models--" + std::string(repo_id);
  for (std::size_t i = 0; (i = folder.find('/', i)) != std::string::npos;) folder.replace(i, 1, "--");
  return fmt::format("{}/{}/{}", s.cache_root, folder, commit);
}

}  // namespace preflight
