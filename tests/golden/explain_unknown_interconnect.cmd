explain --gpus 64xtrainium2 --context 32K
