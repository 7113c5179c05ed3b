plan --gpus 8xB300 --context ''
