kalah solve --pits 2 --seeds 3 --remaining emptier --tt-mb 1024 --threads 1 --json --quiet
