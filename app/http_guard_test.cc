#include "http_guard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight::cli {
namespace {

TEST(HostPolicy, LoopbackNamesAndTheBoundHostOnly) {
  const auto loopback = host_policy("127.0.0.1", 8080, "laptop");
  struct Case {
    const char* host;
    bool allowed;
  };
  for (const auto& c : std::vector<Case>{
           {"127.0.0.1:8080", true},
           {"localhost:8080", true},
           {"LOCALHOST:8080", true},
           {"[::1]:8080", true},
           {"127.0.0.1:8081", false},         // another port
           {"127.0.0.1", false},              // no port means 80
           {"attacker.example:8080", false},  // DNS rebinding: the page's own name
           {"laptop:8080", false},            // the machine's name only for a wildcard bind
           {"10.0.0.5:8080", false},
           {"", false},
           {"127.0.0.1:8080.evil", false},
           {"[::1:8080", false},
       })
    EXPECT_EQ(host_problem(c.host, loopback).empty(), c.allowed) << c.host;
}

TEST(HostPolicy, HostFlagAddsItsNameAndWildcardsAllowIpLiterals) {
  const auto named = host_policy("planner.internal", 9000, "laptop");
  EXPECT_TRUE(host_problem("planner.internal:9000", named).empty());
  EXPECT_TRUE(host_problem("127.0.0.1:9000", named).empty());
  EXPECT_FALSE(host_problem("10.1.2.3:9000", named).empty());

  const auto v6 = host_policy("::1", 9000, "laptop");
  EXPECT_TRUE(host_problem("[::1]:9000", v6).empty());

  const auto wildcard = host_policy("0.0.0.0", 8080, "Laptop");
  EXPECT_TRUE(host_problem("10.1.2.3:8080", wildcard).empty());
  EXPECT_TRUE(host_problem("[fe80::1]:8080", wildcard).empty());
  EXPECT_TRUE(host_problem("laptop:8080", wildcard).empty());
  EXPECT_FALSE(host_problem("attacker.example:8080", wildcard).empty());  // a name, so possibly rebound

  const auto port80 = host_policy("127.0.0.1", 80, "");
  EXPECT_TRUE(host_problem("localhost", port80).empty());
}

TEST(OriginPolicy, OnlyTheServersOwnOrigin) {
  struct Case {
    const char* origin;
    const char* fetch_site;
    bool allowed;
  };
  for (const auto& c : std::vector<Case>{
           {"", "", true},                       // curl, scripts, same-origin GET
           {"http://127.0.0.1:8080", "", true},  // the page's own fetch
           {"HTTP://127.0.0.1:8080", "same-origin", true},
           {"", "same-origin", true},
           {"", "none", true},  // typed into the address bar
           {"https://attacker.example", "", false},
           {"http://127.0.0.1:8081", "", false},
           {"null", "", false},        // sandboxed frames, file: pages
           {"", "cross-site", false},  // a cross-site form post in a browser that hides Origin
           {"http://127.0.0.1:8080", "cross-site", false},
       })
    EXPECT_EQ(origin_problem(c.origin, c.fetch_site, "127.0.0.1:8080").empty(), c.allowed)
        << c.origin << " / " << c.fetch_site;
}

TEST(BodyPolicy, JsonOrFormOnly) {
  EXPECT_EQ(body_type("application/json", false), BodyType::json);
  EXPECT_EQ(body_type("Application/JSON; charset=utf-8", false), BodyType::json);
  EXPECT_EQ(body_type("application/x-www-form-urlencoded", false), BodyType::form);
  EXPECT_EQ(body_type("", true), BodyType::json);  // POST with no body: an empty object
  // What a page may send cross-site without a CORS preflight, and what is not documented.
  EXPECT_EQ(body_type("text/plain", false), BodyType::refused);
  EXPECT_EQ(body_type("text/plain;charset=UTF-8", true), BodyType::refused);
  EXPECT_EQ(body_type("multipart/form-data; boundary=x", false), BodyType::refused);
  EXPECT_EQ(body_type("", false), BodyType::refused);
  EXPECT_EQ(body_type("application/jsonx", false), BodyType::refused);
}

TEST(MethodPolicy, GetEverywherePostOnTheApi) {
  EXPECT_EQ(allowed_methods_if_refused("GET", "/"), "");
  EXPECT_EQ(allowed_methods_if_refused("HEAD", "/app.js"), "");
  EXPECT_EQ(allowed_methods_if_refused("POST", "/api/plan"), "");
  EXPECT_EQ(allowed_methods_if_refused("GET", "/api/plan"), "");
  EXPECT_EQ(allowed_methods_if_refused("POST", "/"), "GET, HEAD");
  EXPECT_EQ(allowed_methods_if_refused("DELETE", "/api/plan"), "GET, HEAD, POST");
  EXPECT_EQ(allowed_methods_if_refused("PUT", "/api/plan"), "GET, HEAD, POST");
  EXPECT_EQ(allowed_methods_if_refused("OPTIONS", "/api/plan"), "GET, HEAD, POST");  // no CORS preflight succeeds
}

}  // namespace
}  // namespace preflight::cli
