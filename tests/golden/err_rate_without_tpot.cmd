plan --gpus 8xB300 --rate 2
