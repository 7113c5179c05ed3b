plan kimi-k3 --prefill-gpus 8xB300 --decode-gpus 8xB300 --context 128K --concurrency 8 --format json
