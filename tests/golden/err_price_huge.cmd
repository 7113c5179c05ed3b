plan --gpus 8xB300 --price 1e308
