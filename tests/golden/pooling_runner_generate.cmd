plan ../validation/models/Qwen__Qwen3-Embedding-8B --gpus 1xh100-sxm-80gb --engine vllm --engine-version 0.12.0 --context 8192 --runner generate
