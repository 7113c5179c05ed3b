inspect data/snapshot-with-consolidated
