kalah solve --pits 1 --seeds 4 --opp-store sow --tt-mb 1024 --threads 1 --json --quiet
