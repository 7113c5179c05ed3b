plan --gpus 8xH100 --catalogue data/bad-catalogue.json
