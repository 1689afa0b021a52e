kalah solve --pits 3 --seeds 3 --capture standard --end mover --tt-mb 2048 --threads 2 --json --quiet
