plan qwen2.5-7b-instruct-w8a8 --gpus 1xH100 --quantize fp8
