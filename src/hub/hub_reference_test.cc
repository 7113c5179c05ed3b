// Hub ids as MODEL and the Hub's environment conventions: table-driven.
#include "hub/hub_reference.h"

#include <gtest/gtest.h>

#include <map>

#include "hub/hub_settings.h"

namespace preflight {
namespace {

TEST(HubReference, AcceptsHubIdsWithRevisions) {
  struct Case {
    const char* text;
    const char* repo;
    const char* revision;
    bool given;
  };
  for (const auto& c : std::vector<Case>{
           {"moonshotai/Kimi-K3", "moonshotai/Kimi-K3", "main", false},
           {"moonshotai/Kimi-K3@9f62e4e9fffbd0a83ddd60e1c209d828994b3569", "moonshotai/Kimi-K3",
            "9f62e4e9fffbd0a83ddd60e1c209d828994b3569", true},
           {"hf://deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3", "main", false},
           {"hf://Qwen/Qwen3-0.6B@v1.0", "Qwen/Qwen3-0.6B", "v1.0", true},
           {"openai/gpt-oss-120b@refs/pr/12", "openai/gpt-oss-120b", "refs/pr/12", true},
           {"meta-llama/Llama-3.1-8B_Instruct", "meta-llama/Llama-3.1-8B_Instruct", "main", false},
       }) {
    const auto r = parse_hub_reference(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().to_string();
    ASSERT_TRUE(r->has_value()) << c.text;
    EXPECT_EQ((*r)->repo_id, c.repo) << c.text;
    EXPECT_EQ((*r)->revision, c.revision) << c.text;
    EXPECT_EQ((*r)->revision_given, c.given) << c.text;
  }
}

TEST(HubReference, CatalogueNamesAndPathsAreNotHubIds) {
  for (const char* text : {"kimi-k3", "deepseek-v3", "./Kimi-K3", "/models/Kimi-K3/config.json", "models/x/config.json",
                           "../other/models", "a\\\\b", "-bad/name", "org/na..me", ""}) {
    const auto r = parse_hub_reference(text);
    ASSERT_TRUE(r.ok()) << text << ": " << r.error().to_string();
    EXPECT_FALSE(r->has_value()) << text;
  }
}

TEST(HubReference, MalformedClaimsAreErrors) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const auto& c : std::vector<Case>{
           {"hf://kimi-k3", "expected a hub id ORG/NAME[@REVISION]"},
           {"hf://a/b/c", "expected a hub id ORG/NAME[@REVISION]"},
           {"moonshotai/Kimi K3@main", "the name 'Kimi K3' has ' '"},
           {"moonshotai/Kimi-K3@", "the revision after '@' is empty"},
           {"moonshotai/Kimi-K3@a b", "the revision 'a b' has ' '"},
           {"hf://-x/y", "the namespace '-x' starts or ends with '-' or '.'"},
           {"hf://x--y/z", "contains '--' or '..'"},
           {"moonshotai/Kimi-K3@../../etc", "is not a branch, tag or commit name"},
       }) {
    const auto r = parse_hub_reference(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().origin, "MODEL");
    EXPECT_NE(r.error().message.find(c.message), std::string::npos) << c.text << ": " << r.error().message;
  }
  const auto long_id = "hf://org/" + std::string(100, 'n');
  EXPECT_FALSE(parse_hub_reference(long_id).ok());
}

TEST(HubReference, CommitIds) {
  EXPECT_TRUE(is_commit_id("9f62e4e9fffbd0a83ddd60e1c209d828994b3569"));
  EXPECT_FALSE(is_commit_id("9f62e4e"));
  EXPECT_FALSE(is_commit_id("main"));
  EXPECT_FALSE(is_commit_id("9F62E4E9FFFBD0A83DDD60E1C209D828994B3569"));  // the Hub writes lower case
}

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(HubSettings, DefaultsFollowHuggingFaceConventions) {
  const auto s = hub_settings(env_of({{"HOME", "/home/u"}})).value();
  EXPECT_EQ(s.endpoint, "https://huggingface.co");
  EXPECT_FALSE(s.offline);
  EXPECT_FALSE(s.token.has_value());
  EXPECT_EQ(s.token_file, "/home/u/.cache/huggingface/token");
  EXPECT_EQ(s.cache_root, "/home/u/.cache/preflight/hub");
}

TEST(HubSettings, EnvironmentOverrides) {
  struct Case {
    std::map<std::string, std::string> env;
    std::string endpoint, token_file, cache_root;
    bool offline;
  };
  for (const auto& c : std::vector<Case>{
           {{{"HOME", "/h"}, {"HF_ENDPOINT", "https://hf-mirror.com/"}},
            "https://hf-mirror.com",
            "/h/.cache/huggingface/token",
            "/h/.cache/preflight/hub",
            false},
           {{{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}},
            "https://huggingface.co",
            "/x/huggingface/token",
            "/x/preflight/hub",
            false},
           {{{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HF_HUB_OFFLINE", "1"}},
            "https://huggingface.co",
            "/hf/token",
            "/h/.cache/preflight/hub",
            true},
           {{{"HOME", "/h"}, {"HF_TOKEN_PATH", "/t/tok"}, {"HF_HUB_OFFLINE", "yes"}},
            "https://huggingface.co",
            "/t/tok",
            "/h/.cache/preflight/hub",
            true},
           {{{"HOME", "/h"}, {"HF_HUB_OFFLINE", "0"}, {"HF_ENDPOINT", ""}},
            "https://huggingface.co",
            "/h/.cache/huggingface/token",
            "/h/.cache/preflight/hub",
            false},
       }) {
    const auto s = hub_settings(env_of(c.env)).value();
    EXPECT_EQ(s.endpoint, c.endpoint);
    EXPECT_EQ(s.token_file, c.token_file);
    EXPECT_EQ(s.cache_root, c.cache_root);
    EXPECT_EQ(s.offline, c.offline);
  }
  EXPECT_EQ(hub_settings(env_of({{"HF_TOKEN", "hf_abc"}})).value().token.value_or(""), "hf_abc");
  for (const char* yes : {"1", "ON", "yes", "True"}) EXPECT_TRUE(env_is_true(std::string(yes))) << yes;
  for (const char* no : {"0", "off", "", "2"}) EXPECT_FALSE(env_is_true(std::string(no))) << no;
}

// libcurl opens file://, ftp://, gopher:// and more: an endpoint other than
// http(s) would read local files or reach other services.
TEST(HubSettings, EndpointMustBeHttpOrHttps) {
  struct Case {
    const char* endpoint;
    const char* error;  // "" when accepted
  };
  for (const auto& c : std::vector<Case>{
           {"https://huggingface.co", ""},
           {"HTTP://127.0.0.1:8080/", ""},
           {"http://[::1]:9000", ""},
           {"file:///etc", "HF_ENDPOINT: expected an http:// or https:// URL, got 'file:///etc'"},
           {"ftp://mirror", "HF_ENDPOINT: expected an http:// or https:// URL, got 'ftp://mirror'"},
           {"gopher://x", "HF_ENDPOINT: expected an http:// or https:// URL, got 'gopher://x'"},
           {"huggingface.co", "HF_ENDPOINT: expected an http:// or https:// URL, got 'huggingface.co'"},
           {"https://", "HF_ENDPOINT: expected a host after the scheme, got 'https://'"},
           {"http:///etc/passwd", "HF_ENDPOINT: expected a host after the scheme, got 'http:///etc/passwd'"},
           {"https://hf.co/a b", "HF_ENDPOINT: a URL holds no spaces or control characters, got 'https://hf.co/a b'"},
           // A header injected through the URL, and a newline: control characters are refused and echoed escaped.
           {"https://hf.co\r\nX-Injected: y",
            "HF_ENDPOINT: a URL holds no spaces or control characters, got 'https://hf.co\\r\\nX-Injected: y'"},
           {"https://hf.co\n", "HF_ENDPOINT: a URL holds no spaces or control characters, got 'https://hf.co\\n'"},
       }) {
    const auto s = hub_settings(env_of({{"HOME", "/h"}, {"HF_ENDPOINT", c.endpoint}}));
    if (std::string(c.error).empty())
      EXPECT_TRUE(s.ok()) << c.endpoint << ": " << s.error().to_string();
    else {
      ASSERT_FALSE(s.ok()) << c.endpoint;
      EXPECT_EQ(s.error().to_string(), c.error);
    }
  }
}

TEST(HubSettings, TransferLimitsAreCheckedByName) {
  const auto defaults = hub_transfer_limits(env_of({})).value();
  EXPECT_EQ(defaults.timeout_ms, 60000);
  EXPECT_EQ(defaults.attempts, 5);
  EXPECT_EQ(defaults.concurrency, 16u);
  EXPECT_EQ(defaults.total_s, 300);
  const auto set = hub_transfer_limits(env_of({{"PREFLIGHT_HUB_TIMEOUT_MS", "2000"},
                                               {"PREFLIGHT_HUB_ATTEMPTS", "10"},
                                               {"PREFLIGHT_HUB_CONCURRENCY", "1"},
                                               {"PREFLIGHT_HUB_TOTAL_S", "3600"}}))
                       .value();
  EXPECT_EQ(set.timeout_ms, 2000);
  EXPECT_EQ(set.attempts, 10);
  EXPECT_EQ(set.concurrency, 1u);
  EXPECT_EQ(set.total_s, 3600);
  struct Case {
    const char* name;
    const char* value;
    const char* error;
  };
  for (const auto& c : std::vector<Case>{
           {"PREFLIGHT_HUB_ATTEMPTS", "100", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got '100'"},
           {"PREFLIGHT_HUB_ATTEMPTS", "abc", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got 'abc'"},
           {"PREFLIGHT_HUB_ATTEMPTS", "0", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got '0'"},
           {"PREFLIGHT_HUB_ATTEMPTS", "-1", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got '-1'"},
           {"PREFLIGHT_HUB_ATTEMPTS", "", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got ''"},
           {"PREFLIGHT_HUB_ATTEMPTS", "3 ", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got '3 '"},
           {"PREFLIGHT_HUB_TIMEOUT_MS", "0",
            "PREFLIGHT_HUB_TIMEOUT_MS: expected a whole number from 1 to 600000, got '0'"},
           {"PREFLIGHT_HUB_TIMEOUT_MS", "1e3",
            "PREFLIGHT_HUB_TIMEOUT_MS: expected a whole number from 1 to 600000, got '1e3'"},
           {"PREFLIGHT_HUB_CONCURRENCY", "65",
            "PREFLIGHT_HUB_CONCURRENCY: expected a whole number from 1 to 64, got '65'"},
           {"PREFLIGHT_HUB_TOTAL_S", "99999999999999999999",
            "PREFLIGHT_HUB_TOTAL_S: expected a whole number from 1 to 3600, got '99999999999999999999'"},
       }) {
    const auto limits = hub_transfer_limits(env_of({{c.name, c.value}}));
    ASSERT_FALSE(limits.ok()) << c.name << "=" << c.value;
    EXPECT_EQ(limits.error().to_string(), c.error);
  }
}

TEST(HubSettings, UrlsAndCacheFolders) {
  const auto s = hub_settings(env_of({{"HOME", "/h"}})).value();
  HubReference ref{"moonshotai/Kimi-K3", "refs/pr/1", true};
  EXPECT_EQ(listing_url(s, ref),
            "https://huggingface.co/api/models/moonshotai/Kimi-K3/revision/refs%2Fpr%2F1?blobs=true");
  EXPECT_EQ(
      file_url(s, "moonshotai/Kimi-K3", "9f62e4e9fffbd0a83ddd60e1c209d828994b3569", "model-00001-of-00096.safetensors"),
      "https://huggingface.co/moonshotai/Kimi-K3/resolve/9f62e4e9fffbd0a83ddd60e1c209d828994b3569/"
      "model-00001-of-00096.safetensors");
  EXPECT_EQ(file_url(s, "a/b", "c", "sub dir/x y.json"), "https://huggingface.co/a/b/resolve/c/sub%20dir/x%20y.json");
  EXPECT_EQ(commit_cache_dir(s, "moonshotai/Kimi-K3", "9f62"),
            "/h/.cache/preflight/hub/models--moonshotai--Kimi-K3/9f62");
}

}  // namespace
}  // namespace preflight
