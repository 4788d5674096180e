#!/bin/sh
# A stand-in for a peer (or for evalstream) in the tests of RunCompare: it burns a little CPU,
# then prints its first argument, a line of JSON; given "fail" it fails as a broken peer does,
# given "not-applicable" it refuses the input as peers.py does.
i=0
while [ "$i" -lt 20000 ]; do i=$((i + 1)); done
case $1 in
  fail)
    echo "fake peer: cannot read the corpus" >&2
    exit 4 ;;
  not-applicable)
    echo "not applicable: it takes one reference per record" >&2
    exit 3 ;;
esac
echo "loading..." >&2
printf '%s\n' "$1"
