kalah solve --pits 4 --seeds 6 --sowing relay --tt-mb 1024 --threads 1 --json --quiet
