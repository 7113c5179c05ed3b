plan --gpus 8xH100
