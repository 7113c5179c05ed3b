launch --gpus 8xB300 --engine vllm --prefill-dp 2
