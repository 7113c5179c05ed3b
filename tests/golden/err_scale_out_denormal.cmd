plan --gpus 8xB300 --context 128K --scale-out-gb-s 5e-324
