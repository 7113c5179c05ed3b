plan --gpus 8xB300 --context 1000000000 --concurrency 16000000
