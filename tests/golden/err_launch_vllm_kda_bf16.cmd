launch --gpus 8xB300 --engine vllm --state-dtype bf16
