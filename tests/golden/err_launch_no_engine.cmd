launch --gpus 8xH100
