#include "hub/hub_reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace preflight {

namespace {

constexpr std::size_t kMaxRepoIdLength = 96;

// Why `part` (a namespace or a name) is not a valid id part, or empty when it is.
std::string part_problem(std::string_view part, std::string_view what) {
  if (part.empty()) return fmt::format("the {} is empty", what);
  for (char c : part)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return fmt::format("the {} '{}' has '{}' (allowed: letters, digits, '.', '_', '-')", what, part, c);
  if (part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.')
    return fmt::format("the {} '{}' starts or ends with '-' or '.'", what, part);
  if (part.find("--") != std::string_view::npos || part.find("..") != std::string_view::npos)
    return fmt::format("the {} '{}' contains '--' or '..'", what, part);
  return "";
}

std::string revision_problem(std::string_view rev) {
  if (rev.empty()) return "the revision after '@' is empty";
  for (char c : rev)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/'))
      return fmt::format("the revision '{}' has '{}' (allowed: letters, digits, '.', '_', '-', '/')", rev, c);
  if (rev.find("..") != std::string_view::npos || rev.front() == '/' || rev.back() == '/')
    return fmt::format("the revision '{}' is not a branch, tag or commit name", rev);
  return "";
}

}  // namespace

bool is_commit_id(std::string_view revision) {
  return revision.size() == 40 && std::all_of(revision.begin(), revision.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

Result<std::optional<HubReference>> parse_hub_reference(std::string_view text) {
  constexpr std::string_view kScheme = "hf://";
  const bool scheme = text.substr(0, kScheme.size()) == kScheme;
  const std::string_view rest = scheme ? text.substr(kScheme.size()) : text;
  const auto at = rest.find('@');
  const std::string_view id = rest.substr(0, at);
  // "hf://" or an '@' claims a hub id: a malformed one is an error. Otherwise a
  // text that is not ORG/NAME is a catalogue name or a path, not a hub id.
  const bool claimed = scheme || at != std::string_view::npos;
  const auto reject = [&](const std::string& why) -> Result<std::optional<HubReference>> {
    if (!claimed) return std::optional<HubReference>{};
    return Error{"MODEL", "", fmt::format("'{}': {}", text, why)};
  };
  const auto slash = id.find('/');
  if (slash == std::string_view::npos || id.find('/', slash + 1) != std::string_view::npos ||
      id.find('\\') != std::string_view::npos)
    return reject("expected a hub id ORG/NAME[@REVISION]");
  for (const auto& [part, what] :
       {std::pair{id.substr(0, slash), "namespace"}, std::pair{id.substr(slash + 1), "name"}}) {
    const auto problem = part_problem(part, what);
    if (!problem.empty()) return reject(problem);
  }
  if (id.size() > kMaxRepoIdLength) return reject(fmt::format("a hub id has at most {} characters", kMaxRepoIdLength));
  HubReference ref;
  ref.repo_id = std::string(id);
  if (at != std::string_view::npos) {
    const auto rev = rest.substr(at + 1);
    const auto problem = revision_problem(rev);
    if (!problem.empty()) return reject(problem);
    ref.revision = std::string(rev);
    ref.revision_given = true;
  }
  return std::optional<HubReference>{std::move(ref)};
}

}  // namespace preflight
