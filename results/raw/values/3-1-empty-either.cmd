kalah solve --pits 3 --seeds 1 --capture empty --end either --tt-mb 2048 --threads 2 --json --quiet
