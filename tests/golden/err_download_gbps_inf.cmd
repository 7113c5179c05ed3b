plan --gpus 8xB300 --download-gbps INF
