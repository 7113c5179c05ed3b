plan kimi-k3 --gpus 8xH100 --gpus 8xH200
