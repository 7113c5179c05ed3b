max --gpus 8xB300
