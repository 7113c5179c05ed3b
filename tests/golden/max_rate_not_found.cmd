max llama-3.1-70b --gpus 4xH100 --engine vllm --solve rate --tpot 5ms --context 1200
