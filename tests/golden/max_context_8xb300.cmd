max kimi-k3 --gpus 8xB300 --solve context --concurrency 8 --tp 8
