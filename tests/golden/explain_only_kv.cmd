explain --gpus 8xB300 --context 1M --only kv
