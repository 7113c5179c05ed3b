plan --gpus 8xB300 --decode-tp 4
