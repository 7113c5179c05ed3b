plan --gpus 16xH200 --context 1M --kv-dtype fp8
