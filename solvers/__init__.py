"""Everything that produces iterates or optima: problems, oracles, reference solutions."""
