max --gpus 8xB300 --mix 2K:100% --solve context
