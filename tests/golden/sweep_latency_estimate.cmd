sweep llama-3.1-70b --engine vllm --ttft 2s --tpot 30ms --context 1200 --input-tokens 1000 --output-tokens 200 --concurrency 64 --counts 1..16 --gpu H100 --gpu A100 --gpu L40S --format json
