plan qwen3-14b --gpus 1xH100 --engine vllm --context 32k
