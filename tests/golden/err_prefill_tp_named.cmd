plan --prefill-gpus 8xB300 --decode-gpus 8xB300 --prefill-tp 3 --context 8K
