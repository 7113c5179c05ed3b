// Which web requests are expensive, from their raw bytes, before a worker takes
// them (http_server.h's two lanes): a solver grid (fit, max, sweep), the whole
// tensor list of inspect, and, under serve --hub, a model or draft named by hub
// id (a fetch that may take the request's whole deadline). Everything else (a
// plan, explain, launch, the catalogues, the page) is cheap and gets a worker
// even while every general worker is busy with heavy requests.
// A guess from the bytes, never a decision about the answer: a request wrongly
// called cheap still runs under its deadline.
#pragma once

#include <string_view>

namespace preflight::cli {

bool is_heavy_request(std::string_view raw_request, bool hub_allowed);

}  // namespace preflight::cli
