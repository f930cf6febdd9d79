"""Paper 002: Esser et al., SSL learning dynamics -- dimension collapse, constraints, linear/nonlinear closeness and
the Grassmannian dynamics. One module per result; importing this package registers them."""
