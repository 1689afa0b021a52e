kalah solve --pits 6 --seeds 3 --sowing relay --tt-mb 1024 --threads 1 --json --quiet
