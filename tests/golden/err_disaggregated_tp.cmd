plan --prefill-gpus 8xB300 --decode-gpus 8xB300 --tp 8
