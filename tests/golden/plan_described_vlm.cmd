plan ../data/arch_corpus/llava-1.5-7b-hf/config.json --gpus 1xH100 --context 8K
