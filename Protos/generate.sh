#!/usr/bin/env bash
# Regenerates the committed Swift code of the protobuf messages in Protos/: the package builds
# without protoc or a build plugin. Needs Python 3 with pip (protoc comes from PyPI's
# grpcio-tools) and the Swift toolchain (protoc-gen-swift is built from the swift-protobuf
# checkout this package resolved, so the generated code matches the library it links).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift package resolve
swift build -c release --package-path .build/checkouts/swift-protobuf --scratch-path "$work/build" \
    --product protoc-gen-swift
python3 -m pip install -q --target "$work/protoc" grpcio-tools
out=Sources/FirestoreTriggers/Generated
mkdir -p "$out"
PYTHONPATH="$work/protoc" python3 -m grpc_tools.protoc -I Protos \
    --plugin=protoc-gen-swift="$work/build/release/protoc-gen-swift" \
    --swift_opt=Visibility=Package --swift_opt=FileNaming=DropPath \
    --swift_out="$out" firestore_document_event.proto
echo "wrote $out"
