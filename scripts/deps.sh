#!/usr/bin/env bash
# Installs the Debian packages fastpath needs to build, test and benchmark.
# Idempotent: installs only what is missing; safe to run again.
set -euo pipefail

pkgs=(
  clang llvm make pkg-config gcc libc6-dev linux-libc-dev
  libbpf-dev libxdp-dev xdp-tools bpftool
  libpcap-dev libcmocka-dev libjansson-dev libmicrohttpd-dev libclang-rt-14-dev
  iproute2 iputils-ping ethtool iptables nftables tcpdump tshark python3-scapy curl
  prometheus
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages: ${missing[*]}; run as root: $0" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  apt-get update -qq || true
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# bpffs: libbpf pinning and xdp-tools need it; a fresh machine has none mounted.
if ! mount | grep -q ' /sys/fs/bpf type bpf'; then
  mount -t bpf bpf /sys/fs/bpf 2>/dev/null || echo "deps: could not mount bpffs on /sys/fs/bpf" >&2
fi
# Keep the prometheus server the package starts from listening while tests run.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active -q prometheus 2>/dev/null; then
  systemctl stop prometheus 2>/dev/null || true
fi
exit 0
