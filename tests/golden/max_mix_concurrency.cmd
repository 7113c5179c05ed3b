max deepseek-v3 --gpus 8xH200 --mix 2K:70%,32K:25%,128K:5% --solve concurrency
