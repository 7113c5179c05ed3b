#include "hub/hub_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <type_traits>

#include "core/text.h"

namespace preflight {

bool env_is_true(std::optional<std::string> value) {
  if (!value) return false;
  std::string v = *value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return v == "1" || v == "ON" || v == "YES" || v == "TRUE";
}

namespace {

// Why an endpoint is unusable ("" when it is fine): only http and https reach
// the network the way the Hub does; a host must follow the scheme.
std::string endpoint_problem(std::string_view url) {
  const auto lower = to_lower(url.substr(0, 8));
  std::size_t host = 0;
  if (lower.starts_with("https://"))
    host = 8;
  else if (lower.starts_with("http://"))
    host = 7;
  else
    return "expected an http:// or https:// URL";
  if (host >= url.size() || url[host] == '/') return "expected a host after the scheme";
  for (char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7F) return "a URL holds no spaces or control characters";
  }
  return "";
}

}  // namespace

Result<HubSettings> hub_settings(const EnvLookup& env) {
  HubSettings s;
  const auto nonempty = [&](std::string_view name) -> std::optional<std::string> {
    auto v = env(name);
    if (v && v->empty()) return std::nullopt;
    return v;
  };
  if (auto e = nonempty("HF_ENDPOINT")) {
    if (auto problem = endpoint_problem(*e); !problem.empty())
      return Error{"HF_ENDPOINT", "", fmt::format("{}, got {}", problem, echo(*e))};
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

Result<HubTransferLimits> hub_transfer_limits(const EnvLookup& env) {
  HubTransferLimits limits;
  const auto read = [&](const char* name, long low, long high, auto& out) -> std::optional<Error> {
    const auto v = env(name);
    if (!v) return std::nullopt;
    long n = 0;
    const auto* end = v->data() + v->size();
    auto [ptr, ec] = std::from_chars(v->data(), end, n);
    if (v->empty() || ec != std::errc() || ptr != end || n < low || n > high)
      return Error{name, "", fmt::format("expected a whole number from {} to {}, got {}", low, high, echo(*v))};
    out = static_cast<std::remove_reference_t<decltype(out)>>(n);
    return std::nullopt;
  };
  if (auto e = read("PREFLIGHT_HUB_TIMEOUT_MS", 1, 600000, limits.timeout_ms)) return *e;
  if (auto e = read("PREFLIGHT_HUB_ATTEMPTS", 1, 10, limits.attempts)) return *e;
  if (auto e = read("PREFLIGHT_HUB_CONCURRENCY", 1, 64, limits.concurrency)) return *e;
  if (auto e = read("PREFLIGHT_HUB_TOTAL_S", 1, 3600, limits.total_s)) return *e;
  if (auto e = read("PREFLIGHT_HUB_STALL_S", 1, 600, limits.stall_s)) return *e;
  return limits;
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/'))
      out.push_back(static_cast<char>(c));
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string listing_url(const HubSettings& s, const HubReference& ref) {
  return fmt::format("{}/api/models/{}/revision/{}?blobs=true", s.endpoint, ref.repo_id,
                     percent_encode(ref.revision, false));
}

std::string file_url(const HubSettings& s, std::string_view repo_id, std::string_view commit, std::string_view path) {
  return fmt::format("{}/{}/resolve/{}/{}", s.endpoint, repo_id, percent_encode(commit, false),
                     percent_encode(path, true));
}

std::string commit_cache_dir(const HubSettings& s, std::string_view repo_id, std::string_view commit) {
  std::string folder = "models--" + std::string(repo_id);
  for (std::size_t i = 0; (i = folder.find('/', i)) != std::string::npos;) folder.replace(i, 1, "--");
  return fmt::format("{}/{}/{}", s.cache_root, folder, commit);
}

}  // namespace preflight
