plan data/qwen3-reranker-config.json --gpus 1xL4
