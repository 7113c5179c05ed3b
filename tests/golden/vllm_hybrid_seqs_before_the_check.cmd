plan kimi-linear-48b --gpus 1xH200 --engine vllm --engine-version 0.19 --context 1M --max-num-seqs 4096 --brief
