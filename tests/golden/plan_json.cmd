plan --gpus 8xH100 --format json
