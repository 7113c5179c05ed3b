plan $'\e[2Jx' --gpus 8xB300
