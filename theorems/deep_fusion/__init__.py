"""Paper 000: "Deep Fusion" -- block-diagonal attention, the noise lemma, cluster integrity and sharpness growth in
transformer projection heads. One module per result; importing this package registers them."""
