"""The *Benchmark* tab: a model on the seven SentEval tasks beside published scores, and the project's
recorded evidence."""
