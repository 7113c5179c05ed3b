plan --gpus 8xB300 --engine vllm --engine-version 0.19.0 --context 128K
