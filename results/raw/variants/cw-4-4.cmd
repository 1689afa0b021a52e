kalah solve --pits 4 --seeds 4 --direction cw --tt-mb 1024 --threads 1 --json --quiet
