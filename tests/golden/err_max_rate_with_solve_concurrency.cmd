max --gpus 8xB300 --context 128K --solve concurrency --tpot 50ms --rate 1
