kalah solve --pits 4 --seeds 1 --capture empty --end mover --tt-mb 2048 --threads 2 --json --quiet
