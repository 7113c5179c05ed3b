plan llama-3.1-8b-instruct --gpus 1xH100 --engine vllm --context 8192 --gpu-memory-utilization 0.95 --format json --engine-version 0.19.0
