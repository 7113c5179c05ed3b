plan kimi-k4 --gpus 8xH100
