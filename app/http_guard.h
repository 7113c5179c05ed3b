// Which requests `preflight serve` answers at all. A server on a developer's
// laptop is reachable from every web page its user opens, so:
//   - Host must name an address the server listens on. A DNS-rebinding page
//     (attacker.example resolving to 127.0.0.1) sends its own name as Host and
//     is refused; so the page can neither read answers nor spend CPU.
//     Loopback names are always allowed; --host adds its own name; a wildcard
//     bind (0.0.0.0, ::) allows any IP literal (rebinding needs a name) and
//     this machine's host name.
//   - Origin, when a browser sends one, must be the server's own
//     (http:// + the Host). A cross-site fetch or form post carries the
//     attacker's origin; "null" (sandboxed frames, file:) is refused too.
//     Sec-Fetch-Site: cross-site is refused for browsers that send it.
//     No CORS header is ever sent, so no other origin reads an answer.
//   - POST bodies are application/json or the form encoding
//     (application/x-www-form-urlencoded, the query keys); text/plain, which
//     a page can send cross-site without a CORS preflight, gets 415.
//   - Methods: GET and HEAD everywhere, POST under /api/; anything else 405.
// Pure functions; serve.cc applies them before any handler runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::cli {

struct HostPolicy {
  std::vector<std::string> names;  // lower-case host names and IP literals ("[::1]" bracketed)
  bool any_ip_literal = false;     // a wildcard bind: every IP literal is an address of ours
  int port = 0;                    // the bound port; a Host without a port means 80
};

// The names the server answers to when bound to `bind_host` (as --host gave
// it) on `port`; `machine_name` is gethostname()'s, used for a wildcard bind.
HostPolicy host_policy(std::string_view bind_host, int port, std::string_view machine_name);

// "" when the Host header is one of ours, else why not.
std::string host_problem(std::string_view host_header, const HostPolicy& policy);

// "" when the request may proceed as far as Origin and Sec-Fetch-Site go.
std::string origin_problem(std::string_view origin, std::string_view sec_fetch_site, std::string_view host_header);

enum class BodyType { json, form, refused };
// The body's type from Content-Type (parameters such as charset allowed). An
// empty body without a type reads as an empty JSON object.
BodyType body_type(std::string_view content_type, bool empty_body);

// "" when `method` is allowed on `path`, else the Allow header's value.
std::string allowed_methods_if_refused(std::string_view method, std::string_view path);

}  // namespace preflight::cli
