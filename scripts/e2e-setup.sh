#!/usr/bin/env bash
# Installs the Debian packages the end-to-end suites need, when they are missing: the
# real servers and the browser that make e2e starts on 127.0.0.1.
set -euo pipefail
need=()
want() { # want COMMAND PACKAGE: PACKAGE is needed when COMMAND is missing
	command -v "$1" >/dev/null || [[ " ${need[*]} " == *" $2 "* ]] || need+=("$2")
}
want etcd etcd-server
want etcdctl etcd-client
want redis-server redis-server
want prometheus prometheus
want promtool prometheus
want chromium chromium
if [ ${#need[@]} -eq 0 ]; then
	echo "e2e-setup: etcd, etcdctl, redis-server, prometheus, promtool and chromium are installed"
	exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "e2e-setup: missing ${need[*]}; apt-get update"
$sudo apt-get update -qq
echo "e2e-setup: apt-get install ${need[*]} (chromium takes a few minutes)"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "e2e-setup: installed ${need[*]}"
