kalah solve --pits 5 --seeds 3 --capture empty --end mover --tt-mb 2048 --threads 2 --json --quiet
