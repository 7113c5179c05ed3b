plan --gpus 8xB300 --prompt-tokens 1000000000000000
