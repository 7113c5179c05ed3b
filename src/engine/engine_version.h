// An engine release number ("0.19.0", "0.5", "~0.6.4 (V0)", "0.5.3.post1"), parsed once where
// it enters preflight (--engine-version, a recipe's min_version, a profile's
// default) and compared as numbers everywhere after.
#pragma once

#include <compare>
#include <string>
#include <tuple>

#include "core/result.h"

namespace preflight {

struct EngineVersion {
  int major = 0, minor = 0, patch = 0;
  int post = 0;        // a post release (SGLang's "0.5.3.post1"): after the release it follows
  std::string text{};  // as written ("0.19", "0.27.0"): what reports print; not compared

  auto operator<=>(const EngineVersion& o) const {
    return std::tie(major, minor, patch, post) <=> std::tie(o.major, o.minor, o.patch, o.post);
  }
  bool operator==(const EngineVersion& o) const {
    return std::tie(major, minor, patch, post) == std::tie(o.major, o.minor, o.patch, o.post);
  }
  // The text as written, else "major.minor.patch".
  std::string str() const;
};

// Skips words before the first digit ("nightly ~0.11.1"), needs at least
// major.minor, reads a post release after the patch ("0.5.3.post1", "0.5.3post2"),
// ignores a fourth number or another suffix ("0.10.1.1", "0.19.0rc1"). The error
// names `origin` and quotes the text on one line.
Result<EngineVersion> parse_engine_version(const std::string& text, const std::string& origin);

}  // namespace preflight
