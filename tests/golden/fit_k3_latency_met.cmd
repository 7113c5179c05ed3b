fit kimi-k3 --gpu B300 --context 128K --tpot 200ms --ttft 10s
