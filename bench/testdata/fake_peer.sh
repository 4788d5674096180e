#!/bin/sh
# A stand-in for a peer (or for evalstream) in the tests of RunCompare: it burns a little CPU,
# then prints its first argument, a line of JSON; given "fail" it fails as a broken peer does.
i=0
while [ "$i" -lt 20000 ]; do i=$((i + 1)); done
if [ "$1" = fail ]; then
  echo "fake peer: cannot read the corpus" >&2
  exit 3
fi
echo "loading..." >&2
printf '%s\n' "$1"
