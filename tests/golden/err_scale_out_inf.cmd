plan --gpus 8xB300 --scale-out-gb-s infinity
