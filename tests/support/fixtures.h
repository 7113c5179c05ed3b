// Shared test fixtures: catalogue models and accelerators, loaded once per
// test binary (a model's manifest takes milliseconds to build; hundreds of
// tests ask for the same few).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"

namespace preflight::testing {

inline const ModelSpec& catalogue_model(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, ModelSpec> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, load_catalogue_model(name, "test").value_or_throw()).first;
  return it->second;  // std::map nodes are stable
}

inline const Accelerator& catalogue_gpu(const std::string& name) {
  return *GpuCatalogue::embedded().find(name, "test").value_or_throw();
}

}  // namespace preflight::testing
