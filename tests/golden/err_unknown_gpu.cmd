plan --gpus 8xH1OO
