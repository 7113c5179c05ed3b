plan '' --gpus 8xB300
