// The two-precision reconstruction (seed 001): why the checkpoint is as large
// as it is. Quantized weights at their effective bits (MXFP4: 4 + 8/32 = 4.25),
// everything else at its stored width, and how that squares with the active
// parameter count. All figures are derived from the manifest.
#pragma once

#include <vector>

#include "core/figure.h"
#include "model/inventory.h"
#include "model/model_spec.h"

namespace preflight {

std::vector<Figure> two_precision_reconstruction(const ModelSpec& model, const Inventory& inv);

}  // namespace preflight
