#!/usr/bin/env bash
# Randomized power cuts: RAID1, RAID10 (n2, f2) and RAID5 of image files,
# each with and without a write-intent bitmap. A workload runs with every
# member write and flush recorded; the record is replayed up to random cut
# points (writes not yet flushed dropped, applied whole or torn at 512
# bytes), the array is assembled again (resync included) and must hold every
# acknowledged-and-flushed write, check must find 0 mismatches, and a read
# with any one member left out must return what the whole array returns.
# (tests/tools/powercut_trial.hpp has the exact rules.)
#
#   tests/soak/powercut-trials.sh POWERCUT_TRIALS [CUTS] [SEED]   (default 1000 cuts, seed 1)
# Prints a line per shape and a total; exit 1 if any cut failed.
set -euo pipefail
TRIALS=${1:?usage: powercut-trials.sh path/to/rs_powercut_trials [CUTS] [SEED]}
CUTS=${2:-1000}
SEED=${3:-1}
echo "power cuts: $CUTS, seed $SEED, $(date -u +%Y-%m-%dT%H:%MZ)"
exec "$TRIALS" "$CUTS" --seed="$SEED"
