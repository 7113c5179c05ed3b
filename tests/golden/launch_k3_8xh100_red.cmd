launch --gpus 8xH100 --engine vllm
