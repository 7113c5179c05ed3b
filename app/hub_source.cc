#include "hub_source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "artifact/hf_quant_config.h"
#include "artifact/reconciliation.h"
#include "artifact/safetensors_header.h"
#include "artifact/safetensors_index.h"
#include "core/bytes.h"
#include "heap.h"
#include "http_client.h"
#include "hub/hub_settings.h"
#include "model/model_catalogue.h"
#include "option_table.h"

namespace preflight::cli {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> env(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::optional<std::string> read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// Cache entries are staged while a model is read and enter the cache only once
// the whole read has succeeded (parsed, sizes checked): one bad answer (an HTML
// page for config.json, a truncated header) is never kept for the next run.
// Staged files live in a folder beside the commit folders, removed when the read
// fails; each is renamed into place, so a reader sees a whole entry or none.
class StagedWrites {
 public:
  StagedWrites() = default;
  StagedWrites(const StagedWrites&) = delete;
  StagedWrites& operator=(const StagedWrites&) = delete;
  ~StagedWrites() {
    if (!folder_.empty()) {
      std::error_code ec;
      fs::remove_all(folder_, ec);
    }
  }

  // Keeps `bytes` for `destination`; `beside` is a folder on the cache's file system.
  void stage(const fs::path& beside, const fs::path& destination, const std::string& bytes) {
    std::lock_guard lock(mutex_);
    std::error_code ec;
    if (folder_.empty()) {
      static std::atomic<std::uint64_t> counter{0};
      folder_ = beside / fmt::format(".incoming-{}-{}", ::getpid(), counter++);
      fs::create_directories(folder_, ec);
    }
    const auto file = folder_ / std::to_string(staged_.size());
    {
      std::ofstream out(file, std::ios::binary);
      out << bytes;
      if (!out) return;  // a cache that cannot be written is not an error: the answer stands
    }
    staged_.emplace_back(file, destination);
  }

  // The read succeeded: every staged file into its place.
  void commit() {
    std::lock_guard lock(mutex_);
    for (const auto& [file, destination] : staged_) {
      std::error_code ec;
      fs::create_directories(destination.parent_path(), ec);
      fs::rename(file, destination, ec);
    }
    staged_.clear();
  }

 private:
  std::mutex mutex_;
  fs::path folder_;
  std::vector<std::pair<fs::path, fs::path>> staged_;
};

struct Context {
  HubReference ref;
  HubSettings settings;
  std::optional<std::string> token;
  HubFetchOptions options;
  HttpClient http;
  fs::path commit_dir;
  // Bytes the first request of a shard's header asks for: its 8-byte length and,
  // in the same request, the header it announces when that fits (one round trip per
  // shard instead of two). Set from the estimated header sizes before headers are read.
  std::uint64_t first_request_bytes = 64 * 1024;
  bool cache_reads() const { return !options.no_cache && !options.refresh; }
  bool cache_writes() const { return !options.no_cache; }
  fs::path cache_root;  // the cache's folder for this repository: staged files go beside its entries
  StagedWrites staged;
  void keep(const fs::path& destination, const std::string& bytes) {
    if (cache_writes()) staged.stage(cache_root, destination, bytes);
  }
};

// One line for an HTTP failure, by what the user can do about it.
Error http_error(const Context& c, const HttpResult& r, const std::string& what) {
  const auto who = fmt::format("{}@{}", c.ref.repo_id, c.ref.revision);
  if (r.status == 401 || r.status == 403)
    return Error{
        "MODEL", "",
        fmt::format("{}: {} is gated or private (HTTP {}): accept its terms on the Hub, then set HF_TOKEN "
                    "or run `huggingface-cli login` (token file {}){}",
                    who, what, r.status, c.settings.token_file, c.token ? "; the token given was refused" : "")};
  if (r.status == 404)
    return Error{"MODEL", "",
                 fmt::format("{}: no such model or revision on {} (HTTP 404 for {})", who, c.settings.endpoint, what)};
  if (r.status == 0)
    return Error{"MODEL", "", fmt::format("{}: {} failed after {} attempt(s): {}", who, what, r.attempts, r.error)};
  return Error{"MODEL", "",
               fmt::format("{}: {} answered HTTP {} after {} attempt(s)", who, what, r.status, r.attempts)};
}

// The listing (commit, per-file sizes): from the cache for a pinned commit, else the Hub.
Result<std::pair<HubListing, std::string>> listing(Context& c) {
  const auto repo_dir = fs::path(commit_cache_dir(c.settings, c.ref.repo_id, "x")).parent_path();
  const auto ref_file = repo_dir / "refs" / percent_encode(c.ref.revision, false);
  std::string commit = is_commit_id(c.ref.revision) ? c.ref.revision : "";
  if (c.settings.offline || c.cache_reads()) {
    if (commit.empty())
      if (auto cached = read_text(ref_file); cached && c.settings.offline) commit = trim(*cached);
    if (!commit.empty()) {
      if (auto text = read_text(fs::path(commit_cache_dir(c.settings, c.ref.repo_id, commit)) / "listing.json")) {
        auto parsed = parse_hub_listing(*text, "cached hub listing");
        if (parsed) return std::pair{std::move(parsed).value(), *text};
      }
    }
    if (c.settings.offline)
      return Error{"MODEL", "",
                   fmt::format("{}@{}: HF_HUB_OFFLINE is set and the cache ({}) has no listing for it; run "
                               "once online",
                               c.ref.repo_id, c.ref.revision, repo_dir.string())};
  }
  auto r = c.http.get(listing_url(c.settings, c.ref), c.token);
  if (r.status != 200) return http_error(c, r, "the listing");
  auto parsed = parse_hub_listing(r.body, listing_url(c.settings, c.ref));
  if (!parsed) return parsed.error();
  if (!is_commit_id(parsed->sha))
    return Error{
        "MODEL", "",
        fmt::format("{}@{}: the listing names no commit (sha '{}')", c.ref.repo_id, c.ref.revision, parsed->sha)};
  c.keep(fs::path(commit_cache_dir(c.settings, c.ref.repo_id, parsed->sha)) / "listing.json", r.body);
  c.keep(ref_file, parsed->sha);
  return std::pair{std::move(parsed).value(), std::move(r.body)};
}

Result<std::string> file(Context& c, const std::string& name) {
  const auto cached = c.commit_dir / "files" / name;
  if (c.settings.offline || c.cache_reads())
    if (auto text = read_text(cached)) return *text;
  if (c.settings.offline)
    return Error{
        "MODEL", "",
        fmt::format("{}: HF_HUB_OFFLINE is set and {} is not in the cache ({})", c.ref.repo_id, name, cached.string())};
  auto r = c.http.get(file_url(c.settings, c.ref.repo_id, c.commit_dir.filename().string(), name), c.token);
  if (r.status != 200) return http_error(c, r, name);
  c.keep(cached, r.body);
  return std::move(r.body);
}

// N from a shard's first 8 bytes, checked against the listing's size when it gives one.
Result<std::uint64_t> header_length(std::string_view first8, const HubFile& f) {
  auto n = parse_safetensors_header_length(first8.substr(0, 8), f.path);
  if (!n) return n.error();
  if (f.has_size && 8 + *n > f.size)
    return Error{f.path, "",
                 fmt::format("the header length {} runs past the file's {} bytes (the length lies)", *n, f.size)};
  return n;
}

// The first range request of a shard: its 8 bytes.
Result<std::string> fetch_first_eight(Context& c, const HubFile& f, const std::string& url) {
  auto r = c.http.get(url, c.token, std::pair<std::uint64_t, std::uint64_t>{0, 7});
  if (r.status != 206 && r.status != 200) return http_error(c, r, f.path);
  if (r.body.size() < 8)
    return Error{f.path, "", fmt::format("the first range request returned {} of 8 bytes (truncated)", r.body.size())};
  return r.body.substr(0, 8);
}

std::string shard_url(const Context& c, const HubFile& f) {
  return file_url(c.settings, c.ref.repo_id, c.commit_dir.filename().string(), f.path);
}

// One shard's header: 8 bytes, then N more, checked against the listing's size.
Result<NamedHeader> shard_header(Context& c, const HubFile& f) {
  const auto cached = c.commit_dir / "headers" / (f.path + ".header");
  std::string bytes;
  if (c.settings.offline || c.cache_reads())
    if (auto text = read_text(cached)) bytes = *text;
  if (bytes.empty()) {
    if (c.settings.offline)
      return Error{
          "MODEL", "",
          fmt::format("{}: HF_HUB_OFFLINE is set and the header of {} is not in the cache", c.ref.repo_id, f.path)};
    const auto url = shard_url(c, f);
    // The first request asks for the length and a guess at the header together; a
    // second one fetches what the guess left out.
    const auto asked = f.has_size ? std::min<std::uint64_t>(c.first_request_bytes, f.size) : c.first_request_bytes;
    auto head =
        c.http.get(url, c.token, std::pair<std::uint64_t, std::uint64_t>{0, std::max<std::uint64_t>(asked, 8) - 1});
    if (head.status != 206 && head.status != 200) return http_error(c, head, f.path);
    if (head.body.size() < 8)
      return Error{f.path, "",
                   fmt::format("the first range request returned {} of 8 bytes (truncated)", head.body.size())};
    auto n = header_length(std::string_view(head.body).substr(0, 8), f);
    if (!n) return n.error();
    const auto want = 8 + *n;
    // A range answered with fewer bytes than asked was cut short (a server honouring
    // Range returns all of it; without the file's size only the header's bytes are owed).
    const auto owed = f.has_size ? asked : std::min(asked, want);
    if (head.body.size() < owed)
      return Error{f.path, "",
                   fmt::format("the header request returned {} of {} bytes (truncated)", head.body.size(), owed)};
    if (head.body.size() >= want) {
      bytes = head.body.substr(0, want);
    } else {
      const auto got = static_cast<std::uint64_t>(head.body.size());
      auto rest = c.http.get(url, c.token, std::pair<std::uint64_t, std::uint64_t>{got, want - 1});
      if (rest.status != 206 && rest.status != 200) return http_error(c, rest, f.path);
      if (rest.body.size() != want - got)
        return Error{
            f.path, "",
            fmt::format("the header request returned {} of {} bytes (truncated)", rest.body.size(), want - got)};
      bytes = std::move(head.body) + rest.body;
    }
    c.keep(cached, bytes);
  }
  auto n = parse_safetensors_header_length(std::string_view(bytes).substr(0, 8), f.path);
  if (!n) return n.error();
  if (bytes.size() != 8 + *n) return Error{f.path, "", "the cached header is damaged; run with --refresh"};
  auto header = parse_safetensors_header(std::string_view(bytes).substr(8), *n, f.has_size ? f.size : 0, f.path);
  if (!header) return header.error();
  return NamedHeader{f.path, std::move(header).value()};
}

// One shard's header length N from its first 8 bytes (or from a cached header),
// checked against the listing's size: payload = size - 8 - N.
Result<ShardSize> shard_length(Context& c, const HubFile& f) {
  const auto cached_header = c.commit_dir / "headers" / (f.path + ".header");
  const auto cached = c.commit_dir / "headers" / (f.path + ".length");
  std::string first;
  if (c.settings.offline || c.cache_reads()) {
    if (auto text = read_text(cached))
      first = *text;
    else if (auto header = read_text(cached_header))
      first = *header;
  }
  if (first.size() < 8) {
    if (c.settings.offline)
      return Error{"MODEL", "",
                   fmt::format("{}: HF_HUB_OFFLINE is set and the header length of {} is not in the cache",
                               c.ref.repo_id, f.path)};
    auto fetched = fetch_first_eight(c, f, shard_url(c, f));
    if (!fetched) return fetched.error();
    first = std::move(fetched).value();
    c.keep(cached, first);
  }
  auto n = header_length(first, f);
  if (!n) return n.error();
  if (!f.has_size) return Error{f.path, "size", "the listing gives no size for this shard; use --shard-headers all"};
  return ShardSize{f.path, f.size, *n};
}

// Runs fetch(i) for i in [0, n) on up to `concurrency` threads; the first error
// stops the rest. A progress line on a terminal when there are many.
template <typename Fetch>
std::optional<Error> parallel(Context& c, std::size_t n, const char* what, Fetch fetch) {
  std::optional<Error> failure;
  std::mutex mutex;
  std::atomic<std::size_t> next{0}, done{0};
  const bool progress = ::isatty(STDERR_FILENO) && n > 8 && !c.settings.offline;
  const auto worker = [&] {
    for (std::size_t i; (i = next++) < n;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (failure) return;
      }
      auto error = fetch(i);
      std::lock_guard<std::mutex> lock(mutex);
      if (error) {
        if (!failure) failure = std::move(error);
        return;
      }
      const auto count = ++done;
      if (progress) std::cerr << fmt::format("\rpreflight: {} {}/{}", what, count, n) << std::flush;
    }
  };
  std::vector<std::thread> pool;
  const auto workers = std::min<std::size_t>(std::max(1u, c.options.concurrency), n);
  for (std::size_t i = 0; i < workers; ++i) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (progress) std::cerr << "\n";
  return failure;
}

// fetch_one(c, file) for every file, concurrently; the results in the files' order.
template <typename T, typename FetchOne>
Result<std::vector<T>> fetch_each(Context& c, const std::vector<const HubFile*>& files, const char* what,
                                  FetchOne fetch_one) {
  std::vector<std::optional<T>> got(files.size());
  if (auto e = parallel(c, files.size(), what, [&](std::size_t i) -> std::optional<Error> {
        auto r = fetch_one(c, *files[i]);
        if (!r) return r.error();
        got[i] = std::move(r).value();
        return std::nullopt;
      }))
    return *e;
  std::vector<T> out;
  out.reserve(got.size());
  for (auto& g : got) out.push_back(std::move(*g));
  return out;
}

// A repository without config.json: say what it is instead of a 404 for the file.
std::optional<Error> check_has_config(const HubListing& hub, const HubReference& ref) {
  std::vector<std::string> gguf, names;
  bool params = false;
  for (const auto& f : hub.siblings) {
    if (f.path == "config.json") return std::nullopt;
    params |= f.path == "params.json";
    if (f.path.ends_with(".gguf")) gguf.push_back(f.path);
    if (names.size() < 8) names.push_back(f.path);
  }
  const auto who = fmt::format("{}@{}", ref.repo_id, hub.sha);
  if (params)
    return Error{"MODEL", "",
                 fmt::format("{}: no config.json: this repository is in Mistral's native format (params.json), "
                             "which preflight does not read; use a Hugging Face-format repository of the "
                             "same model",
                             who)};
  if (!gguf.empty())
    return Error{"MODEL", "",
                 fmt::format("{}: no config.json: a GGUF repository ({} .gguf file(s)); preflight reads "
                             "safetensors checkpoints described by config.json",
                             who, gguf.size())};
  return Error{"MODEL", "",
               fmt::format("{}: the listing has no config.json (files: {}{})", who, fmt::join(names, ", "),
                           hub.siblings.size() > names.size() ? ", ..." : "")};
}

// The shards' metadata, in the mode --shard-headers asks for (auto: every header
// when they are estimated within the budget, else the index and each length),
// into `files`, then the library's loading stage finishes `loaded` (generated
// from config.json) with them: the files' manifest, the overrides.
std::optional<Error> read_checkpoint(Context& c, const HubListing& hub, LoadedModel& loaded, ModelFiles& files,
                                     const ModelOverrides& overrides, HubTransfer& transfer) {
  const TensorManifest& manifest = loaded.model.manifest;  // generated from config.json until the files are read
  std::vector<const HubFile*> shards;
  const HubFile* index_file = nullptr;
  for (const auto& f : hub.siblings) {
    if (f.path.size() > 12 && f.path.ends_with(".safetensors")) shards.push_back(&f);
    if (f.path == "model.safetensors.index.json") index_file = &f;
  }
  transfer.estimated_header_bytes = estimated_header_bytes(manifest);
  // auto: every header when cheap (exact per tensor); else the index and each
  // shard's length (exact per shard), and the headers of shards that differ.
  auto mode = c.options.shard_headers;
  if (mode == ShardHeaderMode::automatic)
    mode =
        index_file == nullptr || shards.size() <= 1 || transfer.estimated_header_bytes <= c.options.header_budget_bytes
            ? ShardHeaderMode::all
            : ShardHeaderMode::lengths;
  if (mode == ShardHeaderMode::lengths && index_file == nullptr) {
    if (!shards.empty())
      return Error{flag_of(&Options::shard_headers), "",
                   fmt::format("{}@{}: 'lengths' needs model.safetensors.index.json and the "
                               "listing has none; use --shard-headers all",
                               c.ref.repo_id, hub.sha)};
    mode = ShardHeaderMode::all;
  }
  transfer.shard_headers = mode == ShardHeaderMode::all ? "all" : "lengths";

  // With an index, its files are the checkpoint (a repository may hold the same
  // weights twice, e.g. Mistral's consolidated.safetensors); each must be listed.
  std::optional<SafetensorsIndex> index;
  if (index_file != nullptr) {
    const auto before_index = c.http.bytes_received();
    auto index_text = file(c, "model.safetensors.index.json");
    if (!index_text) return index_text.error();
    transfer.index_bytes = c.http.bytes_received() - before_index;
    // The text is handed over: the index's names are views into it.
    auto parsed = parse_safetensors_index(std::make_shared<const std::string>(std::move(index_text).value()),
                                          "model.safetensors.index.json");
    if (!parsed) return parsed.error();
    index = std::move(parsed).value();
  }
  std::vector<std::string> present;
  for (const auto* f : shards) present.push_back(f->path);
  const auto selection = select_checkpoint_shards(std::move(present), index ? &*index : nullptr);
  if (!selection.absent.empty())
    return Error{"model.safetensors.index.json", "weight_map",
                 fmt::format("names shard '{}', which the listing of {}@{} does not have", selection.absent.front(),
                             c.ref.repo_id, hub.sha)};
  if (auto note = selection.ignored_note()) loaded.model.notes.push_back(*note);
  files.index = std::move(index);
  std::vector<const HubFile*> checkpoint;
  for (const auto& name : selection.shards)
    for (const auto* f : shards)
      if (f->path == name) checkpoint.push_back(f);

  const auto before = c.http.bytes_received();
  // A shard's header is about the estimate's share of it; a quarter more and 4 KiB
  // of margin put nearly every header in its first request, at most 4 MiB asked.
  if (!checkpoint.empty())
    c.first_request_bytes = std::clamp<std::uint64_t>(
        transfer.estimated_header_bytes / checkpoint.size() * 5 / 4 + 4096, 16 * 1024, 4 * 1024 * 1024);
  if (mode == ShardHeaderMode::all) {
    // Every header is read, and the reconciliation uses them, not the index's names
    // (finish_loading: use_shard_headers); the shards are chosen above. The weight_map
    // and its text (about 90 MB for Kimi K3's 497,220 tensors) are released before the headers arrive,
    // and handed back to the system: the header threads' own malloc arenas would
    // otherwise grow beside the freed pages (K3's peak RSS 308 MB with them).
    if (files.index) {
      decltype(files.index->weight_map)().swap(files.index->weight_map);
      files.index->storage.reset();
      return_freed_memory();
    }
    auto named = fetch_each<NamedHeader>(c, checkpoint, "shard headers", shard_header);
    if (!named) return named.error();
    transfer.shard_headers_read = named->size();
    files.headers = std::move(named).value();
    transfer.shard_bytes = c.http.bytes_received() - before;
    return finish_loading(loaded, files, overrides);
  }
  {
    // Each shard's length (8 bytes), then whole headers only where the bytes differ.
    auto sizes = fetch_each<ShardSize>(c, checkpoint, "shard header lengths", shard_length);
    if (!sizes) return sizes.error();
    transfer.shard_lengths_read = sizes->size();
    ShardSizeCheck check(manifest, *files.index, std::move(sizes).value());
    std::vector<const HubFile*> differing;
    for (const auto& name : check.shards_needing_headers())
      for (const auto* f : checkpoint)
        if (f->path == name) differing.push_back(f);
    auto named = fetch_each<NamedHeader>(c, differing, "shard headers", shard_header);
    if (!named) return named.error();
    transfer.shard_headers_read = named->size();
    files.headers = std::move(named).value();
    transfer.shard_bytes = c.http.bytes_received() - before;
    return finish_loading(loaded, files, overrides, &check);  // while `check` and the manifest it refers to live
  }
}

}  // namespace

Result<ShardHeaderMode> parse_shard_header_mode(const std::string& text) {
  if (text == "auto") return ShardHeaderMode::automatic;
  if (text == "all") return ShardHeaderMode::all;
  if (text == "lengths") return ShardHeaderMode::lengths;
  return Error{flag_of(&Options::shard_headers), "", fmt::format("'{}' is not one of auto, all, lengths", text)};
}

Result<LoadedModel> load_hub_model(const HubReference& ref, const HubFetchOptions& options,
                                   const ModelOverrides& overrides) {
  if (auto e = validate_model_overrides(overrides)) return *e;
  prefer_small_pages();  // the index and headers are large and transient
  // Transfer limits, overridable for tests and slow links (hub/hub_settings.h:
  // PREFLIGHT_HUB_TIMEOUT_MS, _ATTEMPTS, _CONCURRENCY, _TOTAL_S), each checked.
  auto limits = hub_transfer_limits(env);
  if (!limits) return limits.error();
  auto settings = hub_settings(env);
  if (!settings) return settings.error();
  HttpOptions http;
  http.total_timeout_ms = limits->timeout_ms;
  http.connect_timeout_ms = std::min(http.connect_timeout_ms, http.total_timeout_ms);
  http.max_attempts = limits->attempts;
  http.stall_s = limits->stall_s;
  http.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limits->total_s);
  http.deadline_text = fmt::format("{} s for the whole read (PREFLIGHT_HUB_TOTAL_S)", limits->total_s);
  // Under a web request the read ends by the request's own deadline, and stops
  // when its client goes: a hub that never answers holds a worker no longer
  // than any other request.
  if (const auto* budget = options.budget) {
    if (budget->deadline < *http.deadline) {
      http.deadline = budget->deadline;
      http.deadline_text = "the request's deadline of " + budget->deadline_text;
      http.total_timeout_ms = std::max<long>(
          1, std::min<long>(http.total_timeout_ms, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                       budget->deadline - std::chrono::steady_clock::now())
                                                       .count()));
      http.connect_timeout_ms = std::min(http.connect_timeout_ms, http.total_timeout_ms);
    }
    http.cancelled = [budget] { return budget->client_gone.load(std::memory_order_relaxed) || budget->expired(); };
  }
  HubFetchOptions fetch = options;
  if (env("PREFLIGHT_HUB_CONCURRENCY")) fetch.concurrency = limits->concurrency;
  Context c{ref, std::move(settings).value(), std::nullopt, fetch, HttpClient{http}, {}, 64 * 1024, {}, {}};
  c.token = c.settings.token;
  if (!c.token)
    if (auto t = read_text(c.settings.token_file); t && !trim(*t).empty()) c.token = trim(*t);
  c.cache_root = fs::path(commit_cache_dir(c.settings, ref.repo_id, "x")).parent_path();
  auto got = listing(c);
  if (!got) return got.error();
  const auto after_listing = c.http.bytes_received();
  auto& [hub, listing_text] = *got;
  c.commit_dir = commit_cache_dir(c.settings, ref.repo_id, hub.sha);

  if (auto e = check_has_config(hub, ref)) return *e;
  auto config = file(c, "config.json");
  if (!config) return config.error();
  const auto origin = fmt::format("{}@{} config.json", ref.repo_id, hub.sha.substr(0, 12));
  ModelFiles files;
  files.name = ref.repo_id;
  files.config = std::move(config).value();
  files.config_origin = origin;
  files.artifact = facts_from_listing(hub, "");
  files.artifact->source =
      fmt::format("hub listing of {} at commit {} ({})", ref.repo_id, hub.sha, c.settings.endpoint);
  files.listing = hub;
  // ModelOpt's hf_quant_config.json, when the repo has one (merge_hf_quant_config says when it counts).
  for (const auto& f : hub.siblings) {
    if (f.path != "hf_quant_config.json") continue;
    auto hf = file(c, "hf_quant_config.json");
    if (!hf) return hf.error();
    if (auto e = take_hf_quant_config(files, *hf,
                                      fmt::format("{}@{} hf_quant_config.json", ref.repo_id, hub.sha.substr(0, 12))))
      return *e;
  }
  auto loaded = generated_model(files, overrides);
  if (!loaded) return loaded.error();

  HubTransfer transfer;
  transfer.listing_bytes = after_listing;
  transfer.config_bytes = c.http.bytes_received() - after_listing;
  if (auto e = read_checkpoint(c, hub, loaded.value(), files, overrides, transfer)) return *e;
  transfer.requests = c.http.requests();
  loaded.value().source = fmt::format(
      "hub {}@{}: listing + config.json + {}{}; {} B in {} request(s){}", ref.repo_id, hub.sha,
      files.index ? "index + " : "",
      transfer.shard_headers == "all" ? fmt::format("{} shard header(s)", transfer.shard_headers_read)
                                      : fmt::format("{} shard header length(s) + {} differing shard header(s)",
                                                    transfer.shard_lengths_read, transfer.shard_headers_read),
      with_commas(c.http.bytes_received()), c.http.requests(), c.settings.offline ? " (offline: cache only)" : "");
  loaded.value().hub_transfer = transfer;
  c.staged.commit();  // the whole read succeeded: what it fetched may serve the next one
  return loaded;
}

}  // namespace preflight::cli
