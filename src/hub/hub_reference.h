// Hugging Face Hub model ids as MODEL: `org/name`,
// `org/name@REVISION` (a branch, tag or commit) and `hf://org/name[@REVISION]`.
//
// Repository ids follow the Hub's rules (huggingface_hub validate_repo_id):
// one '/' between a namespace and a name, each of [A-Za-z0-9._-], not starting
// or ending with '-' or '.', no "--" or "..", at most 96 characters. A revision
// may contain '/' (refs/pr/1). Pure: whether a text is a local path or a
// catalogue name is the caller's question, asked first.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace preflight {

struct HubReference {
  std::string repo_id;            // "moonshotai/Kimi-K3"
  std::string revision = "main";  // as given; "main" when none was
  bool revision_given = false;
};

// nullopt: the text does not look like a hub id (no "hf://" and not org/name),
// so it is a catalogue name or a path. An Error: it claims to be one ("hf://",
// or org/name with '@') but is malformed; the message names the rule broken.
Result<std::optional<HubReference>> parse_hub_reference(std::string_view text);

// A full 40-hex-digit commit id: immutable, so what is fetched for it can be cached forever.
bool is_commit_id(std::string_view revision);

}  // namespace preflight
