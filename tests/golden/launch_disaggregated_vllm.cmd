launch kimi-k3 --prefill-gpus 8xB300 --decode-gpus 8xB300 --engine vllm --context 128K
