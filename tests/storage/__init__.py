"""The storage tests, run on every backend; ``backends`` holds each backend's raw door."""
