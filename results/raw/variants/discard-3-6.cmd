kalah solve --pits 3 --seeds 6 --remaining discard --tt-mb 1024 --threads 1 --json --quiet
