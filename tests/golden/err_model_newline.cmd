plan $'kimi\nk3' --gpus 8xB300
