plan --gpus 8xB300 --tpot 5min
