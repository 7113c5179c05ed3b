plan llama-3.1-8b-instruct --gpus 2xH100 --ep 2
