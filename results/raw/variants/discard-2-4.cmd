kalah solve --pits 2 --seeds 4 --remaining discard --tt-mb 1024 --threads 1 --json --quiet
