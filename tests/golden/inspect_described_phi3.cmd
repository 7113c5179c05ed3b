inspect ../data/index_corpus/phi3-prymmal-3b/config.json
