kalah solve --pits 3 --seeds 1 --remaining discard --tt-mb 1024 --threads 1 --json --quiet
