max kimi-k3 --gpus 16xH200 --context 128K --solve concurrency
