max --gpus 8xB300 --solve context --ttft 1ms
