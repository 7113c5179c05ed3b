plan --prefill-gpus 8xB300 --gpus 8xB300
