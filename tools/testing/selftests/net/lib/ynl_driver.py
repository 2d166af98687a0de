#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# One YNL client for a whole test script: the kernel's YNL library
# (tools/net/ynl/lib, as tools/net/ynl/cli.py uses it) loads the spec once
# (and checks it against SCHEMA unless that is ""), then serves requests,
# a line each on standard input:
#
#   do|dump OPERATION [JSON]
#
# and answers each as cli.py --output-json would (the reply as JSON, or
# the netlink error with its extack message), then a line "ynl-end RC"
# (0, or 1 on an error, cli.py's exit status).  Under TCG a Python start
# and a spec's loading cost seconds; a script asks a dozen questions.
#
# Usage: ynl_driver.py YNL_DIR SPEC SCHEMA

import json
import sys

sys.path.insert(0, sys.argv[1])
from lib import YnlFamily, NlError  # noqa: E402


class Encoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, bytes):
            return bytes.hex(o)
        if isinstance(o, set):
            return list(o)
        return json.JSONEncoder.default(self, o)


def serve(ynl, line):
    words = line.split(None, 2)
    if len(words) < 2 or words[0] not in ("do", "dump"):
        print(f"ynl_driver: bad request: {line}")
        return 2
    attrs = json.loads(words[2]) if len(words) == 3 else {}
    try:
        if words[0] == "do":
            reply = ynl.do(words[1], attrs, None)
        else:
            reply = ynl.dump(words[1], attrs)
    except NlError as e:
        print(e)
        return 1
    print(json.dumps(reply, cls=Encoder))
    return 0


def main():
    ynl = YnlFamily(sys.argv[2], sys.argv[3])
    print("ynl-ready", flush=True)
    for line in sys.stdin:
        try:
            rc = serve(ynl, line.strip())
        except Exception as e:  # a bad attribute name, bad JSON
            print(f"{type(e).__name__}: {e}")
            rc = 1
        print(f"ynl-end {rc}", flush=True)


if __name__ == "__main__":
    main()
