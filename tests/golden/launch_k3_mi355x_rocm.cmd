launch --gpus 8xMI355X --engine vllm --context 128K --kv-dtype fp8
