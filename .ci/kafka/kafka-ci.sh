#!/usr/bin/env bash
# A real single-node Apache Kafka (KRaft, static quorum) on 127.0.0.1 from Maven Central jars,
# for the integration tests. No Docker needed: Java 17+ and Maven.
#
# usage: .ci/kafka/kafka-ci.sh {fetch|start|resume|stop|logs|txproduce TOPIC N [ABORT_EVERY [PRODUCERS]]}
#   fetch   download the broker classpath into $KAFKA_HOME/lib (done by start when missing)
#   start   wipe the data dir, format storage, start the broker, wait until it serves
#   resume  start the broker again on the existing data dir (after stop), wait until it serves
#   stop    stop the broker this script started (only that PID), TERM then KILL after 30 s
#   logs    print the broker's output
#   txproduce TOPIC N [ABORT_EVERY [PRODUCERS]]  send the lines of stdin to partition 0 of TOPIC in transactions of N
#           records (TxProduce.java, compiled into $KAFKA_HOME/tx on first use)
#
# Environment: KAFKA_LINE (4 = Kafka 4.x, default; 3 = 3.9.x), KAFKA_VERSION (e.g. 4.1.1),
# KAFKA_HOME (default ${TMPDIR:-/tmp}/ci-kafka), KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093),
# KAFKA_SASL_PORT (9094: SASL_PLAINTEXT, mechanism PLAIN, user KAFKA_SASL_USER with
# KAFKA_SASL_PASSWORD; defaults evalstream / evalstream-test-secret),
# KAFKA_HEAP_OPTS, KAFKA_JVM_OPTS, KAFKA_START_TIMEOUT (seconds, default 120).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KAFKA_LINE="${KAFKA_LINE:-4}"                 # 4 -> profile kafka4 (log4j2), 3 -> profile kafka3 (reload4j)
KAFKA_VERSION="${KAFKA_VERSION:-}"             # optional override, e.g. 4.1.1 or 3.9.1
KAFKA_HOME="${KAFKA_HOME:-${TMPDIR:-/tmp}/ci-kafka}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
# A second listener, SASL/PLAIN with one user, for the authentication tests.
KAFKA_SASL_PORT="${KAFKA_SASL_PORT:-9094}"
KAFKA_SASL_USER="${KAFKA_SASL_USER:-evalstream}"
KAFKA_SASL_PASSWORD="${KAFKA_SASL_PASSWORD:-evalstream-test-secret}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"
KAFKA_JVM_OPTS="${KAFKA_JVM_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true -Djava.net.preferIPv4Stack=true}"
LIB="$KAFKA_HOME/lib"; CONF="$KAFKA_HOME/conf"; DATA="$KAFKA_HOME/data"
OUT="$KAFKA_HOME/kafka.out"; PIDFILE="$KAFKA_HOME/kafka.pid"

log_opt() {
  if [ "$KAFKA_LINE" = 3 ]; then echo "-Dlog4j.configuration=file:$CONF/log4j.properties"
  else echo "-Dlog4j2.configurationFile=$CONF/log4j2.properties"; fi
}

fetch() {
  mkdir -p "$LIB"
  local v=(); [ -n "$KAFKA_VERSION" ] && v=("-Dkafka.version=$KAFKA_VERSION")
  mvn -B -q -U -f "$HERE/pom.xml" -P "kafka$KAFKA_LINE" "${v[@]}" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$LIB"
  ls "$LIB" | grep -q '^kafka_2\.13-' || { echo "kafka_2.13 jar missing in $LIB" >&2; exit 1; }
}

write_config() {
  mkdir -p "$CONF" "$DATA"
  cat > "$CONF/server.properties" <<EOP
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${KAFKA_CONTROLLER_PORT}
listeners=PLAINTEXT://127.0.0.1:${KAFKA_PORT},CONTROLLER://127.0.0.1:${KAFKA_CONTROLLER_PORT},SASL_PLAINTEXT://127.0.0.1:${KAFKA_SASL_PORT}
advertised.listeners=PLAINTEXT://127.0.0.1:${KAFKA_PORT},SASL_PLAINTEXT://127.0.0.1:${KAFKA_SASL_PORT}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${KAFKA_SASL_USER}="${KAFKA_SASL_PASSWORD}";
log.dirs=${DATA}
auto.create.topics.enable=true
delete.topic.enable=true
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
background.threads=4
log.cleaner.dedupe.buffer.size=16777216
EOP
  if [ "$KAFKA_LINE" != 3 ]; then
    printf 'share.coordinator.state.topic.replication.factor=1\nshare.coordinator.state.topic.min.isr=1\n' >> "$CONF/server.properties"
    cat > "$CONF/log4j2.properties" <<'EOP'
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.kafkaRequest.name = kafka.request.logger
logger.kafkaRequest.level = WARN
EOP
  else
    cat > "$CONF/log4j.properties" <<'EOP'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
EOP
  fi
}

format() {
  local cid
  cid="$(java -Xmx256m "$(log_opt)" -cp "$LIB/*" kafka.tools.StorageTool random-uuid | tail -n1)"
  java -Xmx256m "$(log_opt)" -cp "$LIB/*" kafka.tools.StorageTool \
      format -t "$cid" -c "$CONF/server.properties" --ignore-formatted
}

# our_pid prints the PID this script started, only while that process is still our broker
# (guards against a recycled PID).
our_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid; pid="$(cat "$PIDFILE")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  echo "$pid"
}

wait_ready() {
  local deadline=$((SECONDS + ${KAFKA_START_TIMEOUT:-120}))
  while (( SECONDS < deadline )); do
    if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      echo "kafka exited during startup" >&2; tail -n 200 "$OUT" >&2; return 1
    fi
    if grep -q 'Kafka Server started' "$OUT" 2>/dev/null &&
       (exec 3<>"/dev/tcp/127.0.0.1/${KAFKA_PORT}") 2>/dev/null; then
      echo "kafka ready on 127.0.0.1:${KAFKA_PORT} (pid $(cat "$PIDFILE"), ${SECONDS}s)"; return 0
    fi
    sleep 0.5
  done
  echo "kafka not ready after ${KAFKA_START_TIMEOUT:-120}s" >&2; tail -n 200 "$OUT" >&2; return 1
}

launch() {
  if our_pid >/dev/null; then echo "kafka already running (pid $(cat "$PIDFILE"))" >&2; return 1; fi
  [ -f "$OUT" ] && mv -f "$OUT" "$OUT.prev"
  # shellcheck disable=SC2086
  nohup java $KAFKA_HEAP_OPTS $KAFKA_JVM_OPTS "$(log_opt)" -Dkafka.logs.dir="$KAFKA_HOME/logs" \
        -cp "$LIB/*" kafka.Kafka "$CONF/server.properties" >"$OUT" 2>&1 </dev/null &
  echo $! > "$PIDFILE"
  wait_ready
}

start() {
  { [ -d "$LIB" ] && ls "$LIB" | grep -q '^kafka_2\.13-'; } || fetch
  if our_pid >/dev/null; then echo "kafka already running (pid $(cat "$PIDFILE"))" >&2; return 1; fi
  rm -rf "$DATA"; write_config; format
  launch
}

resume() {
  [ -d "$DATA" ] || { echo "no data dir $DATA: use start" >&2; return 1; }
  write_config
  launch
}

stop() {
  local pid
  pid="$(our_pid)" || { rm -f "$PIDFILE"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true          # shutdown hook does a clean shutdown
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$PIDFILE"
}

txproduce() {
  [ -d "$LIB" ] || fetch
  if [ ! -f "$KAFKA_HOME/tx/TxProduce.class" ] || [ "$HERE/TxProduce.java" -nt "$KAFKA_HOME/tx/TxProduce.class" ]; then
    mkdir -p "$KAFKA_HOME/tx"
    javac -d "$KAFKA_HOME/tx" -cp "$LIB/*" "$HERE/TxProduce.java"
  fi
  java -cp "$LIB/*:$KAFKA_HOME/tx" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn TxProduce "127.0.0.1:$KAFKA_PORT" "$@"
}

case "${1:-}" in
  fetch) fetch ;; start) start ;; resume) resume ;; stop) stop ;; logs) cat "$OUT" ;;
  txproduce) shift; txproduce "$@" ;;
  *) echo "usage: $0 {fetch|start|resume|stop|logs|txproduce TOPIC N [ABORT_EVERY [PRODUCERS]]}" >&2; exit 2 ;;
esac
