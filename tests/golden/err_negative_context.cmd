plan --gpus 8xH100 --context=-5
