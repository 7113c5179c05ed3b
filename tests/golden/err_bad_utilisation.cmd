plan --gpus 8xB300 --utilisation 150%
