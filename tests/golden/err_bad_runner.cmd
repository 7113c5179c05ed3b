plan ../validation/models/Qwen__Qwen3-Embedding-8B/config.json --gpus 1xh100-sxm-80gb --engine vllm --runner embed
