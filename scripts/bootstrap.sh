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

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.evident-installed
want=$(cat requirements.lock pyproject.toml | sha1sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing Python packages into .venv (first time: several minutes, torch is large)"
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -r requirements.lock
  .venv/bin/pip install --quiet --no-deps -e .
  echo "$want" > "$stamp"
fi
