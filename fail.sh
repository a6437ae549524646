#!/bin/sh
echo "bad amount" >&2
exit 1
