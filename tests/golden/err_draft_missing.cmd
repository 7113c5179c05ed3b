plan --gpus 8xB300 --spec-tokens 2 --draft /nonexistent
