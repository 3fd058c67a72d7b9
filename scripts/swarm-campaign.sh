#!/usr/bin/env bash
# The swarm campaign (docs/testing.md "Swarm campaign"), outside `npm test`: a 10 000-seed --swarm sweep
# of scenarios/e4-priority-stress.json, every scenario file at 200 seeds, and 10 000 generated root and
# 10 000 generated resident scenarios, each run under the swarm; it prints violations, lost tasks, runs/s,
# wall time and the sometimes-states reached per part and writes reports/swarm-campaign/summary.json (and
# each failing generated scenario beside it).
#
#   scripts/swarm-campaign.sh [--seeds N] [--scenario-seeds S] [--workers W]
#                             [--part e4,scenarios,generated,residents] [--out DIR]
#
# Exit 0 when no run failed and every listed state was reached, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/swarm-campaign.ts "$@"
