serve --max-body 0
