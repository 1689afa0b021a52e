kalah solve --pits 5 --seeds 6 --capture standard --end either --tt-mb 2048 --threads 2 --json --quiet
