plan --gpus 8xB300 --price inf
