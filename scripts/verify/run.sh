#!/usr/bin/env bash
# Independent verification of the analytics rows against the real LSR results files.
# Imports the files into a scratch data dir, processes, exports, and compares with
# scripts/verify/lsr_features.py (Python 3.11, standard library only): every field of features.md and
# catalogue.md for every runner. Exits non-zero on any mismatch, on a runner missing on either side and
# on an empty export. See docs/verification.md.
#   bash scripts/verify/run.sh            # compare
#   bash scripts/verify/run.sh --probe    # also measure every ambiguity's alternative reading (~45 min)
#   RACING_DATA_DIR=... EXPORT=... bash scripts/verify/run.sh   # scratch dir and export file elsewhere
set -euo pipefail
cd "$(dirname "$0")/../.."
export RACING_DATA_DIR="${RACING_DATA_DIR:-/tmp/verify-data}" LOG_LEVEL="${LOG_LEVEL:-warn}"
EXPORT="${EXPORT:-/tmp/verify-export.ndjson}"
DATA=../shared/data/lsr-racingdata
rm -rf "$RACING_DATA_DIR"
node --import tsx cli/racing.ts import results-csv "$DATA"/*/*.csv
node --import tsx cli/racing.ts process
node --import tsx cli/racing.ts export analytics --out "$EXPORT"
python3 -B scripts/verify/lsr_features.py --data "$DATA" --export "$EXPORT" "$@"
