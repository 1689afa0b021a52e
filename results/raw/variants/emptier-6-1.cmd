kalah solve --pits 6 --seeds 1 --remaining emptier --tt-mb 1024 --threads 1 --json --quiet
