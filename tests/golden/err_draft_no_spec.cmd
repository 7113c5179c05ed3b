plan llama-3.1-8b-instruct --gpus 1xH100 --draft qwen3-0.6b
