kalah solve --pits 4 --seeds 3 --capture standard --end mover --tt-mb 2048 --threads 2 --json --quiet
