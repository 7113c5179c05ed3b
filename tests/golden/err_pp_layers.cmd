plan llama-3.1-8b-instruct --gpus 64xH100 --pp 64
