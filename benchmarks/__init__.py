"""Speed and size measurements; each module is a script printing its figures."""
