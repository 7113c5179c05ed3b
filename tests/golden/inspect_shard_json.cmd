inspect data/k3-snapshot/model-00001-of-00001.safetensors --format json
