plan --gpus 8xB300 --context 1M --engine vllm --brief
