kalah solve --pits 6 --seeds 2 --remaining discard --tt-mb 1024 --threads 1 --json --quiet
