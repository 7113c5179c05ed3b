plan --gpus 8xB300 --concurrency 1000000000000000000
