// "Did you mean" for catalogue names: the nearest known name by edit distance.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace preflight {

std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate (case-insensitive), or "" when none is reasonably close.
std::string nearest_name(std::string_view wanted, const std::vector<std::string>& candidates);

// "unknown model 'kimi-k4'; did you mean 'kimi-k3'? (preflight models lists the catalogue)"
std::string unknown_name_message(std::string_view what, std::string_view wanted,
                                 const std::vector<std::string>& candidates, std::string_view list_command);

}  // namespace preflight
