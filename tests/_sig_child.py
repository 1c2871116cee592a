"""Child process for the cross-process determinism test.

Reads {"params": {...}, "texts": [...]} as JSON on stdin, prints {"signatures": [[...], ...]}.
"""

import json
import sys

from neardup.sign.minhash import ShingleProcessor


def main() -> None:
    req = json.load(sys.stdin)
    proc = ShingleProcessor(**req["params"])
    sigs = [proc.signature(t).tolist() for t in req["texts"]]
    json.dump({"signatures": sigs}, sys.stdout)


if __name__ == "__main__":
    main()
