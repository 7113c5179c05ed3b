plan kimi-k3 --gpus 8xB300 --engine vllm --context 8K --input-tokens 6000 --output-tokens 1000 --ttft 3s --tpot 60ms --rate 1.5
