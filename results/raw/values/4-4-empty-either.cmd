kalah solve --pits 4 --seeds 4 --capture empty --end either --tt-mb 2048 --threads 2 --json --quiet
