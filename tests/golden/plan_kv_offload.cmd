plan deepseek-v3 --gpus 16xH200 --context 32K --concurrency 64 --kv-offload 1024
