max llama-3.1-70b --gpus 4xH100 --engine vllm --solve rate --ttft 2s --tpot 50ms --context 1200 --input-tokens 1000 --output-tokens 200
