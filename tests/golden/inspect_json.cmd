inspect --format json
