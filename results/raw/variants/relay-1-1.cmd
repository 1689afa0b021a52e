kalah solve --pits 1 --seeds 1 --sowing relay --tt-mb 1024 --threads 1 --json --quiet
