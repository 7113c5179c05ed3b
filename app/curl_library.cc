#include "curl_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

namespace preflight::cli {

namespace {

struct Loaded {
  CurlLibrary api;
  bool ok = false;
  std::string why;
};

template <typename F>
bool resolve(void* handle, const char* name, F& out, std::string& why) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    why = fmt::format("libcurl has no {}", name);
    return false;
  }
  out = reinterpret_cast<F>(symbol);
  return true;
}

Loaded load() {
  Loaded l;
  void* handle = nullptr;
  // libcurl4 (OpenSSL) first, then the GnuTLS build Debian also ships.
  for (const char* name : {"libcurl.so.4", "libcurl-gnutls.so.4"}) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
  }
  if (handle == nullptr) {
    const char* err = dlerror();
    l.why = fmt::format("reading from the Hugging Face Hub needs libcurl (Debian package libcurl4): {}",
                        err != nullptr ? err : "libcurl.so.4 not found");
    return l;
  }
  auto& a = l.api;
  // The handle stays open for the process: the functions are used until exit.
  l.ok = resolve(handle, "curl_global_init", a.global_init, l.why) &&
         resolve(handle, "curl_easy_init", a.easy_init, l.why) &&
         resolve(handle, "curl_easy_setopt", a.easy_setopt, l.why) &&
         resolve(handle, "curl_easy_perform", a.easy_perform, l.why) &&
         resolve(handle, "curl_easy_getinfo", a.easy_getinfo, l.why) &&
         resolve(handle, "curl_easy_cleanup", a.easy_cleanup, l.why) &&
         resolve(handle, "curl_easy_reset", a.easy_reset, l.why) &&
         resolve(handle, "curl_easy_strerror", a.easy_strerror, l.why) &&
         resolve(handle, "curl_slist_append", a.slist_append, l.why) &&
         resolve(handle, "curl_slist_free_all", a.slist_free_all, l.why);
  if (l.ok && a.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    l.ok = false;
    l.why = "curl_global_init failed";
  }
  return l;
}

}  // namespace

const CurlLibrary* curl_library(std::string* why) {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] { loaded = load(); });
  if (!loaded.ok) {
    if (why) *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace preflight::cli
