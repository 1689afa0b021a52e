kalah solve --pits 6 --seeds 5 --opp-store sow --tt-mb 1024 --threads 1 --json --quiet
