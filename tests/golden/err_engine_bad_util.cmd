plan --gpus 8xB300 --engine vllm --gpu-memory-utilization 1.5
