plan deepseek-v3 --gpus 8xH200 --engine vllm --mix-file data/trace.csv --concurrency 64 --format json
