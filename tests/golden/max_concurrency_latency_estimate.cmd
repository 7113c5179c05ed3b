max llama-3.1-70b --gpus 4xH100 --engine vllm --solve concurrency --ttft 2s --tpot 30ms --context 1200 --input-tokens 1000 --output-tokens 200
