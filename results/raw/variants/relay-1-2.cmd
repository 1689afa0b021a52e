kalah solve --pits 1 --seeds 2 --sowing relay --tt-mb 1024 --threads 1 --json --quiet
