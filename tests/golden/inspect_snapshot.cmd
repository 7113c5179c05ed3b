inspect data/k3-snapshot
