sweep kimi-k3 --gpu H100 --counts 8,16,24,32 --format csv
