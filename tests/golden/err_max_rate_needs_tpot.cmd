max llama-3.1-8b --gpus 1xH100 --solve rate --ttft 2s --context 1200
