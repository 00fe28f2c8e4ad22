"""Results and their analysis: results.py (a run's tables as polars frames,
Parquet and the manifest; running a scenario), metrics.py (the studies'
metrics from result tables), plot.py (a run's figures), figures.py
(matplotlib Figures made without pyplot), pcap.py (captured packets as pcap
files). The package's face is empty: import the module you use."""
