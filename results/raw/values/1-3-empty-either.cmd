kalah solve --pits 1 --seeds 3 --capture empty --end either --tt-mb 2048 --threads 2 --json --quiet
