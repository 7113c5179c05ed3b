plan deepseek-v3 --gpus 8xapple-m3-ultra --context 32K --ttft 2s --tpot 50ms --rate 4
