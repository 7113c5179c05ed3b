serve --host 256.1.1.1
