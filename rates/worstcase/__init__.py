"""Worst cases by performance estimation (PEP, through PEPit): how tight each bound is.

A PEP computes the exact worst case of a method over a whole function class by a small SDP
(Drori & Teboulle 2014; Taylor, Hendrickx & Glineur 2017).  ``spec`` states one computation,
``methods`` writes the federated methods of the source papers as PEPit programs, ``solve`` runs
the SDP and records the outcome (never raising for a solver failure), ``tightness`` compares a
worst case with a theorem's terms.
"""
