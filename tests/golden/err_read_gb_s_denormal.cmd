plan --gpus 8xB300 --context 128K --read-gb-s 5e-324
