sweep kimi-k3 --gpu B300 --counts 8 --context 128K --concurrency 16 --price 7 --format csv
