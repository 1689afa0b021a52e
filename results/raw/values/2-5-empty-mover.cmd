kalah solve --pits 2 --seeds 5 --capture empty --end mover --tt-mb 2048 --threads 2 --json --quiet
