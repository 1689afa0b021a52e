kalah solve --pits 6 --seeds 5 --capture standard --end mover --tt-mb 2048 --threads 2 --json --quiet
