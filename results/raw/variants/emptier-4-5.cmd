kalah solve --pits 4 --seeds 5 --remaining emptier --tt-mb 1024 --threads 1 --json --quiet
