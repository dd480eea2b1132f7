#!/usr/bin/env bash
# Installs what Evident needs on a fresh Debian machine: system packages, then .venv/ from the lock file.
# Idempotent: a second run only checks. OpenSearch itself is fetched by `evident services up`.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(redis-server tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-spa
              trans-de-en python3-venv ca-certificates chromium)  # chromium: the tests look at the pages

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing system packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The services run the worker, beat and API as the unprivileged user `evident`, which must be able to run the
# virtualenv's Python: a Python under a home it cannot enter (pyenv's in /root) would leave them root. So the
# system's Python comes first when it is new enough; PYTHON=... chooses another.
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    PYTHON=/usr/bin/python3
  fi
fi
if [ -x .venv/bin/python ] && [ -z "${KEEP_VENV:-}" ]; then
  base=$(sed -n 's/^home = //p' .venv/pyvenv.cfg 2>/dev/null)
  case "$base" in
    /root/*|/home/*)
      if [ "$(id -u)" -eq 0 ]; then
        echo "bootstrap: .venv was made from a Python under $base, which the service user cannot run; rebuilding it from $PYTHON (KEEP_VENV=1 keeps it, and the worker then runs as root)"
        rm -rf .venv
      fi ;;
  esac
fi
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv from $PYTHON"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.evident-installed
want=$(cat requirements.lock pyproject.toml | sha1sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing Python packages into .venv (first time: several minutes, torch is large)"
  .venv/bin/pip install --quiet --upgrade pip
  # --no-compile: byte-compiling every module of torch and CUDA's wheels takes about half a minute, and Python
  # compiles the few that are imported on first use
  .venv/bin/pip install --quiet --no-compile -r requirements.lock
  .venv/bin/pip install --quiet --no-deps -e .
  echo "$want" > "$stamp"
fi

# axe-core, which the page tests inject into headless Chromium to check accessibility: the version the lock file
# pins, from the npm registry (a JavaScript file; no browser is downloaded). Without npm those tests cannot run.
if ! command -v npm >/dev/null 2>&1; then  # machines with Node.js from elsewhere have its npm; others get Debian's
  echo "bootstrap: installing npm"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
axe_stamp=tests/browser/node_modules/.evident-installed
axe_want=$(sha1sum tests/browser/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$axe_stamp" 2>/dev/null)" != "$axe_want" ]; then  # npm ci only when the lock changed
  (cd tests/browser && npm ci --no-audit --no-fund --silent)
  echo "$axe_want" > "$axe_stamp"
fi
