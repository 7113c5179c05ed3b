plan --gpus 8xB300 --context 128K --concurrency 4 --format md
