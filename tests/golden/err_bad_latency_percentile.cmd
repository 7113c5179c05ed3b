max llama-3.1-8b --gpus 1xH100 --solve concurrency --tpot 20ms --latency-percentile 95
