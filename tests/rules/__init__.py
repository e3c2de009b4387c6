"""Scenario tests of the rules engine, one or more per rule id of RULES.md (R1-R66, D1-D8)."""
