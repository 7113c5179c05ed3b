plan llama-3.1-8b --gpus 1xH100 --engine vllm --mix-file data/trace-arrivals.csv --tpot 50ms --ttft 2s --format json
