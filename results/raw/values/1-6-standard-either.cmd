kalah solve --pits 1 --seeds 6 --capture standard --end either --tt-mb 2048 --threads 2 --json --quiet
