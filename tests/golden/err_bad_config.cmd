plan data/bad-config.json --gpus 8xH100
