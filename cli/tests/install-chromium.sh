#!/bin/sh
# Installs headless Chromium (Debian package `chromium`) for the viewer's browser test
# (cli/tests/view_browser.rs), when it is missing and we are root. .ci/run calls this before
# the tests; elsewhere the browser test fails with a message saying how to install it.
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-chromium: /usr/bin/chromium is missing and this is not root; install the Debian package chromium" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium
