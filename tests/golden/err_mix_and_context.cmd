plan --gpus 8xB300 --mix 2K:100% --context 8K
