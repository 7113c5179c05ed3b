plan qwen3-235b --gpus 8xH100
