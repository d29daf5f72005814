"""One module per CLI command; each is a thin layer over library functions."""
