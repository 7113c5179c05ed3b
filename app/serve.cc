// preflight serve: the web planner and its JSON API on one port.
//
//   GET  /                      the page (web/*, embedded at build time)
//   GET  /api/COMMAND?key=value the command with query parameters
//   POST /api/COMMAND           the command with a JSON object of parameters
//                               (an uploaded config.json under "model_config")
//
// With --hub a request's model may be a hub id (metadata fetched and cached by
// commit, as on the command line); without it, requests never cause traffic.
//
// Loopback by default. The connection layer (http_server.h) bounds what a
// client may hold: request arrival, idle and write times, body size,
// connections, queued requests, and each request's deadline. The request
// policy (http_guard.h) refuses foreign Hosts, cross-site origins, body types a
// page may send without a CORS preflight, and other methods. Work bounds:
// --max-cells for the solvers' grids, --max-response for answers. Every error
// is a JSON object with a one-line message, and the server keeps serving.
#include <fmt/format.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <thread>

#include "api.h"
#include "commands.h"
#include "core/bytes.h"
#include "core/json_read.h"
#include "core/text.h"
#include "core/units.h"
#include "embedded_files.h"
#include "http_guard.h"
#include "http_server.h"
#include "option_table.h"
#include "options_transfer.h"
#include "plan_inputs.h"
#include "request_cost.h"
#include "serve_module.h"
#include "terminal_output.h"

namespace preflight::cli {

namespace {

struct StaticFile {
  const char* url;
  const char* path;
  const char* type;
};

// The page's files (web/), as embedded.
constexpr StaticFile kStatic[] = {
    {"/", "web/index.html", "text/html; charset=utf-8"},
    {"/index.html", "web/index.html", "text/html; charset=utf-8"},
    {"/app.js", "web/app.js", "text/javascript; charset=utf-8"},
    {"/charts.js", "web/charts.js", "text/javascript; charset=utf-8"},
    {"/style.css", "web/style.css", "text/css; charset=utf-8"},
};

void send_json(httplib::Response& res, int status, std::string body, int exit_code) {
  res.status = status;
  res.set_header("X-Preflight-Exit-Code", std::to_string(exit_code));
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(body), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, status, api_error_json(status, message), 2);
}

// What a request may spend and return, from the serve flags.
struct ServeBounds {
  std::uint64_t max_cells = 4096;
  std::uint64_t max_response = 64ULL * 1024 * 1024;
  bool allow_hub = false;
};

void handle_api(const httplib::Request& req, httplib::Response& res, bool post, const ServeBounds& bounds) {
  const std::string command = req.matches[1];
  if (!api_command_known(command)) {
    send_error(res, 404, fmt::format("no API command '{}'", command));
    return;
  }
  const RequestBudget* budget = current_request_budget();
  if (budget != nullptr && budget->expired()) {
    send_json(res, 503,
              api_error_json(503, "the request waited past this server's deadline of " + budget->deadline_text), 3);
    return;
  }
  Result<Options> options = Error{"request", "", "no parameters"};
  const BodyType type = post ? body_type(req.get_header_value("Content-Type"), req.body.empty()) : BodyType::form;
  if (type == BodyType::refused) {
    // text/plain and multipart are what a page may POST cross-site without a CORS preflight.
    send_error(res, 415, "request body: send application/json (or application/x-www-form-urlencoded)");
    return;
  }
  if (post && type == BodyType::json) {
    auto body =
        req.body.empty() ? Result<nlohmann::json>(nlohmann::json::object()) : parse_json(req.body, "request body");
    if (!body) {
      send_error(res, 400, body.error().to_string());
      return;
    }
    options = options_from_json(*body);
  } else {
    options = options_from_query(req.params);  // a query string, or a form-encoded body (httplib parses both)
  }
  if (!options) {
    send_error(res, 400, options.error().to_string());
    return;
  }
  Options request = std::move(options).value();
  request.allow_hub = bounds.allow_hub;
  request.budget = budget;
  request.cell_bound = bounds.max_cells;
  auto r = run_api(command, std::move(request));
  if (r.body.size() > bounds.max_response) {
    send_error(res, 400,
               fmt::format("the answer would be {} bytes, beyond this server's bound of {} (serve "
                           "--max-response); run the CLI for it",
                           with_commas(r.body.size()), with_commas(bounds.max_response)));
    return;
  }
  send_json(res, r.status, std::move(r.body), r.exit_code);
}

// A serve flag's whole number within [low, high], or its default.
Result<std::uint64_t> bounded(const std::string& text, const char* flag, std::uint64_t fallback, std::uint64_t low,
                              std::uint64_t high, bool bytes) {
  if (text.empty()) return fallback;
  auto v = bytes ? parse_byte_size(text, flag) : parse_positive_integer(text, flag);
  if (!v) return v.error();
  if (*v < low || *v > high)
    return Error{flag, "", fmt::format("expected {} to {}, got {}", with_commas(low), with_commas(high), echo(text))};
  return *v;
}

// Before any handler: the method, the Host (DNS rebinding) and, for the API,
// the Origin (cross-site pages); every response gets the no-sniff and framing headers.
void install_request_guards(GuardedServer& server, const HostPolicy& hosts) {
  server.set_pre_routing_handler([hosts](const httplib::Request& req, httplib::Response& res) {
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("X-Frame-Options", "DENY");
    res.set_header("Cross-Origin-Resource-Policy", "same-origin");
    if (const auto allow = allowed_methods_if_refused(req.method, req.path); !allow.empty()) {
      res.set_header("Allow", allow);
      send_error(res, 405,
                 fmt::format("{} is not allowed on {} (allowed: {})", echo(req.method, 16), echo(req.path, 80), allow));
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::string host_header = req.get_header_value("Host");
    if (const auto problem = host_problem(host_header, hosts); !problem.empty()) {
      send_error(res, 421, fmt::format("Host {}: {}", echo(host_header, 80), problem));
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.path.starts_with("/api/"))
      if (const auto problem =
              origin_problem(req.get_header_value("Origin"), req.get_header_value("Sec-Fetch-Site"), host_header);
          !problem.empty()) {
        send_error(res, 403, fmt::format("Origin {}: {}", echo(req.get_header_value("Origin"), 80), problem));
        return httplib::Server::HandlerResponse::Handled;
      }
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

// Errors httplib detects itself (a bad request line, a form body over its 8 KiB
// limit, an unknown path), and exceptions a handler lets escape: the API's JSON errors.
void install_error_handlers(GuardedServer& server) {
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 413) {
      // The connection layer refuses bodies over --max-body before they are read;
      // a 413 here is httplib's own limit on form-encoded bodies.
      send_error(res, 413, "a form-encoded body is limited to 8,192 bytes; send larger requests as application/json");
    } else if (res.status == 404) {
      send_error(res, 404, fmt::format("no such path: {}", echo(req.path, 80)));
    } else if (res.status == 400 && res.body.empty()) {
      send_error(res, 400, "the request could not be read as HTTP (HTTP 400)");
    } else if (res.status >= 400 && res.body.empty()) {
      send_error(res, res.status, fmt::format("HTTP {}", res.status));
    }
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_json(res, 500, api_error_json(500, "internal error: " + what), 3);
  });
}

}  // namespace

int serve_http(const Options& o, Io& io) {
  std::uint64_t port = 8080;
  if (!o.port.empty()) {
    if (o.port == "0")
      port = 0;
    else {
      auto v = bounded(o.port, flag_of(&Options::port), 8080, 1, 65535, false);
      if (!v) return fail(io, v.error());
      port = *v;
    }
  }
  auto max_body = bounded(o.max_body, flag_of(&Options::max_body), 4 * kMiB, kKiB, 256 * kMiB, true);
  if (!max_body) return fail(io, max_body.error());
  // Workers do the CPU work; connections wait in the I/O loop without one.
  const std::uint64_t cores = std::max(2u, std::thread::hardware_concurrency());
  auto workers = bounded(o.threads, flag_of(&Options::threads), cores, 1, 256, false);
  if (!workers) return fail(io, workers.error());
  auto timeout = o.request_timeout.empty()
                     ? Result<std::uint64_t>(30)
                     : parse_positive_integer(o.request_timeout, flag_of(&Options::request_timeout));
  if (!timeout) return fail(io, timeout.error());
  if (*timeout > 3600)
    return fail(io, Error{flag_of(&Options::request_timeout), "",
                          fmt::format("expected 1 to 3,600 seconds, got {}", echo(o.request_timeout))});
  ServeBounds bounds;
  bounds.allow_hub = o.allow_hub;
  auto cells = bounded(o.max_cells, flag_of(&Options::max_cells), bounds.max_cells, 1, 1'000'000, false);
  if (!cells) return fail(io, cells.error());
  bounds.max_cells = *cells;
  auto response = bounded(o.max_response, flag_of(&Options::max_response), bounds.max_response, kMiB, 4 * kGiB, true);
  if (!response) return fail(io, response.error());
  bounds.max_response = *response;
  const std::string host = o.host.empty() ? "127.0.0.1" : o.host;

  ConnectionLimits limits;
  limits.max_body_bytes = *max_body;
  limits.max_buffered_bytes = std::max<std::size_t>(limits.max_buffered_bytes, 2 * limits.max_body_bytes);
  limits.workers = static_cast<unsigned>(*workers);
  // Solver grids, tensor lists and hub fetches queue for the workers; one more
  // worker takes only the rest, so a plan never waits behind them.
  limits.light_workers = 1;
  limits.heavy = [hub = o.allow_hub](std::string_view request) { return is_heavy_request(request, hub); };
  limits.deadline = std::chrono::seconds(*timeout);
  limits.deadline_text = fmt::format("{} s (serve --request-timeout)", *timeout);
  GuardedServer server(limits);

  const int bound = server.bind(host, static_cast<int>(port));
  if (bound == -EADDRINUSE || bound == -EACCES)
    return fail(io, Error{flag_of(&Options::port), "",
                          fmt::format("cannot listen on {}:{}: {}", host, port,
                                      bound == -EADDRINUSE ? "the port is in use" : "permission denied")});
  if (bound <= 0)
    return fail(io, Error{flag_of(&Options::host), "",
                          fmt::format("cannot listen on {}: not an address of this machine", echo(host))});

  char machine[256] = {};
  gethostname(machine, sizeof machine - 1);
  const HostPolicy hosts = host_policy(host, bound, machine);
  install_request_guards(server, hosts);
  server.Get(R"(/api/([a-z]+))",
             [bounds](const httplib::Request& req, httplib::Response& res) { handle_api(req, res, false, bounds); });
  server.Post(R"(/api/([a-z]+))",
              [bounds](const httplib::Request& req, httplib::Response& res) { handle_api(req, res, true, bounds); });
  for (const auto& f : kStatic) {
    const auto text = embedded::embedded_file(f.path);
    const std::string type = f.type;
    server.Get(f.url, [text, type](const httplib::Request&, httplib::Response& res) {
      // The page loads its own scripts and styles and talks to its own API only.
      res.set_header(
          "Content-Security-Policy",
          "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
      res.set_content(std::string(text), type.c_str());
    });
  }
  install_error_handlers(server);

  io.out << fmt::format("preflight serve: listening on http://{}:{}/ (Ctrl-C stops)", host, bound) << std::endl;
  if (host != "127.0.0.1" && host != "localhost" && host != "::1")
    io.err << "preflight serve: warning: listening beyond loopback; the API has no authentication\n";
  if (!server.serve()) return fail(io, Error{flag_of(&Options::port), "", "the listening socket failed"});
  return 0;
}

}  // namespace preflight::cli

// The module's one entry point (serve_module.h); the binary finds it with dlsym.
// Only a C string crosses (options_transfer.h): the module has its own C++
// runtime, so it writes through its own std::cout, filtered as the binary's is.
extern "C" __attribute__((visibility("default"))) int preflight_serve_entry(const char* options_json) {
  preflight::cli::TerminalSafeBuffer safe_stdout(std::cout.rdbuf());
  std::ostream out(&safe_stdout);
  preflight::cli::Io io{out, std::cerr};
  try {
    auto options = preflight::cli::options_from_transfer(options_json);
    if (!options) return preflight::cli::fail(io, options.error());
    return preflight::cli::serve_http(*options, io);
  } catch (const std::exception& e) {
    out.flush();
    std::cerr << "preflight: internal error: " << preflight::one_line(e.what()) << "\n";
    return 3;
  }
}
