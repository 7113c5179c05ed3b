plan --gpus 32xH100 --context 1M --tp 32
