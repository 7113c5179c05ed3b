max llama-3.1-8b --gpus 1xH100 --solve rate --tpot 20ms --concurrency 8
