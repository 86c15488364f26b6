#!/usr/bin/env bash
# Installs the Debian packages one part of fastpath needs, and nothing else:
#
#   scripts/deps.sh build     compile build/fastpath, its BPF objects and skeletons
#   scripts/deps.sh test      the test layers (unit, bpf, e2e in namespaces, fuzz)
#   scripts/deps.sh bench     the benchmarks and their anchors (xdp-filter, nft)
#   scripts/deps.sh demo      the DDoS lab of `make demo`
#   scripts/deps.sh all       all of the above
#
# Idempotent: installs only what is missing. It changes nothing else on the
# machine: no mounts (the tests mount a private bpffs, bench and demo their
# own), no services started or stopped (the package's prometheus server may
# keep running: the exporter test runs its own inside a namespace; so may
# nginx's: the proxy test runs its own with a private config and prefix).
set -euo pipefail

build=(clang llvm make pkg-config gcc libc6-dev linux-libc-dev bpftool
       libbpf-dev libxdp-dev libpcap-dev libjansson-dev libmicrohttpd-dev libssl-dev)
test=(libcmocka-dev libclang-rt-14-dev iproute2 iputils-ping ethtool iptables nftables
      tcpdump tshark python3-scapy curl prometheus util-linux nginx openssl wrk)
bench=(iproute2 ethtool nftables xdp-tools tcpdump tcpreplay python3-scapy wrk haproxy nginx curl)
demo=(iproute2 ethtool curl python3-scapy nginx)

pkgs=()
[ $# -gt 0 ] || set -- build
for group in "$@"; do
  case $group in
  build) pkgs+=("${build[@]}") ;;
  test)  pkgs+=("${build[@]}" "${test[@]}") ;;
  bench) pkgs+=("${build[@]}" "${bench[@]}") ;;
  demo)  pkgs+=("${build[@]}" "${demo[@]}") ;;
  all)   pkgs+=("${build[@]}" "${test[@]}" "${bench[@]}" "${demo[@]}") ;;
  *) echo "deps: unknown group '$group' (build, test, bench, demo, all)" >&2; exit 2 ;;
  esac
done

missing=()
for p in $(printf '%s\n' "${pkgs[@]}" | sort -u); do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing packages: ${missing[*]}; install them, or run as root: $0 $*" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}" >&2
# Packages that ship a service (nginx, prometheus) must not start it: the
# tests run their own, privately. A policy-rc.d refuses every start for
# the time of the install (when the machine has none of its own).
rcpol=/usr/sbin/policy-rc.d
if [ ! -e "$rcpol" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$rcpol" && chmod 0755 "$rcpol"
  trap 'rm -f "$rcpol"' EXIT
fi
export DEBIAN_FRONTEND=noninteractive
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
