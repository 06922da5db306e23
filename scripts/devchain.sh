#!/bin/sh
# npm run devchain -- [--port N] [--env-file PATH]
# Node 20 scans every argument for --env-file, even after the script name, and exits 9
# ("not found") before our script runs if that file does not exist yet. Create it first.
# (Node does not load it as its own env file here; scripts/devchain.ts overwrites it.)
prev=
for arg in "$@"; do
  if [ "$prev" = "--env-file" ]; then : >> "$arg" || exit 1; fi
  case "$arg" in --env-file=*) : >> "${arg#--env-file=}" || exit 1 ;; esac
  prev=$arg
done
exec "$(dirname "$0")/../node_modules/.bin/tsx" "$(dirname "$0")/devchain.ts" "$@"
