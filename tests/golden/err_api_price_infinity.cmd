plan --gpus 8xB300 --api-price Infinity
