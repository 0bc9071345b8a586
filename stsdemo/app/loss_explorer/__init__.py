"""The *Loss explorer* tab: the page's Loss explorer (the two losses and their pulls for one setting of k, x0, d,
and one sample's loss and pull) in a frame."""
