plan kimi-linear-48b --gpus 1xH200 --engine sglang --context 128K --format json
