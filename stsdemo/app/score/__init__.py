"""The *Score* tab: one pair (or a file of pairs) scored on the label line, by the shipped or a chosen scorer."""
