"""Paper 003: Huang et al., generalisation of contrastive SSL -- augmentation concentration, the downstream error
bound, and what InfoNCE and Barlow Twins control. One module per result; importing this package registers them."""
