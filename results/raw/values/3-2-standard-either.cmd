kalah solve --pits 3 --seeds 2 --capture standard --end either --tt-mb 2048 --threads 2 --json --quiet
