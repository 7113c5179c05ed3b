plan kimi-k3 --gpus 8xB300 --tp 8 --mix 2K:70%,32K:25%,1M:5% --concurrency 16
