kalah solve --pits 4 --seeds 1 --capture standard --end either --tt-mb 2048 --threads 2 --json --quiet
