plan --gpus 10xH100 --tp 5
