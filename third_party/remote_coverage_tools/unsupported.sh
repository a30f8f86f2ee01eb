#!/bin/sh
echo "remote_coverage_tools is an offline stub: 'bazel coverage' is not supported in this workspace." >&2
exit 1
