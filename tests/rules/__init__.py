"""Scenario tests of the rules engine, one or more per rule id of docs/rules.md (R1-R66, D1-D8)."""
