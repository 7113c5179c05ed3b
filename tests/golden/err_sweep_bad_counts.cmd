sweep --counts 8..4
