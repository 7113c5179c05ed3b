#include "http_guard.h"

#include <arpa/inet.h>

#include <algorithm>

#include "core/text.h"

namespace preflight::cli {

namespace {

bool is_ip_literal(std::string_view name) {
  std::string text(name);
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  unsigned char buffer[16];
  return inet_pton(AF_INET, text.c_str(), buffer) == 1 || inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

// "name:port" or "[v6]:port" into its name (brackets kept) and port text.
void split_host(std::string_view host, std::string_view& name, std::string_view& port) {
  port = {};
  if (host.starts_with('[')) {
    const auto close = host.find(']');
    if (close == std::string_view::npos) {
      name = host;
      return;
    }
    name = host.substr(0, close + 1);
    if (close + 1 < host.size() && host[close + 1] == ':') port = host.substr(close + 2);
    return;
  }
  const auto colon = host.rfind(':');
  if (colon == std::string_view::npos) {
    name = host;
    return;
  }
  name = host.substr(0, colon);
  port = host.substr(colon + 1);
}

}  // namespace

HostPolicy host_policy(std::string_view bind_host, int port, std::string_view machine_name) {
  HostPolicy p;
  p.port = port;
  p.names = {"localhost", "127.0.0.1", "[::1]"};
  std::string bound = to_lower(bind_host);
  if (bound == "0.0.0.0" || bound == "::" || bound == "[::]") {
    p.any_ip_literal = true;
    if (!machine_name.empty()) p.names.push_back(to_lower(machine_name));
    return p;
  }
  if (bound.find(':') != std::string::npos && !bound.starts_with('[')) bound = "[" + bound + "]";  // an IPv6 literal
  if (std::find(p.names.begin(), p.names.end(), bound) == p.names.end()) p.names.push_back(bound);
  return p;
}

std::string host_problem(std::string_view host_header, const HostPolicy& policy) {
  if (host_header.empty()) return "a Host header is required";
  std::string_view name, port;
  split_host(host_header, name, port);
  if (port.empty()) {
    if (policy.port != 80) return "the Host header names no port, and this server does not listen on 80";
  } else if (port != std::to_string(policy.port)) {
    return "the Host header names another port";
  }
  const std::string lower = to_lower(name);
  if (std::find(policy.names.begin(), policy.names.end(), lower) != policy.names.end()) return "";
  if (policy.any_ip_literal && is_ip_literal(lower)) return "";
  return "the Host header is not an address this server listens on (a DNS-rebinding page sends its own name); "
         "start it with --host NAME to answer to that name";
}

std::string origin_problem(std::string_view origin, std::string_view sec_fetch_site, std::string_view host_header) {
  if (to_lower(sec_fetch_site) == "cross-site") return "a cross-site request (Sec-Fetch-Site: cross-site)";
  if (origin.empty()) return "";
  if (to_lower(origin) == "http://" + to_lower(host_header)) return "";
  return "a request from another origin: this server answers its own page and scripts without an Origin only";
}

BodyType body_type(std::string_view content_type, bool empty_body) {
  std::string_view type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  const std::string lower = to_lower(type);
  if (lower.empty()) return empty_body ? BodyType::json : BodyType::refused;
  if (lower == "application/json") return BodyType::json;
  if (lower == "application/x-www-form-urlencoded") return BodyType::form;
  return BodyType::refused;
}

std::string allowed_methods_if_refused(std::string_view method, std::string_view path) {
  const bool api = path.starts_with("/api/");
  if (method == "GET" || method == "HEAD") return "";
  if (method == "POST" && api) return "";
  return api ? "GET, HEAD, POST" : "GET, HEAD";
}

}  // namespace preflight::cli
