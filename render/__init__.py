"""Renders observations into images (issue 3)."""
