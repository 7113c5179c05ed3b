plan kimi-k3 --gpus 8xB300 --context 128K --tpot 50ms --ttft 10s --rate 0.05 --format json
