launch --gpus 8xB300 --engine sglang --dcp 2
