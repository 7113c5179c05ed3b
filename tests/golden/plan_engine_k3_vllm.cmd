plan --gpus 8xB300 --engine vllm --context 1M --kv-dtype fp8
