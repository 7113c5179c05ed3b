explain --gpus 8xH100
