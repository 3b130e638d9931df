"""The rules of Arena's games. Standard library only: no I/O, no clock, no global randomness."""
