max kimi-k3 --gpus 8xB300 --engine vllm --solve rate --ttft 3s --tpot 60ms --context 8K --input-tokens 6000 --output-tokens 1000 --format json
