kalah solve --pits 4 --seeds 2 --remaining discard --tt-mb 1024 --threads 1 --json --quiet
