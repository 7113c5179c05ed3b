// The option table is the one place an option is declared: the CLI's
// sub-commands, the web API's keys, the page's fields and the flag names in
// messages all come from it.
#include "option_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "api.h"
#include "embedded_files.h"
#include "options_transfer.h"

namespace preflight::cli {
namespace {

constexpr Command kAllCommands[] = {kPlan, kExplain, kFit, kMax, kSweep, kLaunch, kInspect, kServe, kCatalogue};

TEST(OptionTable, EveryCommandGetsExactlyItsRows) {
  for (const auto command : kAllCommands) {
    CLI::App app{"test"};
    Options o;
    add_table_options(app, o, command);
    std::set<std::string> expected;
    for (const auto& spec : option_table())
      if (spec.commands & command) expected.insert(std::string(spec.flag));
    std::set<std::string> got;
    for (const auto* option : app.get_options()) {
      const auto name = option->get_name();
      if (name != "--help") got.insert(name == "MODEL" ? name : name);
    }
    EXPECT_EQ(got, expected) << "command bit " << command;
  }
}

TEST(OptionTable, FlagsAreUniqueAndKeysFollowFromThem) {
  std::set<std::string> flags, keys;
  for (const auto& spec : option_table()) {
    EXPECT_TRUE(flags.insert(std::string(spec.flag)).second) << spec.flag << " declared twice";
    if (spec.api != ApiUse::none) {
      EXPECT_TRUE(keys.insert(api_key(spec)).second) << api_key(spec);
    }
    EXPECT_FALSE(spec.help.empty()) << spec.flag;
    EXPECT_NE(spec.commands, 0u) << spec.flag;
  }
  EXPECT_EQ(api_key(*option_for_key("prefill_gpus")), "prefill_gpus");
  EXPECT_STREQ(flag_of(&Options::prefill_gpus), "--prefill-gpus");
  EXPECT_STREQ(flag_of(&Options::gpu_families), "--gpu");
  EXPECT_STREQ(flag_of(&Options::enforce_eager), "--enforce-eager");
}

// Each key the table gives the API lands in its member; the others are refused.
TEST(OptionTable, TheApiTakesTheTablesKeys) {
  for (const auto& spec : option_table()) {
    const auto key = api_key(spec);
    if (key == "model") continue;  // the positional: a catalogue name, checked by the API tests
    nlohmann::json body;
    const bool flag = std::holds_alternative<bool Options::*>(spec.member);
    const bool list = std::holds_alternative<std::vector<std::string> Options::*>(spec.member);
    body[key] = flag ? nlohmann::json(true) : list ? nlohmann::json::array({"x", "y"}) : nlohmann::json("x");
    auto o = options_from_json(body);
    switch (spec.api) {
      case ApiUse::none:
        ASSERT_FALSE(o.ok()) << key;
        EXPECT_NE(o.error().to_string().find("unknown parameter"), std::string::npos) << key;
        break;
      case ApiUse::refused:
        ASSERT_FALSE(o.ok()) << key;
        EXPECT_EQ(o.error().to_string().find(spec.api_refusal) != std::string::npos, true) << key;
        break;
      case ApiUse::ignored:
        EXPECT_TRUE(o.ok()) << key;
        break;
      case ApiUse::value:
        ASSERT_TRUE(o.ok()) << key << ": " << o.error().to_string();
        if (flag)
          EXPECT_TRUE(o.value().*std::get<bool Options::*>(spec.member)) << key;
        else if (list)
          EXPECT_EQ(o.value().*std::get<std::vector<std::string> Options::*>(spec.member),
                    (std::vector<std::string>{"x", "y"}))
              << key;
        else
          EXPECT_EQ(o.value().*std::get<std::string Options::*>(spec.member), "x") << key;
        break;
    }
  }
}

// The page's fields are API keys of the table (or the page's own GPU family and count, which make `gpus`).
TEST(OptionTable, ThePagesFieldsAreTableKeys) {
  const std::string js(embedded::embedded_file("web/app.js"));
  const std::string html(embedded::embedded_file("web/index.html"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(js, m, std::regex(R"(const FIELDS = \[([^\]]*)\])")));
  const std::string list = m[1];
  std::size_t fields = 0;
  const std::regex quoted(R"re("([a-z_]+)")re");
  for (std::sregex_iterator it(list.begin(), list.end(), quoted), end; it != end; ++it) {
    const std::string field = (*it)[1];
    ++fields;
    EXPECT_NE(html.find("id=\"" + field + "\""), std::string::npos) << field << " has no input on the page";
    if (field == "gpu" || field == "count") continue;
    const auto* spec = option_for_key(field);
    ASSERT_NE(spec, nullptr) << field << " is not an API key of the option table";
    EXPECT_EQ(spec->api, ApiUse::value) << field;
  }
  EXPECT_GE(fields, 20u);
}

// Outside the table, app/ names options through flag_of, never a literal.
TEST(OptionTable, NoFlagIsSpelledTwiceInTheFrontEnds) {
  std::set<std::string> flags;
  for (const auto& spec : option_table()) flags.insert(std::string(spec.flag));
  const std::filesystem::path app = std::filesystem::path(PREFLIGHT_SOURCE_DIR) / "app";
  std::size_t files = 0;
  const std::regex literal(R"re("(--[a-z0-9-]+)")re");
  for (const auto& entry : std::filesystem::directory_iterator(app)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("option_table") || name.ends_with("_test.cc")) continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), literal), end; it != end; ++it)
      EXPECT_EQ(flags.count((*it)[1]), 0u) << name << " spells " << (*it)[1] << ": use flag_of(&Options::...)";
  }
  EXPECT_GT(files, 10u);
}

}  // namespace
}  // namespace preflight::cli

namespace preflight::cli {
namespace {

// A line parsed with only the options it names declared (main.cc's first try)
// fills Options exactly as with every option declared, or fails (main.cc then
// parses again with every option). Compared through options_to_transfer, which
// writes every member.
TEST(OptionTable, DeclaringOnlyTheNamedOptionsParsesTheSame) {
  const std::vector<std::vector<const char*>> lines = {
      {"plan"},
      {"plan", "--gpus", "8xB300", "--context", "1M"},
      {"plan", "kimi-k3", "--gpus=16xH200", "--context=128K", "--concurrency", "8", "--format", "json"},
      {"plan", "--prefill-gpus", "8xB300", "--decode-gpus", "16xH200", "--context", "128K"},
      {"fit", "deepseek-v3", "--gpu", "H100", "--gpu", "B300", "--ttft", "2s"},
      {"sweep", "--counts", "8..64", "--gpu", "H100", "H200"},
      {"max", "--gpus", "8xB300", "--solve", "context"},
      {"launch", "--gpus", "8xB300", "--engine", "vllm", "--enforce-eager"},
      {"inspect", "kimi-k3", "--tensors", "--no-cache"},
      {"plan", "--", "--gpus"},
      {"plan", "--gpus", "8xH100", "--contxt", "1M"},  // unknown: both fail
  };
  const std::pair<const char*, Command> commands[] = {{"plan", kPlan}, {"fit", kFit},       {"sweep", kSweep},
                                                      {"max", kMax},   {"launch", kLaunch}, {"inspect", kInspect}};
  int lazy_parsed = 0;
  for (const auto& line : lines) {
    Command command = kPlan;
    for (const auto& [name, bit] : commands)
      if (std::string_view(line[0]) == name) command = bit;
    std::vector<const char*> argv = {"preflight"};
    argv.insert(argv.end(), line.begin() + 1, line.end());
    const auto parse = [&](const std::vector<std::string_view>* only, std::string& out) {
      CLI::App app{"test"};
      Options o;
      add_table_options(app, o, command, only);
      try {
        app.parse(static_cast<int>(argv.size()), argv.data());
      } catch (const CLI::Error&) {
        return false;
      }
      out = options_to_transfer(o);
      return true;
    };
    const auto given = flags_on_line(static_cast<int>(argv.size()), argv.data());
    ASSERT_TRUE(given.has_value()) << line[0];
    std::string full, lazy;
    const bool full_ok = parse(nullptr, full);
    if (parse(&*given, lazy)) {
      ++lazy_parsed;
      EXPECT_TRUE(full_ok) << line.size();
      EXPECT_EQ(lazy, full);
    }
  }
  EXPECT_EQ(lazy_parsed, static_cast<int>(lines.size()) - 1);  // all but the unknown option
  const char* help[] = {"preflight", "plan", "--gpus", "8xH100", "-h"};
  EXPECT_FALSE(flags_on_line(5, help).has_value());
  const char* named[] = {"preflight", "plan", "--context=1M", "x", "--", "--gpus"};
  EXPECT_EQ(flags_on_line(6, named), (std::vector<std::string_view>{"--context"}));
}

}  // namespace
}  // namespace preflight::cli
