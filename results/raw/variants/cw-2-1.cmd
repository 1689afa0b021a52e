kalah solve --pits 2 --seeds 1 --direction cw --tt-mb 1024 --threads 1 --json --quiet
