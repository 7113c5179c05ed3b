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
// Loopback by default; a request body limit; every error is a JSON object
// with a one-line message, and the server keeps serving.
#include <httplib.h>

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "api.h"
#include "commands.h"
#include "core/units.h"
#include "embedded_files.h"
#include "plan_inputs.h"

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

void handle_api(const httplib::Request& req, httplib::Response& res, bool post, bool allow_hub) {
  const std::string command = req.matches[1];
  if (!api_command_known(command)) {
    send_json(res, 404, api_error_json(404, fmt::format("no API command '{}'", command)), 2);
    return;
  }
  Result<Options> options = Error{"request", "", "no parameters"};
  if (post) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    if (body.is_discarded()) {
      send_json(res, 400, api_error_json(400, "request body: not valid JSON"), 2);
      return;
    }
    if (req.body.empty()) body = nlohmann::json::object();
    options = options_from_json(body);
  } else {
    options = options_from_query(req.params);
  }
  if (!options) {
    send_json(res, 400, api_error_json(400, options.error().to_string()), 2);
    return;
  }
  Options request = std::move(options).value();
  request.allow_hub = allow_hub;
  auto r = run_api(command, std::move(request));
  send_json(res, r.status, std::move(r.body), r.exit_code);
}

}  // namespace

int run_serve(const Options& o, Io& io) {
  std::uint64_t port = 8080;
  if (!o.port.empty()) {
    if (o.port == "0") port = 0;
    else {
      auto v = parse_positive_integer(o.port, "--port");
      if (!v) return fail(io, v.error());
      if (*v > 65535) return fail(io, Error{"--port", "", fmt::format("expected 0..65535, got {}", *v)});
      port = *v;
    }
  }
  std::uint64_t max_body = 4 * 1024 * 1024;
  if (!o.max_body.empty()) {
    auto v = parse_byte_size(o.max_body, "--max-body");
    if (!v) return fail(io, v.error());
    max_body = *v;
  }
  // httplib gives each keep-alive connection a thread while it lasts: enough
  // threads for a page's or a script's connections, CPU work still bounded by the cores.
  std::uint64_t threads = std::max(64u, 4 * std::thread::hardware_concurrency());
  if (!o.threads.empty()) {
    auto v = parse_positive_integer(o.threads, "--threads");
    if (!v) return fail(io, v.error());
    threads = std::min<std::uint64_t>(*v, 256);
  }
  const std::string host = o.host.empty() ? "127.0.0.1" : o.host;

  httplib::Server server;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(max_body);
  // Reconnects are what fails under load (httplib's listen backlog is 5):
  // keep a client's connection for as many requests as it sends.
  server.set_keep_alive_max_count(100000);
  server.set_read_timeout(10, 0);
  server.set_write_timeout(10, 0);
  const bool hub = o.allow_hub;
  server.Get(R"(/api/([a-z]+))",
             [hub](const httplib::Request& req, httplib::Response& res) { handle_api(req, res, false, hub); });
  server.Post(R"(/api/([a-z]+))",
              [hub](const httplib::Request& req, httplib::Response& res) { handle_api(req, res, true, hub); });
  for (const auto& f : kStatic) {
    const auto text = embedded::embedded_file(f.path);
    const std::string type = f.type;
    server.Get(f.url, [text, type](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(text), type.c_str());
    });
  }
  // Errors httplib detects itself (a body over the limit, a bad request line):
  // the same JSON shape, status 400 with the reason.
  server.set_error_handler([max_body](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 413) {
      send_json(res, 400, api_error_json(400, fmt::format("request body exceeds the {} byte limit (--max-body)", max_body)), 2);
    } else if (res.status == 404) {
      send_json(res, 404, api_error_json(404, fmt::format("no such path: {}", req.path)), 2);
    } else if (res.status >= 400 && res.body.empty()) {
      send_json(res, res.status, api_error_json(res.status, fmt::format("HTTP {}", res.status)), 2);
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

  int bound = 0;
  if (port == 0) bound = server.bind_to_any_port(host);
  else bound = server.bind_to_port(host, static_cast<int>(port)) ? static_cast<int>(port) : -1;
  if (bound <= 0)
    return fail(io, Error{"--port", "", fmt::format("cannot listen on {}:{} (in use, or not an address of this machine)", host, port)});
  io.out << fmt::format("preflight serve: listening on http://{}:{}/ (Ctrl-C stops)", host, bound) << std::endl;
  if (host != "127.0.0.1" && host != "localhost" && host != "::1")
    io.err << "preflight serve: warning: listening beyond loopback; the API has no authentication\n";
  server.listen_after_bind();
  return 0;
}

}  // namespace preflight::cli
