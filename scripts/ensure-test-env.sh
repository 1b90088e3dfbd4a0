#!/usr/bin/env bash
# Makes a fresh machine of this kind ready for the test suite: Debian's Chromium for the
# browser tests, and the local PostgreSQL and Redis the integration tests run against.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  echo "ensure-test-env: installing Debian's chromium (apt-get)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start || true
fi
if command -v redis-cli >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
