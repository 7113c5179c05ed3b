plan llama-3.1-8b --gpus 1xH100 --engine vllm --context 1200 --input-tokens 1000 --output-tokens 200 --rate 8 --tpot 100ms --format json
