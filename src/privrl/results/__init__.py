"""privrl.results."""
