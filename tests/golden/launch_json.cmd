launch kimi-k3 --gpus 16xH200 --engine vllm --tp 16 --format json
