kalah solve --pits 1 --seeds 6 --capture empty --end mover --tt-mb 2048 --threads 2 --json --quiet
