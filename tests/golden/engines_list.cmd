engines
