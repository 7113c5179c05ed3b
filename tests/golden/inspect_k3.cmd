inspect kimi-k3
