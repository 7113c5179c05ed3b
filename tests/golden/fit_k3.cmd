fit kimi-k3
