#!/usr/bin/env bash
# The swarm campaign (README "Swarm campaign"), outside `npm test`: a 10 000-seed --swarm sweep of
# scenarios/e4-priority-stress.json and 10 000 generated scenarios (the generated-scenario property's)
# each run under the swarm; it prints violations, lost tasks, runs/s and wall time per part and writes
# reports/swarm-campaign/summary.json (and each failing generated scenario beside it).
#
#   scripts/swarm-campaign.sh [--seeds N] [--workers W] [--part e4|generated|both] [--out DIR]
#
# Exit 0 when no run failed, 1 when one did.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/swarm-campaign.ts "$@"
