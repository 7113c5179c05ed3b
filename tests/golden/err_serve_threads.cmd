serve --threads 100000
