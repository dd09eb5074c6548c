"""privrl.rl."""
