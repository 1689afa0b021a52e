kalah solve --pits 5 --seeds 4 --capture standard --end either --tt-mb 2048 --threads 2 --json --quiet
