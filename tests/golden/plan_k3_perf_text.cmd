plan --gpus 8xB300 --context 128K --concurrency 8 --price 7 --api-price 2.5 --spec-tokens 3 --tp 8
