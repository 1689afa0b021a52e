kalah solve --pits 2 --seeds 5 --capture empty --end either --tt-mb 2048 --threads 2 --json --quiet
