#include "serve_module.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "commands.h"
#include "core/text.h"
#include "heap.h"
#include "options_transfer.h"
#include "plan_inputs.h"

namespace preflight::cli {

#ifndef PREFLIGHT_SERVE_MODULE_DIR
#define PREFLIGHT_SERVE_MODULE_DIR "../lib/preflight"
#endif

std::string serve_module_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || self.empty()) return kServeModuleName;  // dlopen then searches the library path
  const auto beside = self.parent_path() / kServeModuleName;
  if (std::filesystem::exists(beside, ec)) return beside.string();
  const auto installed = (self.parent_path() / PREFLIGHT_SERVE_MODULE_DIR / kServeModuleName).lexically_normal();
  if (std::filesystem::exists(installed, ec)) return installed.string();
  return beside.string();  // the error then names where the build would have put it
}

int run_serve(const Options& o, Io& io) {
  prefer_small_pages();  // a long-running process whose big responses are freed
  const auto path = serve_module_path();
  // RTLD_LOCAL: the module's copy of the library stays its own.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fail(
        io,
        Error{"serve", "",
              fmt::format("cannot load {} (built beside the preflight binary, installed in " PREFLIGHT_SERVE_MODULE_DIR
                          " from it): {}",
                          echo(path), one_line(why != nullptr ? why : "unknown error"))});
  }
  using Entry = int (*)(const char*);
  auto entry = reinterpret_cast<Entry>(dlsym(handle, "preflight_serve_entry"));
  if (entry == nullptr) return fail(io, Error{"serve", "", fmt::format("{} has no preflight_serve_entry", echo(path))});
  // The handle stays open: the server runs until the process ends. What the
  // binary printed so far goes out before the module writes to the same stdout.
  io.out.flush();
  return entry(options_to_transfer(o).c_str());
}

}  // namespace preflight::cli
