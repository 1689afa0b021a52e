kalah solve --pits 5 --seeds 4 --remaining emptier --tt-mb 1024 --threads 1 --json --quiet
