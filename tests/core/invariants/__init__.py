"""Invariant property suite of issue 21: a site generator, an outcome signature and the transformations."""
