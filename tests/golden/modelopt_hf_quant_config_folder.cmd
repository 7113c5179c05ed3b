inspect data/modelopt-hf-quant-config
