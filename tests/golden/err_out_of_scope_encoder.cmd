plan data/bert-config.json --gpus 8xH100
