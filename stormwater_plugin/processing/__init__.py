"""Processing provider "Stormwater review" and its algorithms."""
