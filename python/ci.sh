#!/usr/bin/env bash
# CI of the Python package (called by .ci/run): builds the wheel with the static binary,
# installs it with the pinned test dependencies (requirements-ci.txt) into a fresh venv,
# starts a real Spark standalone cluster (a master and two workers, separate JVMs from the
# pyspark package's jars; one core and 512 MiB per executor), and runs pytest: the API
# against the CLI, Spark and Ray (a local Ray cluster started by the tests) on the WMT17
# sample and the classification example, including an executor/worker killed mid-job.
# Everything lives in a temporary directory removed at the end; only the processes this
# script started are stopped.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
t0=$(date +%s)
work=$(mktemp -d /tmp/evalstream-python-ci.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${EVALSTREAM_PY_VENV:-}" ]; then
  # For a developer's reruns: a venv already holding requirements-ci.txt.
  py=$EVALSTREAM_PY_VENV/bin/python
else
  echo "== python: venv, pinned test dependencies"
  python3 -m venv "$work/venv"
  py=$work/venv/bin/python
  "$py" -m pip install -q -r requirements-ci.txt
fi

echo "== python: wheel (static Go binary inside)"
"$py" -m build --wheel --no-isolation --outdir "$work/dist" . >/dev/null
rm -rf build
wheel=$(ls "$work"/dist/evalstream-*.whl)
echo "   $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
"$py" -m pip install -q --force-reinstall --no-deps "$wheel"

echo "== python: Spark standalone cluster (master + 2 workers)"
# The pyspark package holds Spark's jars but is not a Spark distribution: a worker builds its
# executors' class path from a SPARK_HOME with a RELEASE file and jars/, and needs the Scala
# version when it cannot find a build directory.
pyspark_dir=$("$py" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
mkdir -p "$work/spark-home"
ln -s "$pyspark_dir/jars" "$work/spark-home/jars"
touch "$work/spark-home/RELEASE"
export SPARK_HOME=$work/spark-home
SPARK_SCALA_VERSION=$(ls "$pyspark_dir/jars" | sed -n 's/^spark-core_\([0-9.]*\)-.*\.jar$/\1/p')
export SPARK_SCALA_VERSION
export SPARK_LOCAL_IP=127.0.0.1
export PYSPARK_PYTHON=$py  # the executors' Python: the venv holding the wheel
free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
java -Xmx256m -cp "$SPARK_HOME/jars/*" org.apache.spark.deploy.master.Master \
  --host 127.0.0.1 --port "$port" --webui-port "$(free_port)" >"$work/master.log" 2>&1 &
pids+=($!)
for i in $(seq 600); do
  if grep -qs "I have been elected leader" "$work/master.log"; then break; fi
  if [ "$i" = 600 ]; then cat "$work/master.log"; echo "spark master did not start"; exit 1; fi
  sleep 0.3
done
for w in 1 2; do
  mkdir -p "$work/worker$w"
  java -Xmx256m -cp "$SPARK_HOME/jars/*" org.apache.spark.deploy.worker.Worker \
    --host 127.0.0.1 --cores 1 --memory 768m --webui-port "$(free_port)" --work-dir "$work/worker$w" \
    "spark://127.0.0.1:$port" >"$work/worker$w.log" 2>&1 &
  pids+=($!)
done
for w in 1 2; do
  for i in $(seq 600); do
    if grep -qs "Successfully registered with master" "$work/worker$w.log"; then break; fi
    if [ "$i" = 600 ]; then cat "$work/worker$w.log"; echo "spark worker $w did not register"; exit 1; fi
    sleep 0.3
  done
done
export EVALSTREAM_SPARK_MASTER="spark://127.0.0.1:$port"
export EVALSTREAM_REQUIRE_ENGINES=1  # an engine that cannot start fails CI rather than skipping

echo "== python: pytest (API vs CLI, Spark, Ray)"
# From the tests directory, so that `import evalstream` is the installed wheel, not src/.
unset SPARK_HOME  # the driver runs pyspark's own launcher
(cd tests && RAY_DISABLE_USAGE_STATS=1 "$py" -m pytest -q -p no:cacheprovider --durations=8 --basetemp="$work/pytest" .)
echo "== python: done in $(( $(date +%s) - t0 )) s"
