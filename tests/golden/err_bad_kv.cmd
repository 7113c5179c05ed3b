plan --gpus 8xH100 --kv-dtype fp4
