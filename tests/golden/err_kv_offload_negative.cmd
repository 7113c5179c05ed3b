plan --gpus 8xH200 --context 32K --kv-offload -1
