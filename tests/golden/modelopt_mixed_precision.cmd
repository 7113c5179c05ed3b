inspect ../validation/models/nvidia__Qwen3.6-35B-A3B-NVFP4/config.json
