explain llama-3.1-8b-instruct --gpus 1xH100 --context 128
