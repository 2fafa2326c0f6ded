# The `./scripts/start --cluster` demo's simulated metrics, sourced by scripts/start after scripts/lib.sh (its `log`).
# demo_metrics decides, from the machine and GPU_DEMO_METRICS, whether the demo gets them:
# - GPU_DEMO_METRICS=0: says they are off;
# - no `prometheus` on PATH (the apt package scripts/test installs): says the app runs without metrics;
# - else starts scripts/simulated-metrics.mjs and a Prometheus scraping it (start_simulated_metrics) and, once both
#   answer, writes <STATE_DIR>/app-config.simulated-metrics.yaml (gpu.prometheus with simulated: true) and adds it to
#   the `configs` array of app arguments; if they do not start, says so and stops what it started.
# Reads STATE_DIR, REPO_ROOT and GPU_CLUSTER_PORT_BASE (or <STATE_DIR>/port-base); sets METRICS_PID and PROMETHEUS_PID
# for the caller's clean-up. packages/backend/src/startScript.test.ts runs it without Prometheus.

start_simulated_metrics() {
  local port_base metrics_port prometheus_port prom_dir
  port_base="${GPU_CLUSTER_PORT_BASE:-$(cat "$STATE_DIR/port-base" 2>/dev/null || echo 16440)}"
  metrics_port="${GPU_DEMO_METRICS_PORT:-$((port_base + 10))}"
  prometheus_port="${GPU_DEMO_PROMETHEUS_PORT:-$((port_base + 11))}"
  prom_dir="$STATE_DIR/prometheus"
  mkdir -p "$prom_dir/data"
  node "$REPO_ROOT/scripts/simulated-metrics.mjs" "$metrics_port" > "$prom_dir/simulated-metrics.log" 2>&1 &
  METRICS_PID=$!
  cat > "$prom_dir/prometheus.yml" <<YAML
# Written by scripts/start --cluster: scrapes the demo's simulated metrics (not measured).
global:
  scrape_interval: 15s
  evaluation_interval: 15s
scrape_configs:
  - job_name: simulated-gpu-metrics
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$metrics_port']
YAML
  prometheus --config.file="$prom_dir/prometheus.yml" --storage.tsdb.path="$prom_dir/data" \
    --web.listen-address="127.0.0.1:$prometheus_port" --log.level=warn > "$prom_dir/prometheus.log" 2>&1 &
  PROMETHEUS_PID=$!
  local ready=0
  for _ in $(seq 1 100); do
    if curl -sf --max-time 1 "http://127.0.0.1:$prometheus_port/-/ready" > /dev/null \
      && curl -sf --max-time 2 "http://127.0.0.1:$metrics_port/metrics" > /dev/null; then
      ready=1
      break
    fi
    kill -0 "$PROMETHEUS_PID" 2>/dev/null && kill -0 "$METRICS_PID" 2>/dev/null || break
    sleep 0.2
  done
  if [ "$ready" != 1 ]; then
    echo "The demo's simulated metrics did not start (logs in $prom_dir): running without metrics." >&2
    for pid in $PROMETHEUS_PID $METRICS_PID; do kill -TERM "$pid" 2>/dev/null || true; done
    PROMETHEUS_PID=""
    METRICS_PID=""
    return
  fi
  cat > "$STATE_DIR/app-config.simulated-metrics.yaml" <<YAML
# Written by scripts/start --cluster: the demo's Prometheus holds simulated series (scripts/simulated-metrics.mjs).
gpu:
  prometheus:
    baseUrl: http://127.0.0.1:$prometheus_port
    simulated: true
YAML
  configs+=(--config "$STATE_DIR/app-config.simulated-metrics.yaml")
  log "Simulated metrics (demo data, not measured): exporter on 127.0.0.1:$metrics_port, Prometheus on http://127.0.0.1:$prometheus_port (15 s scrapes)"
}

demo_metrics() {
  rm -f "$STATE_DIR/app-config.simulated-metrics.yaml"
  if [ "${GPU_DEMO_METRICS:-1}" = 0 ]; then
    log "Simulated metrics off (GPU_DEMO_METRICS=0): the app runs without Prometheus"
  elif ! command -v prometheus > /dev/null; then
    log "No Prometheus installed (apt package 'prometheus', as ./scripts/test installs): the app runs without metrics, so usage and the Waste leaderboard stay empty"
  else
    start_simulated_metrics
  fi
}
