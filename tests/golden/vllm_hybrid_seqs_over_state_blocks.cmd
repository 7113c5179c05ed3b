plan kimi-linear-48b --gpus 1xH200 --engine vllm --context 1M --max-num-seqs 4096 --brief
