plan --gpus 8xB300 --context $(printf '9%.0s' {1..50000})
