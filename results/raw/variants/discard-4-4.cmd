kalah solve --pits 4 --seeds 4 --remaining discard --tt-mb 1024 --threads 1 --json --quiet
