kalah solve --pits 4 --seeds 2 --remaining emptier --tt-mb 1024 --threads 1 --json --quiet
