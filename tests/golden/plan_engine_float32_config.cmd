plan data/f32-qwen3/config.json --gpus 1xH100 --engine vllm --context 8K
