#include "engine/vllm_kv_cache.h"

#include <algorithm>
#include <map>

#include "core/bytes.h"

namespace preflight {

namespace {

bool is_token_kind(KvSpecKind k) { return k != KvSpecKind::state; }

// max_memory_usage_bytes / page: blocks one request of max_model_len needs in
// one layer of this kind (kv_cache_interface.py).
std::uint64_t blocks_for_request(const KvLayerSpec& s, const KvCacheInputs& in, std::uint64_t block) {
  const auto mml = in.max_model_len;
  switch (s.kind) {
    case KvSpecKind::full:
    case KvSpecKind::mla:
      return ceil_div(ceil_div(mml, std::max<std::uint64_t>(in.dcp, 1)), block);
    case KvSpecKind::sliding: {
      const auto tokens = std::min(s.window > 0 ? s.window - 1 + in.max_num_batched_tokens : mml, mml);
      return ceil_div(tokens, block) + 1;
    }
    case KvSpecKind::chunked:
      return ceil_div(std::min(s.window + in.max_num_batched_tokens, mml), block);
    case KvSpecKind::state:
      return 1 + in.spec_state_blocks;
  }
  return 0;
}

}  // namespace

KvCacheShape vllm_kv_cache_shape(const KvCacheInputs& in) {
  KvCacheShape out;
  out.block_size = std::max<std::uint64_t>(in.block_size, 1);
  if (in.layers.empty()) return out;

  // Per kind: layer count and the largest per-layer size.
  std::map<KvSpecKind, std::uint64_t> count;
  std::uint64_t max_token_bytes = 0, max_state = 0;
  for (const auto& l : in.layers) {
    ++count[l.kind];
    if (is_token_kind(l.kind))
      max_token_bytes = std::max(max_token_bytes, l.bytes_per_token);
    else
      max_state = std::max(max_state, l.state_bytes);
  }
  const bool has_state = max_state > 0;
  const bool has_tokens = max_token_bytes > 0;
  out.state_page_unpadded = max_state;

  // Hybrid alignment: the smallest multiple of the kernel block size whose
  // attention page holds one state page; the state page is padded to match.
  if (has_state && has_tokens) {
    const auto align = std::max<std::uint64_t>(in.kernel_block_multiple, 1);
    const auto needed = align * ceil_div(max_state, align * max_token_bytes);
    out.block_size = std::max(out.block_size, needed);
  }

  // One kind with equal pages: one group, blocks cost the sum of the layers' pages.
  if (count.size() == 1) {
    out.uniform = true;
    out.groups = 1;
    out.group_size = in.layers.size();
    const auto kind = count.begin()->first;
    out.token_groups = is_token_kind(kind) ? 1 : 0;
    out.state_groups = 1 - out.token_groups;
    std::uint64_t per_block = 0;
    for (const auto& l : in.layers)
      per_block = checked_add(per_block,
                              is_token_kind(l.kind) ? checked_mul(l.bytes_per_token, out.block_size) : l.state_bytes);
    out.bytes_per_block = per_block;
    out.page_bytes = is_token_kind(kind) ? checked_mul(max_token_bytes, out.block_size) : max_state;
    out.blocks_per_request = blocks_for_request(in.layers.front(), in, out.block_size);
    out.state_blocks_per_request = out.state_groups > 0 ? out.blocks_per_request : 0;
    return out;
  }

  // Several kinds: pages unified, layers split into groups of equal size
  // (group_size = min layers per kind, or the max when max < 1.5 x min).
  out.uniform = false;
  out.page_bytes = has_tokens ? checked_mul(max_token_bytes, out.block_size) : max_state;
  std::uint64_t min_n = UINT64_MAX, max_n = 0;
  for (const auto& [kind, n] : count) {
    min_n = std::min(min_n, n);
    max_n = std::max(max_n, n);
  }
  out.group_size = (static_cast<double>(max_n) < 1.5 * static_cast<double>(min_n)) ? max_n : min_n;
  for (const auto& [kind, n] : count) {
    const auto groups = ceil_div(n, out.group_size);
    out.groups += groups;
    out.padding_layers += groups * out.group_size - n;
    const KvLayerSpec* sample = nullptr;
    std::uint64_t kind_bytes = 0;
    for (const auto& l : in.layers)
      if (l.kind == kind) {
        sample = &l;
        kind_bytes = std::max(kind_bytes, l.bytes_per_token);
      }
    // unify_kv_cache_spec_page_size: a kind with smaller pages gets blocks of
    // (largest page / its page) x block_size tokens, so every page is equal.
    const auto kind_block = is_token_kind(kind) && kind_bytes > 0 && kind_bytes < max_token_bytes
                                ? out.block_size * (max_token_bytes / kind_bytes)
                                : out.block_size;
    const auto blocks = blocks_for_request(*sample, in, kind_block);
    out.blocks_per_request += groups * blocks;
    if (is_token_kind(kind))
      out.token_groups += groups;
    else {
      out.state_groups += groups;
      out.state_blocks_per_request += groups * blocks;
    }
  }
  // One block index costs one page in each of the group_size shared tensors.
  out.bytes_per_block = checked_mul(out.page_bytes, out.group_size);
  return out;
}

KvCacheReport vllm_kv_cache_report(const KvCacheShape& shape, std::uint64_t available, const KvCacheInputs& in,
                                   bool tokens_from_concurrency) {
  KvCacheReport r;
  if (shape.bytes_per_block == 0) return r;
  r.num_blocks = available / shape.bytes_per_block;
  const auto dcp = std::max<std::uint64_t>(in.dcp, 1);
  if (shape.blocks_per_request > 0)
    r.max_concurrency = static_cast<double>(r.num_blocks) / static_cast<double>(shape.blocks_per_request);
  if (tokens_from_concurrency && in.max_model_len > 0)
    r.kv_cache_tokens = static_cast<std::uint64_t>(r.max_concurrency * static_cast<double>(in.max_model_len));
  else
    r.kv_cache_tokens =
        checked_mul(checked_mul(r.num_blocks / std::max<std::uint64_t>(shape.groups, 1), shape.block_size), dcp);
  return r;
}

}  // namespace preflight
