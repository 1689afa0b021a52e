kalah solve --pits 4 --seeds 6 --opp-store sow --tt-mb 1024 --threads 1 --json --quiet
