#!/usr/bin/env bash
# The crash campaign (docs/testing.md "Crash campaign"), outside `npm test`: real `serve` processes on
# one data directory, killed at random instants (SIGKILL, sometimes SIGTERM) and started again while
# clients submit; then every acknowledged task must have exactly one terminal, no delta of an abandoned
# attempt may follow its reset, and `sim replay` of the journal must give the last shutdown's hash. It
# prints the figures and writes reports/crash-campaign/summary.json.
#
#   scripts/crash-campaign.sh [--kills N] [--seed S] [--clients C] [--out DIR]
#
# Exit 0 when every check passed, 1 when one did not (with the seed that repeats the campaign).
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/crash-campaign.ts "$@"
