fit kimi-k3 --gpu H100 --gpu h200 --gpu H100 --format json
