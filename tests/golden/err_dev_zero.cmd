plan /dev/zero --gpus 8xB300
