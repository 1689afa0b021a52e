kalah solve --pits 4 --seeds 6 --capture empty --end mover --tt-mb 2048 --threads 2 --json --quiet
