kalah solve --pits 3 --seeds 3 --opp-store sow --tt-mb 1024 --threads 1 --json --quiet
