"""Arbor's benchmarks (issue 2, DESIGN.md §10). Run ``benchmarks/run_all.py``; see docs/PERFORMANCE.md."""
