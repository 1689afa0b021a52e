kalah solve --pits 2 --seeds 6 --capture empty --end either --tt-mb 2048 --threads 2 --json --quiet
