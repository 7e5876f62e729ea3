#!/usr/bin/env bash
# Encryption CPU of e2ee media in the browser, side by side with the same media unencrypted (issue #16): headless
# Chromium sends one 720p camera's three layers (1280x720, 640x360, 320x180, VP8, 30 fps) between two peer connections
# in one page, through the SDK's frame encryption and decryption or not, alternating ABBA; the browser process tree's
# CPU from /proc over the same windows. Installs playwright-core (npm) into bench/e2ee/cpu/node_modules when missing.
# Last line: "e2ee encryption CPU: <cores> cores per second of 720p three-layer video, encrypt + decrypt (...)".
# usage: bench/e2ee/encrypt-cpu.sh [--quick] [rounds=2] [window seconds=20]     --quick: 2 rounds of 10 s
set -euo pipefail
cd "$(dirname "$0")/cpu"
if [[ "${1:-}" == "--quick" ]]; then shift; set -- 2 10; fi
[[ -d node_modules/playwright-core ]] || npm install --no-save --no-audit --no-fund playwright-core@1.49.0 >/dev/null
exec node run.mjs "${1:-2}" "${2:-20}"
