kalah solve --pits 3 --seeds 4 --direction cw --tt-mb 1024 --threads 1 --json --quiet
