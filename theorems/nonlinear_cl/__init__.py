"""Paper 001: Tian, nonlinearity in contrastive learning -- locally maximal eigenvectors (LMEs), their stability
and convergence, and the 2-layer results. One module per result; importing this package registers them."""
