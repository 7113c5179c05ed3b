plan llama-3.1-8b-instruct --gpus 1xH100 --engine vllm --spec-tokens 3 --brief
