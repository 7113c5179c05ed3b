#include "request_cost.h"

#include <gtest/gtest.h>

#include <string>

namespace preflight::cli {
namespace {

std::string get(const std::string& target) { return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"; }
std::string post(const std::string& path, const std::string& body, const std::string& type = "application/json") {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(RequestCost, SolversTensorListsAndHubIdsAreHeavy) {
  struct Case {
    std::string request;
    bool hub_allowed;
    bool heavy;
  };
  for (const auto& c : std::vector<Case>{
           {get("/api/plan?gpus=8xH100&context=128K"), true, false},
           {get("/"), true, false},
           {get("/api/gpus"), true, false},
           {get("/api/sweep?gpu=H100&counts=8..64"), false, true},
           {post("/api/fit", R"({"context": "32K"})"), false, true},
           {get("/api/max?gpus=8xB300&solve=context"), false, true},
           {get("/api/inspect?model=kimi-k3"), true, false},
           {get("/api/inspect?model=kimi-k3&tensors=true"), false, true},
           {post("/api/inspect", R"({"model": "kimi-k3", "tensors" : true})"), false, true},
           {post("/api/inspect", R"({"model": "kimi-k3", "tensors": false})"), false, false},
           {get("/api/plan?model=Qwen%2FQwen3-0.6B%40main&gpus=1xH100"), true, true},
           {get("/api/plan?model=Qwen%2FQwen3-0.6B%40main&gpus=1xH100"), false, false},
           {post("/api/plan", R"({"gpus": "1xH100", "model": "org/name@main"})"), true, true},
           {post("/api/plan", R"({"gpus": "1xH100", "draft": "org/draft"})"), true, true},
           {post("/api/plan", "gpus=1xH100&model=org%2fname", "application/x-www-form-urlencoded"), true, true},
           {post("/api/plan", R"({"gpus": "1xH100", "model": "qwen3-0.6b"})"), true, false},
           {"garbage", true, false},
           {"", true, false},
       })
    EXPECT_EQ(is_heavy_request(c.request, c.hub_allowed), c.heavy) << c.request;
}

}  // namespace
}  // namespace preflight::cli
