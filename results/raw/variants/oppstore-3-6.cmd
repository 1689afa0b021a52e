kalah solve --pits 3 --seeds 6 --opp-store sow --tt-mb 1024 --threads 1 --json --quiet
