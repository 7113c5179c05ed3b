// libcurl, loaded when the first Hub request is made rather than linked: a plan
// of a catalogue model or a local config then starts without resolving libcurl
// and the ~25 libraries it pulls in (TLS, Kerberos, LDAP, ...), about 3 ms of
// every process start. The Debian package libcurl4 provides
// libcurl.so.4; the -dev package is needed only for <curl/curl.h> at build time.
#pragma once

#include <curl/curl.h>

#include <string>

namespace preflight::cli {

struct CurlLibrary {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL* handle, CURLoption option, ...) = nullptr;
  CURLcode (*easy_perform)(CURL* handle) = nullptr;
  CURLcode (*easy_getinfo)(CURL* handle, CURLINFO info, ...) = nullptr;
  void (*easy_cleanup)(CURL* handle) = nullptr;
  void (*easy_reset)(CURL* handle) = nullptr;
  const char* (*easy_strerror)(CURLcode code) = nullptr;
  curl_slist* (*slist_append)(curl_slist* list, const char* text) = nullptr;
  void (*slist_free_all)(curl_slist* list) = nullptr;
};

// The loaded library with curl_global_init done (once, thread-safe); nullptr
// when it cannot be loaded, with the reason in `why`.
const CurlLibrary* curl_library(std::string* why);

}  // namespace preflight::cli
