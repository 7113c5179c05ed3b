launch deepseek-v3 --gpus 8xH200 --engine vllm --context 32K --spec-tokens 1
