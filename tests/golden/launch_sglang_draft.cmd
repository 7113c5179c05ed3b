launch llama-3.1-8b-instruct --gpus 1xH100 --engine sglang --context 8K --spec-tokens 4 --draft qwen3-0.6b
