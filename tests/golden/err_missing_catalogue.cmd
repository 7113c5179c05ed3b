gpus --catalogue data/nope.json
