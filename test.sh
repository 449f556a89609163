#!/usr/bin/env bash
# Runs all the tests: the Swift tests (`swift test`), then the official firebase-admin SDK
# (Python, in a venv under .build/) against a freshly started emulator with functions/ deployed.
# Needs python3 with venv and network access to PyPI for the second part; `--swift-only` skips it.
set -euo pipefail
cd "$(dirname "$0")"

step() {
    local name="$1"
    shift
    local start=$SECONDS
    echo "==> $name"
    "$@"
    echo "==> $name took $((SECONDS - start)) s"
}

conformance() {
    local venv=.build/conformance-venv
    # A venv whose creation failed half-way (no pip) is made again rather than reused.
    if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
        rm -rf "$venv"
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install -q --disable-pip-version-check -r conformance/requirements.txt
    FUNCTIONS_BIN=.build/debug/functions SCRATCH_PATH=.build CONFIGURATION=debug \
        "$venv/bin/python" -m pytest -q -rs --durations=15 -p no:cacheprovider conformance
}

# No test may reach a real metadata server (169.254.169.254, the default of production Admin
# clients): a worker that finds no credentials asks this address instead, where nothing listens.
export GCE_METADATA_HOST="${GCE_METADATA_HOST:-127.0.0.1:9}"

# Every module must declare what it imports (an undeclared import builds here by luck of the
# build order and breaks elsewhere).
step "build (debug, with tests)" swift build --build-tests --explicit-target-dependency-import-check error
step "swift test" swift test --skip-build
# The examples and benchmarks are packages of their own; they build here so that they keep building.
step "build Examples/ and Benchmarks/ (debug, sharing .build)" bash -c \
    'swift build --package-path Examples --scratch-path .build --disable-build-manifest-caching &&
     swift build --package-path Benchmarks --scratch-path .build --disable-build-manifest-caching'
[ "${1:-}" = "--swift-only" ] && exit 0
# functions/ depends on the root package by path: building it in the same folder reuses the root's modules.
step "build functions/ (debug, sharing .build)" \
    swift build --package-path functions --scratch-path .build --disable-build-manifest-caching
step "firebase-admin conformance (conformance/)" conformance
