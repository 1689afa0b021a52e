kalah solve --pits 5 --seeds 1 --opp-store sow --tt-mb 1024 --threads 1 --json --quiet
