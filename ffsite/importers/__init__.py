"""Importers: foreign formats in, ffsite votes files out."""
