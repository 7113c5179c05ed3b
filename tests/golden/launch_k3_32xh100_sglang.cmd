launch --gpus 32xH100 --engine sglang
