"""The command line and the tools around the package: cli.py (`ccsim`),
bench.py (`ccsim bench`: the reference scenarios), fuzz.py (the seeded
scenario generator and run invariants, `make fuzz`), catalog.py (what
`ccsim list` prints), tracegen.py (synthetic cellular traces, `ccsim trace
generate`). The package's face is empty: import the module you use."""
