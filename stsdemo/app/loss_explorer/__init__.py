"""The *Loss explorer* tab: the two losses and their gradients for one setting of k, x0, d, and one sample's
loss and pull."""
