plan --gpus 8xB300 --read-gb-s inf
