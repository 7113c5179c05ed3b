plan --gpus 8xB300 --rate 2 --concurrency 4 --tpot 50ms
