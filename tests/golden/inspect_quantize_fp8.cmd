inspect llama-3.1-8b-instruct --quantize fp8
