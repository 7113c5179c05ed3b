// `preflight serve` lives in a module, preflight-serve.so, built beside the
// binary and loaded only when serve runs: it is the one user of cpp-httplib,
// whose Debian build pulls OpenSSL, zlib and brotli into every process that
// links it (about 5.6 ms of each start on a 2-core VM, measured with a
// hello-world linked both ways). A plan, --help or any other
// command resolves none of them.
//
//   binary  run_serve (serve_module.cc) -> dlopen serve_module_path()
//   module  preflight_serve_entry -> serve_http (serve.cc, http_server.cc)
//
// The module links its own copy of the library (static, symbols hidden) and, in
// a release build, its own C++ runtime (-static-libstdc++, as the binary does:
// resolving libstdc++.so was about 2 ms of every start). So no C++ object crosses:
// the options go as one JSON string (options_transfer.h) and the module writes to
// the process's stdout and stderr itself.
#pragma once

#include <string>

#include "cli_options.h"
#include "io.h"

namespace preflight::cli {

// The server itself (serve.cc, inside the module).
int serve_http(const Options& o, Io& io);

// The module's file name, and where the binary looks for it: beside the
// executable (/proc/self/exe), where the build puts it; else in the installed
// layout, PREFLIGHT_SERVE_MODULE_DIR relative to the executable's folder
// (../lib/preflight for bin/preflight; CMakeLists.txt computes it from the
// install directories).
inline constexpr const char* kServeModuleName = "preflight-serve.so";
std::string serve_module_path();

}  // namespace preflight::cli

extern "C" int preflight_serve_entry(const char* options_json);
