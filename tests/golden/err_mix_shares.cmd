plan --gpus 8xB300 --mix 2K:70%,32K:20%
