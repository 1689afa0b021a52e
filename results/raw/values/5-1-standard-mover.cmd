kalah solve --pits 5 --seeds 1 --capture standard --end mover --tt-mb 2048 --threads 2 --json --quiet
