"""Base datasets: the prompt and response texts that annotation files refer to by id."""
