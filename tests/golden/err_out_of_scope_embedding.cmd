plan data/nv-embed-config.json --gpus 1xH100
