// The releases whose rules differ, and what each would log. A person asking
// "will it fit" rarely knows which vLLM or SGLang build will serve it; the
// rules preflight applies change at known releases (data/engines.json: vLLM's
// eras, the release that reads the checkpoint's KV-cache dtype, the first V1
// MLA backend on ROCm; SGLang's DSA eras and KV-cache rule). Sizing once per
// such release gives the spread an unknown version spans, with the releases
// that give its ends.
#pragma once

#include <vector>

#include "engine/engine_options.h"
#include "engine/engine_profile.h"
#include "engine/engine_sizing.h"
#include "engine/engine_version.h"

namespace preflight {

// Every release at which a rule changes, from the first V1 release (vLLM) or
// the first release modelled (SGLang) to the default version, ascending.
std::vector<EngineVersion> modelled_releases(EngineKind kind);

// The range over points (min and max KV tokens and concurrency, the first
// release giving each). Points of releases that would refuse to start are kept
// but do not set the ends, unless every release refuses: then the releases that
// sized a cache before refusing set them (ends_from_refusals). The ends are
// then widened by `accuracy` (a fraction): the sizing's own error on start-ups
// it was not written from, so the range holds what an unknown release logs.
EngineVersionRange summarize_range(std::vector<EngineVersionPoint> points, const StartupAccuracy& accuracy);

}  // namespace preflight
